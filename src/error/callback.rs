//! Whether this thread is running code the driver called: a host function (`cuLaunchHostFunc`),
//! a stream callback (`cuStreamAddCallback`), a graph's host node or a user object's destructor
//! (a host node's closure dropped), an occupancy query's shared-memory callback. The driver
//! forbids CUDA calls there ("must not make any CUDA API calls"; it is not required to refuse
//! them, and a synchronization there may wait for the very work that runs the callback), so
//! custack refuses every call it would make on such a thread, at the same gate as the poison
//! ([`poison::check`](crate::error::poison::check)): a program's closure that holds a guard's
//! stack, a parked value or a context, and uses or drops it there, reaches no driver. A release
//! refused there is left behind (never freed), as in a poisoned process.

use crate::error::{Error, ErrorKind};
use core::cell::Cell;

thread_local! {
    /// Set while this thread runs a closure the driver called.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside a driver callback (one thread-local load; `false` while the
/// thread's locals are torn down, where no callback runs).
#[inline]
pub(crate) fn inside() -> bool {
    INSIDE.try_with(Cell::get).unwrap_or(false)
}

/// Runs `f`, code the driver called, marked as such for its whole run (a panic of it
/// included); the mark as it was is put back afterwards.
pub(crate) fn run<R>(f: impl FnOnce() -> R) -> R {
    /// Puts the mark back, also on unwind.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = INSIDE.try_with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(INSIDE.try_with(|c| c.replace(true)).unwrap_or(false));
    f()
}

/// The refusal of a call made inside a driver callback.
#[cold]
#[inline(never)]
pub(crate) fn refused() -> Error {
    Error::custack(
        ErrorKind::NotPermitted,
        "a CUDA call from code the driver called (a host function, a stream callback, a graph's \
         host node or its closure's drop, an occupancy callback): the driver forbids CUDA calls \
         there, so custack made none; move the work out of the callback (release what it holds \
         elsewhere)",
    )
}
