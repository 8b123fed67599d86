//! NCCL's statuses as custack's errors, and what every wait of a non-blocking communicator
//! goes through: `ask`, one look at `ncclCommGetAsyncError`, `poll`, which asks it under the
//! crate's one bounded poll ([`crate::deadline`]) until the communicator has settled, and
//! `timed_out`, the error of a wait past its deadline.

use crate::deadline::{Deadline, Polled, passed, poll_until};
use crate::error::{Error, LibraryStatus, Result};
use crate::ffi;
use crate::ffi::nccl::{ncclComm_t, ncclResult_t};
use core::ffi::{CStr, c_char};
use std::time::Duration;

/// `Err` in a build that found no NCCL.
pub(super) fn not_linked() -> Result<()> {
    crate::error::not_linked::not_linked(&crate::error::not_linked::NCCL)
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
    // SAFETY: `ncclGetErrorString` takes any value and returns a pointer to a static string;
    // null is checked below.
    let text = c_text(unsafe { ffi::nccl::ncclGetErrorString(status) });
    // SAFETY: `ncclGetLastError` takes a communicator or null (the thread's last error) and
    // returns a string NCCL owns, valid until its next call on this thread; copied at once.
    let last = c_text(unsafe { ffi::nccl::ncclGetLastError(comm) });
    let mut detail = format!("{}: {text}", status.returned(call, "status"));
    if !last.is_empty() {
        detail.push_str(": ");
        detail.push_str(&last);
    }
    Error::library(status, detail)
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

/// Why a poll of a communicator stopped before it settled.
pub(super) enum Stalled {
    /// NCCL reported an error.
    Failed(Error),
    /// The deadline passed first, after this long of polling.
    TimedOut(Duration),
}

/// One look at the communicator (`ncclCommGetAsyncError`): `None` while its state is
/// `ncclInProgress`; `Some(Ok)` once it has settled; `Some(Err)` with NCCL's error (the state's,
/// named `call`, or the query's own).
pub(super) fn ask(raw: ncclComm_t, call: &str) -> Option<Result<()>> {
    let mut state = ncclResult_t::ncclSuccess;
    // SAFETY: a live communicator (the caller's) and a valid out-pointer; callable at any
    // time, from any thread, also while an operation is in progress.
    let asked = unsafe { ffi::nccl::ncclCommGetAsyncError(raw, &raw mut state) };
    if let Err(e) = status("ncclCommGetAsyncError", raw, asked) {
        return Some(Err(e));
    }
    match state {
        ncclResult_t::ncclSuccess => Some(Ok(())),
        ncclResult_t::ncclInProgress => None,
        failed => Some(Err(status_error(call, raw, failed))),
    }
}

/// Polls `ncclCommGetAsyncError` until the communicator's state is no longer `ncclInProgress`,
/// at most until `deadline`: the crate's one bounded poll ([`poll_until`]), so the first look
/// is at once and the next ones follow a yield, not a sleep (a collective's enqueue by NCCL's
/// thread takes microseconds).
pub(super) fn poll(
    raw: ncclComm_t,
    call: &str,
    deadline: Deadline,
) -> core::result::Result<(), Stalled> {
    match poll_until(deadline, || ask(raw, call)) {
        Polled::Done(settled) => settled.map_err(Stalled::Failed),
        Polled::Overdue(waited) => Err(Stalled::TimedOut(waited)),
    }
}

/// The error of a wait of a communicator past its deadline: `what` (the call, the rank, the
/// timeout) was not complete after `waited` of polling; [`ErrorKind::DeadlinePassed`], as every
/// wait of custack past its deadline, the detail saying what followed (`then`).
#[cold]
#[inline(never)]
pub(super) fn timed_out(what: core::fmt::Arguments<'_>, waited: Duration, then: &str) -> Error {
    let e = passed(what, waited);
    let detail = match e.detail() {
        Some(d) => format!("{d}; {then}"),
        None => then.to_owned(),
    };
    e.with_detail(detail)
}

/// [`timed_out`] of `call` on rank `rank` of `nranks`, on a communicator whose timeout is
/// `timeout`.
#[cold]
pub(super) fn rank_timed_out(
    call: &str,
    (rank, nranks, timeout): (usize, usize, Duration),
    waited: Duration,
    then: &str,
) -> Error {
    timed_out(
        format_args!("{call} on rank {rank} of {nranks} (timeout {timeout:?})"),
        waited,
        then,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

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
            assert_eq!(ncclResult_t(raw).kind(), kind);
            // The error keeps the raw status (NCCL's strings need no communicator: null).
            let e = status_error("ncclAllReduce", core::ptr::null_mut(), ncclResult_t(raw));
            assert_eq!((e.kind(), e.library_status()), (kind, Some(raw)));
        }
    }
}
