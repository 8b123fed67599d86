//! [`Error`]: one failure of a driver call or of a check custack makes, with its raw code, kind,
//! detail and source, and the conversion of a `CUresult` into it.

use crate::error::kind::{ErrorKind, LibraryStatus, NOT_LINKED};
use crate::error::origin::Origin;
use crate::ffi;
use core::ffi::{CStr, c_char};
use core::fmt;
use std::sync::Arc;

/// An error from the driver or from custack's own checks.
///
/// It keeps the raw driver code ([`code`](Self::code)), its [`kind`](Self::kind), and an
/// optional [`detail`](Self::detail). `Display` shows the driver's own name and description
/// (`cuGetErrorName`, `cuGetErrorString`), the detail, whether the error is sticky, and a hint
/// for errors that usually come from the machine's setup:
///
/// ```text
/// CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected
///   hint: no CUDA-capable device is visible: check `nvidia-smi`, CUDA_VISIBLE_DEVICES …
/// ```
///
/// # In a library built on custack
///
/// A crate that builds on custack can return custack's errors and make its own of the same
/// kinds: [`Error::new`] (a kind and its detail), [`Error::from_kind`]
/// (a kind alone), [`with_detail`](Self::with_detail) and [`with_source`](Self::with_source)
/// (a foreign error, such as an `std::io::Error` or a cuBLAS status of the crate's own type, as
/// the [`source`](std::error::Error::source)). Such an error displays exactly as custack's own
/// error of that kind and detail, and callers match on [`kind`](Self::kind) as for any other:
///
/// ```
/// use custack::{Error, ErrorKind};
///
/// /// A downstream library's loader: its errors are custack errors.
/// fn read_kernels(path: &str) -> custack::Result<String> {
///     std::fs::read_to_string(path)
///         .map_err(|e| Error::new(ErrorKind::Io, format!("reading {path}")).with_source(e))
/// }
///
/// let err = read_kernels("/nonexistent/kernels.ptx").unwrap_err();
/// match err.kind() {
///     ErrorKind::Io => {
///         assert!(err.to_string().starts_with("a file could not be read: reading /nonexistent"));
///         let io = std::error::Error::source(&err).unwrap();
///         assert!(io.downcast_ref::<std::io::Error>().is_some());
///     }
///     ErrorKind::OutOfMemory => unreachable!("free something and retry"),
///     other => panic!("unexpected {other:?}"),
/// }
/// ```
#[derive(Clone)]
#[doc(alias = "CUresult")]
pub struct Error {
    code: Option<ffi::CUresult>,
    kind: ErrorKind,
    detail: Option<Box<str>>,
    /// The error this one wraps ([`Error::with_source`]); `Arc` so that `Error` stays `Clone`.
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
    /// What first observed the sticky error that poisoned the process (R20): set on every error
    /// returned once it is poisoned; the record lives for the rest of the process.
    origin: Option<&'static Origin>,
    /// A CUDA library's raw status, for an error a library call returned.
    status: Option<i32>,
}

/// Equal when code, kind and detail are equal and both wrap no source, or the same one (a
/// clone of an error equals it; two errors wrapping separately made sources do not, since
/// `dyn Error` has no equality).
impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
            && self.kind == other.kind
            && self.detail == other.detail
            && match (&self.source, &other.source) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                _ => false,
            }
            && self.origin == other.origin
            && self.status == other.status
    }
}

impl Eq for Error {}

static_assertions::assert_impl_all!(Error: Send, Sync, std::error::Error);

impl Error {
    /// Wraps a raw driver code, for example one returned by a library custack does not wrap.
    ///
    /// The kind is [`ErrorKind::from_code`] of it: a code this version of custack does not list
    /// is kept as [`ErrorKind::Unlisted`]. `CUDA_SUCCESS` is accepted and reported as
    /// `Unlisted(0)`.
    pub fn from_raw(code: ffi::CUresult) -> Self {
        Self::from_code(code)
    }

