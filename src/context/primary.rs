//! What holds a device's primary context besides a [`Context`](crate::Context): the green
//! contexts custack made (`cuGreenCtxCreate` retains the primary context for each), whose memory
//! a reset of the primary context would destroy. Its own file, importing nothing of the context
//! folder, so that both `Context::reset` and the green contexts' creation read it without an
//! import circle.

use crate::ffi;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The green contexts custack made and has not destroyed, each with its device.
///
/// A green context's memory is its device's primary context's: the driver retains the primary
/// context for it, and treats the `CUcontext` that stands for it "as if it were a primary
/// context" for every call that does not depend on its SMs (allocation among them). A reset of
/// the primary context ([`Context::reset`](crate::Context::reset)) destroys all of that memory,
/// which no borrow of the primary [`Context`](crate::Context) covers, so the reset is refused
/// while any green context of the device lives (C5). An entry is added under this lock together
/// with the creation, so no reset runs between the two, and removed once its destroy succeeded:
/// one left behind (a failed destroy, a poisoned or forked process) or leaked keeps the primary
/// context from being reset, as a leaked guard keeps its context.
static GREEN_LIVE: Mutex<Vec<(usize, ffi::CUdevice)>> = Mutex::new(Vec::new());

/// The lock over the live green contexts (a poisoned lock is taken as it is: the list is
/// changed only by pushes and removals that cannot panic half-way).
pub(crate) fn live_green() -> MutexGuard<'static, Vec<(usize, ffi::CUdevice)>> {
    GREEN_LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `reset` unless a green context of `device` lives, holding the list's lock so that none
/// is made meanwhile; otherwise the number of them. For [`Context::reset`](crate::Context::reset).
pub(crate) fn unless_green_lives<R>(
    device: ffi::CUdevice,
    reset: impl FnOnce() -> R,
) -> core::result::Result<R, usize> {
    let live = live_green();
    match live.iter().filter(|(_, d)| *d == device).count() {
        0 => Ok(reset()),
        n => Err(n),
    }
}

#[cfg(test)]
mod tests {
    use super::{live_green, unless_green_lives};

    #[test]
    fn a_reset_runs_only_while_no_green_context_of_its_device_lives() {
        // Devices no driver names (negative ordinals), so that no other test's green contexts
        // (under the checking driver, device 0) count here.
        let (dev, other) = (-7, -8);
        live_green().push((0x1000, dev));
        live_green().push((0x2000, dev));
        let mut ran = 0;
        assert_eq!(unless_green_lives(dev, || ran += 1), Err(2));
        assert_eq!(ran, 0, "the reset ran under a live green context");
        assert_eq!(unless_green_lives(other, || ran += 1), Ok(()));
        live_green().retain(|(_, d)| *d != dev);
        assert_eq!(unless_green_lives(dev, || ran += 1), Ok(()));
        assert_eq!(ran, 2);
    }
}
