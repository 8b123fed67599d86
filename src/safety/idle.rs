//! The restricted context's one event for its context-wide waits (`cuCtxRecordEvent`, driver
//! 12.5+): made when the init phase opens, owned by the [`RestrictedGuard`] until its shutdown
//! or pop, and recorded and polled by every wait that needs the context idle: the run phase's
//! [`synchronize`](crate::safety::RunPhase::synchronize), a [`RestrictedModule`]'s unload at its
//! drop, and [`RestrictedGuard::shutdown`]. So none of them creates an event after the seal
//! (C27), which a wait that made its own event (`PushedGuard::synchronize_by`,
//! `Module::unload_by`) would.
//!
//! [`RestrictedGuard`]: crate::safety::RestrictedGuard
//! [`RestrictedGuard::shutdown`]: crate::safety::RestrictedGuard::shutdown
//! [`RestrictedModule`]: crate::safety::RestrictedModule

use crate::context::stack::PushedGuard;
use crate::error::left_behind::{Object, left_behind, release};
use crate::error::{ErrorKind, Result};
use crate::ffi;
use core::ffi::c_uint;

/// The event; destroyed by [`destroy`](Self::destroy), or at its drop, which its owner (the
/// [`RestrictedGuard`](crate::safety::RestrictedGuard)) runs before its pop, while the context
/// is still current.
#[derive(Debug)]
pub(crate) struct IdleEvent {
    raw: ffi::CUevent,
}

impl IdleEvent {
    /// `cuEventCreate`—The event, made in `guard`'s context (current: the guard is on this
    /// thread's stack), where the driver has `cuCtxRecordEvent`; `None` before 12.5, where the
    /// waits are `cuCtxSynchronize` and need no event.
    ///
    /// # Errors
    ///
    /// The lookup's error other than `DriverTooOld`; the creation's.
    pub(crate) fn new(_current: &PushedGuard<'_, '_>) -> Result<Option<Self>> {
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
        Ok(Some(Self { raw }))
    }

    /// The raw event: live while this value is (its owner outlives every borrow of the guard).
    pub(crate) fn as_raw(&self) -> ffi::CUevent {
        self.raw
    }

    /// `cuEventDestroy`—Destroys the event now, returning the driver's error, which a drop
    /// could only record. Poisoned or forked (R20, R22), it is left, not destroyed.
    ///
    /// # Errors
    ///
    /// The poison or a fork; the driver's error.
    pub(crate) fn destroy(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: the event is destroyed once (`this` never drops), while its context is
        // current (the owner's promise).
        unsafe { destroy_raw(this.raw) }
    }
}

impl Drop for IdleEvent {
    fn drop(&mut self) {
        // SAFETY: as in `destroy`: once, here; the owner drops it while its context is current.
        if let Err(e) = unsafe { destroy_raw(self.raw) } {
            crate::error::record_drop_error(e);
        }
    }
}

/// Destroys `raw` unless the process is poisoned or forked (then it is named as left behind).
///
/// # Safety
///
/// `raw` is a live event of the current context, destroyed once.
unsafe fn destroy_raw(raw: ffi::CUevent) -> Result<()> {
    release(Object::Event, raw as u64)?;
    // SAFETY: the caller's promise; a pending record does not stop a destroy (Event
    // Management).
    let destroyed = unsafe { ffi::cuEventDestroy_v2(raw) }.result();
    if destroyed.is_err() {
        left_behind(Object::Event, raw as u64);
    }
    destroyed
}