    /// The error of a code a driver call returned, before the poison sees it: private to
    /// `error`, so that only the one conversion (`CUresult::result`, `result_by`, `result_at`,
    /// `failure`, all through `poison::failed_call`) makes one, and a sticky code cannot escape
    /// the record of the process's first sticky error (R20). An error custack makes itself,
    /// with a code it chose and no driver call, is [`from_kind`](Self::from_kind) or
    /// [`new`](Self::new) of a named, non-sticky kind.
    ///
    /// Inside custack, [`from_raw`](Self::from_raw) (this, public, for a user's own codes) is
    /// refused by clippy (`disallowed-methods` in `clippy.toml`) for the same reason.
    pub(in crate::error) fn from_code(code: ffi::CUresult) -> Self {
        Self {
            code: Some(code),
            kind: ErrorKind::from_code(code),
            detail: None,
            source: None,
            origin: None,
            status: None,
        }
    }

    /// An error of `kind` with its `detail`, as custack makes its own: for a library built on
    /// custack that refuses something in custack's terms (a length that disagrees, an index out
    /// of range, a file it could not read).
    ///
    /// [`code`](Self::code) is the kind's driver code ([`ErrorKind::code`]: `Some` for a driver
    /// kind, `None` for custack's own kinds), and `Display` is what custack's own error of that
    /// kind and detail shows.
    ///
    /// # Examples
    ///
    /// ```
    /// use custack::{Error, ErrorKind};
    ///
    /// fn check_lengths(a: usize, b: usize) -> custack::Result<()> {
    ///     if a == b {
    ///         Ok(())
    ///     } else {
    ///         Err(Error::new(ErrorKind::LengthMismatch, format!("{a} inputs, {b} outputs")))
    ///     }
    /// }
    /// let e = check_lengths(3, 4).unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::LengthMismatch);
    /// assert_eq!(e.code(), None);
    /// assert_eq!(e.to_string(), "two lengths that must be equal differ: 3 inputs, 4 outputs");
    ///
    /// let e = Error::new(ErrorKind::InvalidValue, "block of 2048 threads");
    /// assert_eq!(e.code(), Some(custack::ffi::CUresult::CUDA_ERROR_INVALID_VALUE));
    /// ```
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Self {
        Self::from_kind(kind).with_detail(detail)
    }

    /// An error of `kind` with no detail: [`code`](Self::code) is the kind's driver code
    /// ([`ErrorKind::code`]), so `Error::from_kind(ErrorKind::OutOfMemory)` equals
    /// `Error::from_raw(CUDA_ERROR_OUT_OF_MEMORY)`.
    ///
    /// (A function, not `From<ErrorKind>`: a second `From` impl for `Error` would make `?`
    /// ambiguous where the error type of a closure is inferred, as in `stream.scope(|s| …)??`.)
    pub fn from_kind(kind: ErrorKind) -> Self {
        Self {
            code: kind.code(),
            kind,
            detail: None,
            source: None,
            origin: None,
            status: None,
        }
    }
    pub(crate) fn custack(kind: ErrorKind, detail: impl Into<String>) -> Self {
        Self::new(kind, detail)
    }

    /// The error of a CUDA library call that returned `status`: the kind named after it
    /// ([`LibraryStatus::kind`]), the raw status kept ([`library_status`](Self::library_status)).
    #[cfg_attr(not(custack_libraries), allow(dead_code))]
    pub(crate) fn library(status: impl LibraryStatus, detail: impl Into<String>) -> Self {
        let mut e = Self::new(status.kind(), detail);
        e.status = Some(status.raw());
        e
    }

