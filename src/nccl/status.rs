//! NCCL's statuses as custack's errors, and the polling every wait of a non-blocking
//! communicator goes through: a deadline from a timeout, a back-off, and `poll`, which asks
//! `ncclCommGetAsyncError` until the communicator has settled.

use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::ffi::nccl::{ncclComm_t, ncclResult_t};
use core::ffi::{CStr, c_char};
use std::time::{Duration, Instant};

/// `Err` in a build that found no NCCL.
pub(super) fn not_linked() -> Result<()> {
    if cfg!(custack_no_nccl) {
        return Err(Error::custack(
            ErrorKind::LibraryNotLinked,
            "NCCL (feature `nccl`): build.rs found no libnccl when custack was built. Set \
             CUSTACK_NCCL_LIB_DIR to the directory holding libnccl.so.2, or install NCCL's \
             Python wheel of the driver's CUDA major version (`pip install nvidia-nccl-cu13` \
             for a 13.x driver, `nvidia-nccl-cu12` for 12.x) or the NCCL package, and build \
             again (`cargo clean -p custack` if the build does not notice)",
        ));
    }
    Ok(())
}

/// An NCCL status as a result: the kind named after the status, the detail naming the call and
/// NCCL's last error message.
pub(super) fn status(call: &str, comm: ncclComm_t, status: ncclResult_t) -> Result<()> {
    if status == ncclResult_t::ncclSuccess {
        return Ok(());
    }
    Err(status_error(call, comm, status))
}

#[cold]
#[inline(never)]
pub(super) fn status_error(call: &str, comm: ncclComm_t, status: ncclResult_t) -> Error {
    let kind = status_kind(status);
    // SAFETY: `ncclGetErrorString` takes any value and returns a pointer to a static string;
    // null is checked below.
    let text = c_text(unsafe { ffi::nccl::ncclGetErrorString(status) });
    // SAFETY: `ncclGetLastError` takes a communicator or null (the thread's last error) and
    // returns a string NCCL owns, valid until its next call on this thread; copied at once.
    let last = c_text(unsafe { ffi::nccl::ncclGetLastError(comm) });
    let name = match kind {
        ErrorKind::NcclUnlisted => "status",
        _ => kind.name(),
    };
    let mut detail = format!("{call} returned {name} ({}): {text}", status.0);
    if !last.is_empty() {
        detail.push_str(": ");
        detail.push_str(&last);
    }
    Error::custack(kind, detail)
}

/// A C string NCCL owns, copied; empty for null.
fn c_text(ptr: *const c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: a non-null pointer from `ncclGetErrorString`/`ncclGetLastError`: a
    // NUL-terminated string NCCL keeps alive at least until its next call on this thread.
    unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned()
}

/// The kind of an NCCL status (never called with success).
fn status_kind(status: ncclResult_t) -> ErrorKind {
    use ncclResult_t as R;
    match status {
        R::ncclUnhandledCudaError => ErrorKind::NcclUnhandledCudaError,
        R::ncclSystemError => ErrorKind::NcclSystemError,
        R::ncclInternalError => ErrorKind::NcclInternalError,
        R::ncclInvalidArgument => ErrorKind::NcclInvalidArgument,
        R::ncclInvalidUsage => ErrorKind::NcclInvalidUsage,
        R::ncclRemoteError => ErrorKind::NcclRemoteError,
        R::ncclInProgress => ErrorKind::NcclInProgress,
        R::ncclTimeout => ErrorKind::NcclTimeout,
        _ => ErrorKind::NcclUnlisted,
    }
}

/// The deadline `timeout` from now; `None` (no deadline) where that is beyond what `Instant`
/// can hold (`Duration::MAX`).
pub(super) fn deadline_after(timeout: Duration) -> Option<Instant> {
    Instant::now().checked_add(timeout)
}

/// Whether `deadline` has passed.
pub(super) fn passed(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// How long a poll sleeps: from 50 µs, doubling up to 5 ms (an initialization takes
/// milliseconds to seconds; a non-blocking collective's enqueue, by a thread NCCL starts for
/// it, tens of microseconds).
pub(super) fn backoff(sleep: &mut Duration) {
    std::thread::sleep(*sleep);
    *sleep = (*sleep * 2).min(Duration::from_millis(5));
}
/// Why a poll of a communicator stopped before it settled.
pub(super) enum Stalled {
    /// NCCL reported an error.
    Failed(Error),
    /// The deadline passed first.
    TimedOut,
}

/// Polls `ncclCommGetAsyncError` until the communicator's state is no longer `ncclInProgress`,
/// at most until `deadline`.
pub(super) fn poll(
    raw: ncclComm_t,
    call: &str,
    deadline: Option<Instant>,
) -> core::result::Result<(), Stalled> {
    let mut sleep = Duration::from_micros(50);
    loop {
        let mut state = ncclResult_t::ncclSuccess;
        // SAFETY: a live communicator (the caller's) and a valid out-pointer; callable at any
        // time, from any thread, also while an operation is in progress.
        let asked = unsafe { ffi::nccl::ncclCommGetAsyncError(raw, &raw mut state) };
        status("ncclCommGetAsyncError", raw, asked).map_err(Stalled::Failed)?;
        if state == ncclResult_t::ncclSuccess {
            return Ok(());
        }
        if state != ncclResult_t::ncclInProgress {
            return Err(Stalled::Failed(status_error(call, raw, state)));
        }
        if passed(deadline) {
            return Err(Stalled::TimedOut);
        }
        backoff(&mut sleep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_kinds_named_after_them() {
        for (raw, kind) in [
            (1, ErrorKind::NcclUnhandledCudaError),
            (2, ErrorKind::NcclSystemError),
            (3, ErrorKind::NcclInternalError),
            (4, ErrorKind::NcclInvalidArgument),
            (5, ErrorKind::NcclInvalidUsage),
            (6, ErrorKind::NcclRemoteError),
            (7, ErrorKind::NcclInProgress),
            (8, ErrorKind::NcclTimeout),
            (99, ErrorKind::NcclUnlisted),
        ] {
            assert_eq!(status_kind(ncclResult_t(raw)), kind);
        }
    }
}
