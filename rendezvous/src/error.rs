//! The rendezvous's one error type: a kind to match on, a detail that says what happened, and
//! the I/O error (or `make`'s error) that caused it as the [`source`](std::error::Error::source).

use std::fmt;
use std::sync::Arc;

/// `Result` with the rendezvous's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What [`Job::share`](crate::Job::share)'s `make` may fail with: any error, boxed (`?` boxes
/// one, `"why".into()` makes one from a message). Rank 0 returns it as the
/// [`source`](std::error::Error::source) of an [`ErrorKind::Failed`] error.
pub type MakeError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What went wrong, by name.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A rank of the job did not arrive at rank 0 within the rendezvous's timeout (the detail
    /// names the missing ranks), or rank 0 did not answer in time (the detail names its address
    /// and the timeout), or the master address did not resolve in time.
    Timeout,
    /// The ranks of a job disagree: a different world size, tag or rendezvous protocol, a rank
    /// out of range or arriving twice, a rank presenting a secret when rank 0 has none (the
    /// detail names both sides).
    Mismatch,
    /// The rendezvous failed for another reason: a connection broke, the peer is not a custack
    /// rank, the tag or the bytes to share are over their caps, rank 0 could not make the
    /// bytes to share, or (on one rank alone) rank 0 refused this rank's hello for not
    /// presenting the job's secret (the detail says which; an I/O error, or `make`'s own
    /// error, is the [`source`](std::error::Error::source)).
    Failed,
    /// A setting of the job is missing or invalid: a launcher variable (the detail names it and
    /// its value), a world size of 0 or over `i32::MAX` (NCCL's `nranks` is a C `int`), a rank
    /// not below the world size, a secret empty or over its cap, port 0 where every rank must
    /// know the port, or a master address that does not resolve or that rank 0 cannot listen
    /// on. [`Job::new`](crate::Job::new) refuses its arguments with this kind too.
    LaunchEnvironment,
}

impl ErrorKind {
    /// The sentence an error of this kind starts with.
    fn sentence(self) -> &'static str {
        match self {
            Self::Timeout => {
                "a rank of the job did not arrive, or rank 0 did not answer, within the timeout"
            }
            Self::Mismatch => "the ranks of the job disagree",
            Self::Failed => "the rendezvous of the job's processes failed",
            Self::LaunchEnvironment => "the job's launch settings are missing or invalid",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.sentence())
    }
}

/// An error of the rendezvous: its [`kind`](Self::kind), a [`detail`](Self::detail) naming what
/// happened (the ranks, the variable and its value, both sides of a disagreement), and the
/// error that caused it as the [`source`](std::error::Error::source).
///
/// `Display` is the kind's sentence and the detail:
///
/// ```text
/// the ranks of the job disagree: rank 1 brings tag `nccl 2.27.3`, rank 0 `nccl 2.28.1`
/// ```
///
/// `Debug` (`{:?}`: what `fn main() -> Result<(), Error>` and `unwrap` print) adds each error of
/// the source chain on a line of its own ("caused by: ..."); `{:#?}` is the structure.
///
/// # Examples
///
/// ```
/// use custack_rendezvous::{ErrorKind, Job};
///
/// let e = Job::new(4, 4, 0, "10.0.0.1", 29500).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::LaunchEnvironment);
/// assert_eq!(e.detail(), "rank 4 is not below the world size 4");
/// assert_eq!(
///     e.to_string(),
///     "the job's launch settings are missing or invalid: rank 4 is not below the world size 4"
/// );
/// ```
#[derive(Clone)]
pub struct Error {
    kind: ErrorKind,
    detail: Box<str>,
    /// The error this one wraps; `Arc` so that `Error` stays `Clone`.
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            detail: detail.into().into_boxed_str(),
            source: None,
        }
    }

    #[must_use]
    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// [`with_source`](Self::with_source) for an error already boxed (`make`'s).
    #[must_use]
    pub(crate) fn with_boxed_source(mut self, source: MakeError) -> Self {
        self.source = Some(Arc::from(source));
        self
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// What happened, without the kind's sentence: the ranks, the variable and its value, both
    /// sides of a disagreement.
    pub fn detail(&self) -> &str {
        &self.detail
    }
}

/// `make`'s failure, as every rank reports it: its message in the detail, and on rank 0 the
/// error itself as the source.
pub(crate) fn make_failed(e: MakeError) -> Error {
    failed(format!("rank 0 could not make the bytes to share: {e}")).with_boxed_source(e)
}

/// An [`ErrorKind::LaunchEnvironment`] error saying `detail`.
pub(crate) fn env_error(detail: impl Into<String>) -> Error {
    Error::new(ErrorKind::LaunchEnvironment, detail)
}

/// An [`ErrorKind::Failed`] error saying `detail`.
pub(crate) fn failed(detail: impl Into<String>) -> Error {
    Error::new(ErrorKind::Failed, detail)
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            let mut d = f.debug_struct("Error");
            d.field("kind", &self.kind).field("detail", &self.detail);
            if let Some(source) = &self.source {
                d.field("source", source);
            }
            return d.finish();
        }
        write!(f, "{self}")?;
        let mut source = std::error::Error::source(self);
        while let Some(s) = source {
            write!(f, "\n  caused by: {s}")?;
            source = s.source();
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_send_sync_and_static() {
        fn check<T: Send + Sync + 'static + std::error::Error + Clone>() {}
        check::<Error>();
    }

    #[test]
    fn debug_walks_the_source_chain() {
        let e = Error::new(
            ErrorKind::Failed,
            "rank 0 could not send the bytes to rank 2",
        )
        .with_source(std::io::Error::other("broken pipe"));
        assert_eq!(
            format!("{e:?}"),
            "the rendezvous of the job's processes failed: rank 0 could not send the bytes to \
             rank 2\n  caused by: broken pipe"
        );
        assert!(format!("{e:#?}").starts_with("Error {\n    kind: Failed,"));
    }
}