    /// `Ok` for a library call that returned `success`, else the error of `call` that returned
    /// `status`, its detail [`LibraryStatus::returned`]'s alone.
    #[cfg(any(
        feature = "cufft",
        feature = "curand",
        feature = "cudnn",
        feature = "cusolver"
    ))]
    #[inline]
    pub(crate) fn check_library<S: LibraryStatus + PartialEq>(
        status: S,
        success: S,
        call: &str,
        word: &str,
    ) -> core::result::Result<(), Self> {
        if status == success {
            return Ok(());
        }
        Err(Self::library_returned(status, call, word))
    }

    #[cfg(any(
        feature = "cufft",
        feature = "curand",
        feature = "cudnn",
        feature = "cusolver"
    ))]
    #[cold]
    #[inline(never)]
    fn library_returned(status: impl LibraryStatus, call: &str, word: &str) -> Self {
        Self::library(status, status.returned(call, word))
    }

    /// The raw status of the CUDA library call that failed (an `nvrtcResult`,
    /// `cublasStatus_t`, `ncclResult_t`, `cufftResult`, `curandStatus_t` or `cusparseStatus_t`, as the library
    /// returned it, also one the kind does not list); `None` for every other error.
    ///
    /// # Examples
    ///
    /// ```
    /// let e = custack::Error::new(custack::ErrorKind::InvalidValue, "not a library's");
    /// assert_eq!(e.library_status(), None);
    /// ```
    pub fn library_status(&self) -> Option<i32> {
        self.status
    }

    /// The same error with `detail` as its detail (replacing any detail it had).
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into().into_boxed_str());
        self
    }

    /// The same error, wrapping `source`: a foreign error that caused it (an `std::io::Error`,
    /// a status of a library custack does not wrap), which
    /// [`source()`](std::error::Error::source) returns. `Display` does not repeat it: error
    /// reporters walk the `source` chain (as the API guidelines ask of an error that has a
    /// source); put what the reader needs first into the detail. `Debug` (`{:?}`: what
    /// `fn main() -> custack::Result<()>` and `unwrap` print) is such a reporter: the message,
    /// then "caused by: ..." for each error of the chain.
    ///
    /// # Examples
    ///
    /// ```
    /// use custack::{Error, ErrorKind};
    /// use std::error::Error as _;
    ///
    /// #[derive(Debug)]
    /// struct CublasStatus(i32); // a foreign library's error type
    /// impl std::fmt::Display for CublasStatus {
    ///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    ///         write!(f, "cuBLAS status {}", self.0)
    ///     }
    /// }
    /// impl std::error::Error for CublasStatus {}
    ///
    /// let e = Error::new(ErrorKind::InvalidValue, "cublasSgemm refused the shapes")
    ///     .with_source(CublasStatus(7));
    /// assert_eq!(e.kind(), ErrorKind::InvalidValue);
    /// let cause = e.source().and_then(|s| s.downcast_ref::<CublasStatus>()).unwrap();
    /// assert_eq!(cause.0, 7);
    /// assert!(format!("{e:?}").ends_with("\n  caused by: cuBLAS status 7"));
    /// ```
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }
    /// This error, naming in its detail a second one of the same call that came after it (a
    /// clean-up, `what`, that failed too), so that neither is lost: the first error's kind and
    /// code, and "DETAIL; and WHAT failed too: OTHER".
    #[cold]
    #[must_use]
    pub(crate) fn and_failed_too(self, what: &str, other: &Error) -> Self {
        let detail = match self.detail() {
            Some(d) => format!("{d}; and {what} failed too: {other}"),
            None => format!("{what} failed too: {other}"),
        };
        self.with_detail(detail)
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
    /// Whether the error is sticky: the context is unusable afterwards
    /// (see [`ErrorKind::is_sticky`]).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let mut buf = guard.alloc::<u32>(16)?;
    /// let stream = guard.stream()?;
    /// let done = stream.scope(|s| s.fill_u32(s.bind_mut(&mut buf), 1)).and_then(|r| r);
    /// if let Err(e) = &done {
    ///     if e.is_sticky() {
    ///         eprintln!("the GPU faulted; relaunch the process to use CUDA again: {e}");
    ///     }
    /// }
    /// done?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    pub fn is_sticky(&self) -> bool {
        self.kind.is_sticky()
    }

    /// Where the sticky error that poisoned this process was first observed (R20): what
    /// observed it, its call site, the declared kernel launched before it; `None` for an error
    /// returned while the process was not poisoned.
    ///
    /// The first sticky error observed anywhere (a scope's end, a submission's wait, a launch,
    /// a synchronize, any driver call) is recorded once for the whole process, and from then on
    /// every push, scope, submission, launch, wait and synchronize returns it, with this origin,
    /// without going to the driver; see [`poisoned`](crate::poisoned) and
    /// [`fail_stop`](crate::fail_stop), and the [faults guide](crate::guide::faults).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn job() -> custack::Result<()> { Ok(()) }
    /// if let Err(e) = job() {
    ///     if let Some(origin) = e.origin() {
    ///         eprintln!("the GPU faulted; {origin}"); // "first observed by ... at src/main.rs:12:5"
    ///         custack::fail_stop(&e);
    ///     }
    /// }
    /// ```
    pub fn origin(&self) -> Option<&Origin> {
        self.origin
    }

    /// The same error with `origin`.
    #[must_use]
    pub(crate) fn with_origin(mut self, origin: &'static Origin) -> Self {
        self.origin = Some(origin);
        self
    }
}

