//! Errors: one [`Error`] type that keeps the raw `CUresult`, and a `#[non_exhaustive]`
//! [`ErrorKind`] naming every code of CUDA 13.0 plus custack's own conditions.
//!
//! # Errors from earlier, asynchronous work
//!
//! Kernel launches, asynchronous copies and most stream work return before the device has run
//! them. A fault in that work is reported by whichever driver call next notices it: a
//! synchronization, an event query, a copy, an allocation, or an unrelated call on the same
//! context. So almost any custack call can return an error that was caused by earlier work,
//! not by the call itself. Synchronize (a stream, an event or the context) where you need to know
//! which piece of work failed.
//!
//! # Sticky errors
//!
//! Some errors leave the context, and in practice the whole process's use of the device,
//! unusable: every later call on the context returns the same error.
//! [`Error::is_sticky`] / [`ErrorKind::is_sticky`] say which. The CUDA documentation says to
//! terminate and relaunch the process, and on driver 580 that is the only way: a new context or
//! a primary-context reset in the faulted process returns the same error (`tests/gpu_faults.rs`;
//! see the [faults guide](crate::guide::faults)).
//! Cleanup that fails in a `Drop` is recorded per thread, see [`take_drop_errors`].
//!
//! # Unknown codes
//!
//! A newer driver may return a code that this version of custack does not list. Such a code
//! becomes [`ErrorKind::Unlisted`] with the value kept, never a catch-all "unknown" error, and
//! [`Error`]'s `Display` still asks the driver for its name and description.
pub(crate) mod atomics;
pub(crate) mod callback;
pub(crate) mod confinement;
pub(crate) mod driver_log;
pub(crate) mod drop_log;
mod failure;
pub(crate) mod fork;
pub(crate) mod host_panic;
mod kind;
pub(crate) mod left_behind;
// Used by the libraries (features `cublas`, `cublaslt`, `cufft`, `curand`, `nccl`, `nvrtc`);
// always built, so that its unit test runs in every build.
#[cfg_attr(not(custack_libraries), allow(dead_code))]
pub(crate) mod not_linked;
mod origin;
pub(crate) mod poison;
pub(crate) mod safe_state;

pub(crate) use drop_log::record_drop_error;
pub use drop_log::{
    dropped_error_count, orphaned_dropped_error_count, take_drop_errors, take_orphaned_drop_errors,
};
pub use failure::Error;
pub use kind::ErrorKind;
#[cfg_attr(
    not(any(feature = "cublas", feature = "nccl", feature = "nvrtc")),
    allow(unused_imports)
)]
pub(crate) use kind::LibraryStatus;
pub use origin::{LaunchSite, Observer, Origin};
pub use poison::poisoned;
pub use safe_state::{FAIL_STOP_STATUS, fail_stop};

/// `Result` with custack's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
