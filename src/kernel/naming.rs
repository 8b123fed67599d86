//! Which launch failed (opt-in): launches named by their kernel and call site, so that the
//! origin of a sticky error ([`Origin::unfinished_launch`](crate::Origin::unfinished_launch))
//! names the first launch that never completed.
//!
//! After a sticky error the driver answers every call with it: on driver 580, an event
//! recorded and complete *before* the fault queries as `CUDA_ERROR_ILLEGAL_ADDRESS` too
//! (measured on the H100), so nothing can be asked of the driver afterwards. Each named launch
//! is therefore followed by a host function (`cuLaunchHostFunc`) that marks it complete: the
//! driver calls it once the kernel has finished, in stream order, and never after a fault. So
//! the kernel that faulted is the first launch whose mark never came: every launch before it
//! on its stream completed before it started (a host function blocks its stream's later work
//! until it returns).
//!
//! This is a second record of pending work beside the events and borrows that custack's
//! safety rests on, kept only for diagnosis: nothing is released, waited for or refused because
//! of it. It is off by default and costs one relaxed load per launch then; on, it costs a host
//! function per launch (a round trip through the driver's callback thread, which serializes the
//! stream with the host): the `overhead` benchmark's row `launch_named` measures it. Turn it on
//! to find which kernel faults (in a test run, or in a system that can afford it), not on a hot
//! path that must run at raw speed.

use crate::error::LaunchSite;
use crate::error::{Result, confinement, poison};
use crate::ffi;
use core::panic::Location;
use core::sync::atomic::{AtomicBool, Ordering};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

/// Whether launches are named.
static ON: AtomicBool = AtomicBool::new(false);

/// The named launches not yet known complete, oldest first (at most [`KEPT`]).
static LOG: Mutex<VecDeque<Named>> = Mutex::new(VecDeque::new());

/// How many named launches not yet known complete are kept; beyond it the oldest is forgotten.
const KEPT: usize = 4096;

struct Named {
    site: LaunchSite,
    done: Arc<AtomicBool>,
}

std::thread_local! {
    /// The declared kernel the launch this thread makes next is for (set by `run` and its
    /// forms while naming is on, taken by the raw launch they call).
    static NEXT: core::cell::Cell<Option<&'static str>> = const { core::cell::Cell::new(None) };
}

/// Turns the naming of launches on or off, for the whole process (see
/// [`Origin::unfinished_launch`](crate::Origin::unfinished_launch)).
///
/// While it is on, every launch through a [`StreamScope`](crate::StreamScope) (declared
/// kernels' `run` and its forms, and the raw `launch`, `launch_kernel`, `launch_with`,
/// `launch_cooperative`) outside a graph capture is recorded with its kernel's name and its
/// call site, and followed on its stream by a host function that marks it complete. When a
/// sticky error first poisons the process (R20), its [`Origin`](crate::Origin) names the
/// first named launch that never completed: the launch that faulted, where the declared
/// kernel the observing thread launched last ([`Origin::kernel`](crate::Origin::kernel)) may
/// be another one. The 4,096 most recent launches not yet known complete are kept.
///
/// It costs a host function per launch: for finding which kernel faults, not for a hot path
/// that must run at raw speed (the `overhead` benchmark's row `launch_named`). Host functions
/// are callbacks: code that must stay inside NVIDIA's safety subset leaves it off.
///
/// # Examples
///
/// ```no_run
/// use custack::{Context, ContextFlags, Driver, Stack};
/// custack::name_launches(true)?;
/// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// let mut stack = Stack::new()?;
/// let guard = stack.push(&ctx)?;
/// // ... launches; after a GPU fault:
/// # let e = custack::Error::from_kind(custack::ErrorKind::IllegalAddress);
/// if let Some(launch) = e.origin().and_then(|o| o.unfinished_launch()) {
///     eprintln!("the fault: {launch}"); // "`saxpy` launched at src/main.rs:40:9"
/// }
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # Errors
///
/// [`ErrorKind::OutsideProfile`](crate::ErrorKind::OutsideProfile) for `on` once the process
/// has entered the restricted profile ([`Profile::init`](crate::safety::Profile::init)): a
/// host function per launch is a callback, outside NVIDIA's safety subset; naming stays off.
/// Turning it off never fails.
pub fn name_launches(on: bool) -> Result<()> {
    if on {
        confinement::full_api("name_launches(true)")?;
        poison::find_unfinished_with(first_unfinished);
    }
    ON.store(on, Ordering::Relaxed);
    Ok(())
}