/// Copies the driver's string for `code` out of `query` (`cuGetErrorName` or
/// `cuGetErrorString`); `None` when the driver does not know the code.
fn driver_string(
    code: ffi::CUresult,
    query: unsafe extern "C" fn(ffi::CUresult, *mut *const c_char) -> ffi::CUresult,
) -> Option<String> {
    // A forked child makes no driver call (R22): its errors show their kind's name instead.
    if crate::error::fork::forked() {
        return None;
    }
    let mut text: *const c_char = core::ptr::null();
    // SAFETY: `cuGetErrorName` / `cuGetErrorString` take any `CUresult` value and a valid
    // pointer to write to:
    // - `&raw mut text` points to a live local `*const c_char`;
    // - an unrecognized code is documented to return CUDA_ERROR_INVALID_VALUE and store NULL
    //   (driver API, Error Handling); neither function needs `cuInit` or a context.
    let status = unsafe { query(code, &raw mut text) };
    if status != ffi::CUresult::CUDA_SUCCESS || text.is_null() {
        return None;
    }
    // SAFETY: on success the driver stored a pointer to a NUL-terminated string that lives in
    // the driver library (static for as long as libcuda is loaded, and custack links it);
    // `text` was checked non-null above, and the bytes are copied out before returning.
    let text = unsafe { CStr::from_ptr(text) };
    Some(text.to_string_lossy().into_owned())
}

/// `{:?}` is what `fn main() -> custack::Result<()>` and `unwrap` print: the `Display` text (the
/// driver's name and description, the detail, the hint), then each error in the
/// [`source`](std::error::Error::source) chain on a line of its own ("caused by: ..."). `{:#?}`
/// is the structure: kind, code, detail and source.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            write!(f, "{self}")?;
            let mut source = std::error::Error::source(self);
            while let Some(s) = source {
                write!(f, "\n  caused by: {s}")?;
                source = s.source();
            }
            return Ok(());
        }
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.kind);
        if let Some(code) = self.code {
            d.field("code", &code.0);
        }
        if let Some(detail) = &self.detail {
            d.field("detail", detail);
        }
        if let Some(source) = &self.source {
            d.field("source", source);
        }
        if let Some(origin) = self.origin {
            d.field("origin", origin);
        }
        if let Some(status) = self.status {
            d.field("library_status", &status);
        }
        d.finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(code) = self.code.or_else(|| self.kind.code()) {
            match driver_string(code, ffi::cuGetErrorName) {
                Some(name) => write!(f, "{name} ({})", code.0)?,
                // As the driver names it (the table lists errors only).
                None if code == ffi::CUresult::CUDA_SUCCESS => f.write_str("CUDA_SUCCESS (0)")?,
                None => write!(f, "{} ({})", self.kind.name(), code.0)?,
            }
            match driver_string(code, ffi::cuGetErrorString) {
                Some(description) => write!(f, ": {description}")?,
                None if cfg!(custack_no_libcuda) => write!(f, ": {NOT_LINKED}")?,
                None => f.write_str(": no description from the driver")?,
            }
        } else {
            f.write_str(self.kind.custack_sentence().unwrap_or(self.kind.name()))?;
        }
        if let Some(detail) = &self.detail {
            write!(f, ": {detail}")?;
        }
        if self.is_sticky() {
            f.write_str(
                " (sticky: CUDA is unusable in this process; a new process can use it again)",
            )?;
        }
        if let Some(origin) = self.origin {
            write!(f, "\n  {origin}")?;
        }
        if let Some(hint) = self.kind.hint() {
            write!(f, "\n  hint: {hint}")?;
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
#[allow(
    clippy::disallowed_methods,
    reason = "tests of the public constructor `from_raw`"
)]
mod tests {
    use super::*;
    use crate::error::kind::{CUSTACK_KINDS, DRIVER_KINDS, library_kinds};

