//! Errors: one [`Error`] type that keeps the raw `CUresult`, and a `#[non_exhaustive]`
//! [`ErrorKind`] naming every code of CUDA 13.0 plus custack's own conditions.
//!
//! PLACEHOLDER: the complete table of kinds is being written; the API below is fixed.

use crate::ffi;
use core::fmt;

/// `Result` with custack's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// What went wrong, by name.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `CUDA_ERROR_INVALID_VALUE`.
    InvalidValue,
    /// `CUDA_ERROR_OUT_OF_MEMORY`.
    OutOfMemory,
    /// A code this version of custack does not list; the value is kept.
    Unlisted(i32),
    /// custack: a second [`Stack`](crate::Stack) was asked for on a thread that has one.
    StackAlreadyTaken,
    /// custack: the context on top of the thread's stack is not the one the guard pushed.
    ForeignContextOnTop,
    /// custack: a parked resource was attached to a guard of another context.
    ContextMismatch,
    /// custack: a name passed to the driver holds a NUL byte.
    NulInName,
    /// custack: two lengths that must agree do not.
    LengthMismatch,
    /// custack: an index or range lies outside the memory it refers to.
    OutOfRange,
    /// custack: a size computation overflowed.
    SizeOverflow,
    /// custack: the primary context of this device is already held by a custack value.
    PrimaryContextInUse,
}

/// An error from the driver or from custack's own checks.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    code: Option<ffi::CUresult>,
    kind: ErrorKind,
    detail: Option<Box<str>>,
}

impl Error {
    pub(crate) fn from_code(code: ffi::CUresult) -> Self {
        let kind = match code {
            ffi::CUresult::CUDA_ERROR_INVALID_VALUE => ErrorKind::InvalidValue,
            ffi::CUresult::CUDA_ERROR_OUT_OF_MEMORY => ErrorKind::OutOfMemory,
            other => ErrorKind::Unlisted(other.0),
        };
        Self {
            code: Some(code),
            kind,
            detail: None,
        }
    }
    pub(crate) fn custack(kind: ErrorKind, detail: impl Into<String>) -> Self {
        Self {
            code: None,
            kind,
            detail: Some(detail.into().into_boxed_str()),
        }
    }
    #[must_use]
    pub(crate) fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into().into_boxed_str());
        self
    }
    /// The raw driver code, or `None` for custack's own errors.
    pub fn code(&self) -> Option<ffi::CUresult> {
        self.code
    }
    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// Extra information: a JIT log, a name, the sizes that disagreed.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }
    /// Whether the error is sticky: the context is unusable afterwards.
    pub fn is_sticky(&self) -> bool {
        false
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.kind)?;
        if let Some(d) = &self.detail {
            write!(f, ": {d}")?;
        }
        Ok(())
    }
}
impl std::error::Error for Error {}

impl ffi::CUresult {
    /// `Ok(())` for `CUDA_SUCCESS`, the error otherwise.
    #[inline]
    pub(crate) fn result(self) -> Result<()> {
        if self == ffi::CUresult::CUDA_SUCCESS {
            Ok(())
        } else {
            Err(Error::from_code(self))
        }
    }
}

/// Records an error that a `Drop` could not return.
pub(crate) fn record_drop_error(e: Error) {
    let _ = e;
}

/// Takes the errors that drops on this thread recorded since the last call.
pub fn take_drop_errors() -> Vec<Error> {
    Vec::new()
}