/// Whether launches are named ([`name_launches`]).
pub fn launches_named() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Before a declared kernel's launch: the name the launch gets, if launches are named.
#[inline]
pub(crate) fn name_next(kernel: &'static str) {
    if ON.load(Ordering::Relaxed) {
        NEXT.with(|next| next.set(Some(kernel)));
    }
}

/// After a launch on `stream` at `at` (`enqueued`: the driver took it): if launches are named,
/// records it and enqueues its mark. One relaxed load when they are not.
///
/// # Errors
///
/// The driver's error from enqueueing the mark (the launch itself is enqueued).
#[inline]
pub(crate) fn launched(
    stream: ffi::CUstream,
    at: &'static Location<'static>,
    enqueued: bool,
) -> Result<()> {
    if !ON.load(Ordering::Relaxed) {
        return Ok(());
    }
    name(stream, at, enqueued)
}

#[cold]
#[inline(never)]
fn name(stream: ffi::CUstream, at: &'static Location<'static>, enqueued: bool) -> Result<()> {
    let kernel = NEXT.with(core::cell::Cell::take);
    // A confined process never names a launch (a host function is a callback, outside the
    // profile). Naming is on only after `name_launches(true)` passed the confinement's check,
    // which leaves the process full for good, and `Profile::init` then refuses: this load
    // (seq-cst, as the check) is the second line, on the cold path only.
    if !enqueued || confinement::confined() {
        return Ok(());
    }
    // The launch passed the gate, but another thread may have poisoned the process since (or
    // this is code the driver called): the mark's calls are refused as every call (R20, R35).
    crate::error::poison::check()?;
    let mut status = ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: a live stream of the current context (the scope's); valid out-pointer.
    unsafe { ffi::cuStreamIsCapturing(stream, &raw mut status) }.result()?;
    if status != ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
        // A captured launch runs when its graph is launched, maybe many times: not named.
        return Ok(());
    }
    let done = Arc::new(AtomicBool::new(false));
    {
        let mut log = LOG.lock().unwrap_or_else(PoisonError::into_inner);
        while log.front().is_some_and(|n| n.done.load(Ordering::Acquire)) {
            log.pop_front();
        }
        if log.len() == KEPT {
            log.pop_front();
        }
        log.push_back(Named {
            site: LaunchSite {
                kernel,
                call_site: at,
            },
            done: Arc::clone(&done),
        });
    }
    crate::asynchronous::host::enqueue(
        stream,
        crate::asynchronous::host::Call::InOrder,
        move || {
            done.store(true, Ordering::Release);
        },
    )
}

/// The oldest named launch not marked complete.
fn first_unfinished() -> Option<LaunchSite> {
    let log = LOG.lock().unwrap_or_else(PoisonError::into_inner);
    log.iter()
        .find(|n| !n.done.load(Ordering::Acquire))
        .map(|n| n.site)
}

#[cfg(test)]
mod tests {
    /// A launch's naming mark checks the gate again (R20): another thread may poison the process
    /// between the launch and the mark. In a poisoned process (this test poisons its own, so it
    /// runs alone) the mark is refused with the poison; a call that reached the driver (no
    /// context, no `cuInit`) would answer `CUDA_ERROR_NOT_INITIALIZED` instead.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn the_naming_mark_is_refused_after_the_poison() {
        crate::alone::rerun_alone!(the_naming_mark_is_refused_after_the_poison);
        let sticky = crate::ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS;
        // Poisons this process, which runs this test alone.
        assert!(sticky.result().is_err());
        let named = super::name(core::ptr::null_mut(), core::panic::Location::caller(), true);
        assert_eq!(named.map_err(|e| e.code()), Err(Some(sticky)));
    }

    use super::{LOG, Named, first_unfinished};
    use crate::error::LaunchSite;
    use core::panic::Location;
    use core::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    #[test]
    fn the_first_launch_not_marked_complete_is_named() {
        let at = Location::caller();
        let marks: Vec<_> = (0..3).map(|_| Arc::new(AtomicBool::new(false))).collect();
        {
            let mut log = LOG.lock().unwrap();
            log.clear();
            for (kernel, done) in ["first", "second", "third"].into_iter().zip(&marks) {
                log.push_back(Named {
                    site: LaunchSite {
                        kernel: Some(kernel),
                        call_site: at,
                    },
                    done: Arc::clone(done),
                });
            }
        }
        assert_eq!(first_unfinished().and_then(|s| s.kernel), Some("first"));
        marks[0].store(true, Ordering::Release);
        assert_eq!(first_unfinished().and_then(|s| s.kernel), Some("second"));
        marks[1].store(true, Ordering::Release);
        marks[2].store(true, Ordering::Release);
        assert_eq!(first_unfinished(), None);
        LOG.lock().unwrap().clear();
    }
}