    #[test]
    fn public_constructors_make_what_custack_makes() {
        // custack's own kinds: `new` is what the crate itself returns.
        for &kind in CUSTACK_KINDS {
            let mine = Error::new(kind, "the detail");
            let custacks = Error::custack(kind, "the detail");
            assert_eq!(mine, custacks);
            assert_eq!(mine.to_string(), custacks.to_string());
            assert_eq!(Error::from_kind(kind).code(), None);
            assert_eq!(Error::from_kind(kind).detail(), None);
        }
        // Driver kinds: `new` is what a failed call with a detail gives (code kept).
        for &kind in DRIVER_KINDS {
            let code = kind.code().unwrap();
            let mine = Error::new(kind, "the detail");
            let custacks = Error::from_code(code).with_detail("the detail");
            assert_eq!(mine, custacks, "{kind:?}");
            assert_eq!(mine.code(), Some(code));
            assert_eq!(mine.is_sticky(), kind.is_sticky());
            assert_eq!(Error::from_kind(kind), Error::from_raw(code));
        }
        let unlisted = Error::from_kind(ErrorKind::Unlisted(4242));
        assert_eq!(unlisted, Error::from_raw(ffi::CUresult(4242)));
    }

    #[test]
    fn a_wrapped_source_is_the_source_and_not_in_display() {
        use std::error::Error as _;
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = Error::new(ErrorKind::Io, "reading k.ptx").with_source(io);
        assert_eq!(e.to_string(), "a file could not be read: reading k.ptx");
        let source = e.source().expect("the wrapped error");
        assert_eq!(source.to_string(), "no such file");
        assert_eq!(
            source
                .downcast_ref::<std::io::Error>()
                .map(std::io::Error::kind),
            Some(std::io::ErrorKind::NotFound)
        );
        assert_eq!(
            format!("{e:?}"),
            "a file could not be read: reading k.ptx\n  caused by: no such file"
        );
        let structure = format!("{e:#?}");
        for field in [
            "kind: Io",
            r#"detail: "reading k.ptx""#,
            "source: Custom",
            "kind: NotFound",
        ] {
            assert!(structure.contains(field), "{structure}");
        }
        // A clone shares the source and equals the original; the same error without the source,
        // or with another source, does not.
        assert_eq!(e.clone(), e);
        assert_ne!(Error::new(ErrorKind::Io, "reading k.ptx"), e);
        let other = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        assert_ne!(
            Error::new(ErrorKind::Io, "reading k.ptx").with_source(other),
            e
        );
        assert!(Error::new(ErrorKind::Io, "x").source().is_none());
    }

    #[test]
    fn custack_display_is_a_sentence_and_the_detail() {
        let e = Error::custack(ErrorKind::OutOfRange, "index 5 in a buffer of 3");
        assert_eq!(
            e.to_string(),
            "an index or range lies outside the memory it refers to: index 5 in a buffer of 3"
        );
        assert_eq!(format!("{e:?}"), e.to_string());
    }

    #[test]
    fn debug_is_the_message_and_alternate_debug_the_structure() {
        // What `fn main() -> custack::Result<()>` prints: the message and the hint, not only
        // the kind.
        let e = Error::from_kind(ErrorKind::NoDevice);
        assert_eq!(format!("{e:?}"), e.to_string());
        assert!(format!("{e:?}").contains("hint: "), "{e:?}");
        let e = Error::from_raw(ffi::CUresult::CUDA_ERROR_INVALID_VALUE).with_detail("bad");
        assert_eq!(format!("{e:?}"), e.to_string());
        assert_eq!(
            format!("{e:#?}"),
            "Error {\n    kind: InvalidValue,\n    code: 1,\n    detail: \"bad\",\n}"
        );
        // A chain of sources, one line each.
        let inner = Error::new(ErrorKind::Io, "reading k.ptx")
            .with_source(std::io::Error::other("no such file"));
        let outer = Error::new(ErrorKind::InvalidValue, "loading the plan").with_source(inner);
        assert!(
            format!("{outer:?}").ends_with(
                ": loading the plan\n  caused by: a file could not be read: reading k.ptx\n  \
                 caused by: no such file"
            ),
            "{outer:?}"
        );
    }

