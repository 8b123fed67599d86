//! The restricted context's one event for its context-wide waits (`cuCtxRecordEvent`, driver
//! 12.5+): made when the init phase first opens, owned by the [`RestrictedContext`] until its
//! destruction, and recorded and polled by every wait that needs the context idle: the run
//! phase's [`synchronize`](crate::safety::RunPhase::synchronize), a [`RestrictedModule`]'s unload
//! at its drop, and the shutdown of every [`RestrictedGuard`] of the context, a later push's
//! included. So none of them creates an event after the seal (C27), which a wait that made its
//! own event (`PushedGuard::synchronize_by`, `Module::unload_by`) would, and none is unbounded
//! (R25): a guard dropped or forgotten without its shutdown leaves the event to the next one.
//!
//! [`RestrictedContext`]: crate::safety::RestrictedContext
//! [`RestrictedGuard`]: crate::safety::RestrictedGuard
//! [`RestrictedModule`]: crate::safety::RestrictedModule

use crate::context::raw::with_raw_current;
use crate::context::stack::PushedGuard;
use crate::error::left_behind::{Object, left_behind, release, release_in_drop};
use crate::error::{ErrorKind, Result};
use crate::ffi;
use core::ffi::c_uint;

/// The event and its context; destroyed by [`destroy`](Self::destroy), or at its drop, which
/// its owner (the [`RestrictedContext`](crate::safety::RestrictedContext)) runs before the
/// context's own destruction, with the context made current for the call.
#[derive(Debug)]
pub(crate) struct IdleEvent {
    raw: ffi::CUevent,
    ctx: ffi::CUcontext,
}

// SAFETY: a driver event handle and its context's handle are plain values any thread may pass
// to the driver (the driver API is thread-safe); every call custack makes with them (a record, a
// query, the destroy) makes or finds the context current first. The owner, a
// `RestrictedContext`, is `Send + Sync` and lends the event to one guard at a time.
unsafe impl Send for IdleEvent {}
// SAFETY: as above; `&IdleEvent` gives only the raw handles.
unsafe impl Sync for IdleEvent {}

impl IdleEvent {
    /// `cuEventCreate`—The event, made in `guard`'s context (current: the guard is on this
    /// thread's stack), where the driver has `cuCtxRecordEvent`; `None` before 12.5, where the
    /// waits are `cuCtxSynchronize` and need no event.
    ///
    /// # Errors
    ///
    /// The lookup's error other than `DriverTooOld`; the creation's.
    pub(crate) fn new(current: &PushedGuard<'_, '_>) -> Result<Option<Self>> {
        match crate::driver::lookup::CTX_RECORD_EVENT.get() {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::DriverTooOld => return Ok(None),
            Err(e) => return Err(e),
        }
        crate::error::poison::check()?;
        let mut raw = core::ptr::null_mut();
        let flags = ffi::CUevent_flags::CU_EVENT_DISABLE_TIMING.0 as c_uint;
        // SAFETY: a valid out-pointer; the guard's context is current.
        unsafe { ffi::cuEventCreate(&raw mut raw, flags) }.result()?;
        Ok(Some(Self {
            raw,
            ctx: current.as_raw(),
        }))
    }

    /// The raw event: live while this value is (its owner, the context, outlives every guard).
    pub(crate) fn as_raw(&self) -> ffi::CUevent {
        self.raw
    }

    /// `cuEventDestroy`—Destroys the event now, with its context made current for the call
    /// (pushed and popped where another is current), returning the driver's error, which a
    /// drop could only record. Poisoned or forked (R20, R22), it is left, not destroyed.
    ///
    /// # Errors
    ///
    /// The poison or a fork; the push's, the destroy's or the pop's error.
    pub(crate) fn destroy(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        release(Object::Event, this.raw as u64)?;
        // SAFETY: the event is destroyed once (`this` never drops); its context is live (the
        // owner destroys the event before the context).
        unsafe { destroy_raw(this.ctx, this.raw) }
    }
}

impl Drop for IdleEvent {
    fn drop(&mut self) {
        if !release_in_drop(Object::Event, self.raw as u64) {
            return;
        }
        // SAFETY: as in `destroy`: once, here; the owner drops it before its context.
        if let Err(e) = unsafe { destroy_raw(self.ctx, self.raw) } {
            crate::error::record_drop_error(e);
        }
    }
}

/// Destroys `raw`, an event of `ctx`, with `ctx` current for the call ([`with_raw_current`]);
/// where the destroy did not happen, `raw` is named as left behind.
///
/// # Safety
///
/// `ctx` is live, and `raw` a live event of it, destroyed once.
unsafe fn destroy_raw(ctx: ffi::CUcontext, raw: ffi::CUevent) -> Result<()> {
    let mut destroyed = false;
    let destroy = || {
        // SAFETY: the caller's promise; `ctx` is current; a pending record does not stop a
        // destroy (Event Management).
        let r = unsafe { ffi::cuEventDestroy_v2(raw) }.result();
        destroyed = r.is_ok();
        r
    };
    // SAFETY: `ctx` is live (the caller's promise); the closure leaves the stack as it was.
    let r = unsafe { with_raw_current(ctx, destroy) };
    if !destroyed {
        left_behind(Object::Event, raw as u64);
    }
    r
}