    #[test]
    fn every_table_entry_round_trips_code_kind_code() {
        for &kind in DRIVER_KINDS {
            let code = kind.code().unwrap();
            assert_ne!(code, ffi::CUresult::CUDA_SUCCESS);
            assert_eq!(ErrorKind::from_code(code), kind, "{kind:?}");
            assert_eq!(Error::from_raw(code).kind(), kind);
            assert_eq!(Error::from_raw(code).code(), Some(code));
        }
    }
    #[test]
    fn sticky_set() {
        let sticky: Vec<i32> = DRIVER_KINDS
            .iter()
            .filter(|k| k.is_sticky())
            .map(|k| k.code().unwrap().0)
            .collect();
        assert_eq!(
            sticky,
            [
                214, 226, 700, 702, 710, 714, 715, 716, 717, 718, 719, 721, 810, 911
            ]
        );
        assert!(!ErrorKind::ContextIsDestroyed.is_sticky());
        assert!(!ErrorKind::InvalidValue.is_sticky());
        assert!(!ErrorKind::DeviceUnavailable.is_sticky());
        assert!(Error::from_raw(ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS).is_sticky());
    }
    /// Equal only when every part is: code, kind, detail, source (the same one), origin.
    #[test]
    fn errors_that_differ_in_any_part_are_not_equal() {
        use crate::error::origin::{Observer, Origin};
        let e = Error::custack(ErrorKind::OutsideProfile, "the detail");
        assert_eq!(e, e.clone());
        // The code alone, and a library's status alone.
        let coded = Error::from_code(ffi::CUresult::CUDA_ERROR_INVALID_VALUE);
        let mut uncoded = coded.clone();
        uncoded.code = None;
        assert_ne!(coded, uncoded);
        let mut statused = coded.clone();
        statused.status = Some(3);
        assert_ne!(coded, statused);
        // The kind, the detail.
        assert_ne!(e, Error::custack(ErrorKind::ForkedProcess, "the detail"));
        assert_ne!(
            e,
            Error::custack(ErrorKind::OutsideProfile, "another detail")
        );
        // The source: a clone shares it; a separately made one, alike, is another.
        let io = || std::io::Error::other("the source");
        let sourced = e.clone().with_source(io());
        assert_eq!(sourced, sourced.clone());
        assert_ne!(sourced, e.clone().with_source(io()));
        assert_ne!(sourced, e);
        // The origin.
        // Freed at the end (Miri's leak check): every error that names it is a temporary.
        let raw = Box::into_raw(Box::new(Origin {
            observer: Observer::Launch,
            call_site: core::panic::Location::caller(),
            kernel: None,
            thread: None,
            unfinished: None,
        }));
        // SAFETY: `raw` is a live allocation of this test's own until it is freed below, and
        // nothing reads through `origin` after that.
        let origin: &'static Origin = unsafe { &*raw };
        assert_ne!(e.clone().with_origin(origin), e);
        assert_eq!(e.clone().with_origin(origin), e.clone().with_origin(origin));
        // SAFETY: made by `Box::into_raw` above; the errors that named it are dropped.
        drop(unsafe { Box::from_raw(raw) });
    }

    #[test]
    fn custack_kinds_have_no_code() {
        // custack's 22 (two of them the redundancy checks' faults, two a tensor map's refusals),
        // NVRTC's newer-than-driver, a library not linked, NVML's hardware fault (the one sticky
        // custack kind) and NVML's failed call, and cuSOLVER's three infos (singular, not
        // positive definite, not converged), which are custack's since they are no status.
        assert_eq!(CUSTACK_KINDS.len(), 22 + 4 + 3);
        // The libraries' statuses, each under its feature: NVRTC's 18, cuBLAS's 10, NCCL's 9
        // (a communicator past its timeout is `DeadlinePassed`), cuFFT's 21, cuRAND's 13, cuSOLVER's
        // 13.
        let library = library_kinds();
        let count = |on: bool, n: usize| if on { n } else { 0 };
        assert_eq!(
            library.len(),
            count(cfg!(feature = "nvrtc"), 18)
                + count(cfg!(feature = "cublas"), 10)
                + count(cfg!(feature = "nccl"), 9)
                + count(cfg!(feature = "cufft"), 21)
                + count(cfg!(feature = "curand"), 13)
                + count(cfg!(feature = "cusparse"), 12)
                + count(cfg!(feature = "cudnn"), 20)
                + count(cfg!(feature = "cusolver"), 13)
        );
        for &kind in CUSTACK_KINDS.iter().chain(&library) {
            assert_eq!(kind.code(), None, "{kind:?}");
            assert_eq!(
                kind.is_sticky(),
                kind == ErrorKind::HardwareFault,
                "{kind:?}"
            );
            assert!(kind.custack_sentence().is_some());
            let e = Error::custack(kind, "the detail");
            assert_eq!(e.code(), None);
            assert_eq!(e.kind(), kind);
            assert_eq!(e.library_status(), None);
        }
        for &kind in DRIVER_KINDS {
            assert!(kind.custack_sentence().is_none());
        }
    }
}
