//! Events: markers recorded on a stream, for ordering and timing.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Result, record_drop_error};
use crate::ffi;
use core::marker::PhantomData;

bitflags::bitflags! {
    /// Event creation flags (`CUevent_flags`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    #[doc(alias = "CUevent_flags")]
    pub struct EventFlags: u32 {
        /// `CU_EVENT_BLOCKING_SYNC`: synchronizing on the event blocks the thread instead of spinning.
        const BLOCKING_SYNC = ffi::CUevent_flags::CU_EVENT_BLOCKING_SYNC.0 as u32;
        /// `CU_EVENT_DISABLE_TIMING`: no timing data (cheaper; `elapsed_ms` then fails).
        const DISABLE_TIMING = ffi::CUevent_flags::CU_EVENT_DISABLE_TIMING.0 as u32;
        /// `CU_EVENT_INTERPROCESS`: another process may wait for it
        /// ([`Event::ipc_handle`](crate::Event::ipc_handle)); requires `DISABLE_TIMING`.
        const INTERPROCESS = ffi::CUevent_flags::CU_EVENT_INTERPROCESS.0 as u32;
    }
}

/// An event of the current context, lent by a guard. Destroyed on drop.
#[derive(Debug)]
#[doc(alias = "CUevent")]
pub struct Event<'g> {
    raw: ffi::CUevent,
    _marker: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_eq_size!(Event<'static>, ffi::CUevent);
static_assertions::assert_not_impl_any!(Event<'static>: Send, Sync);

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuEventCreate`—Creates an event in this guard's context.
    ///
    /// # Errors
    ///
    /// The driver's error (e.g. out of memory).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::EventFlags;
    /// let stream = guard.stream()?;
    /// let (start, end) = (guard.event(EventFlags::empty())?, guard.event(EventFlags::empty())?);
    /// stream.record(&start)?;
    /// // ... enqueue work on `stream` ...
    /// stream.record(&end)?;
    /// end.synchronize()?;
    /// println!("{} ms", start.elapsed_ms(&end)?);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventCreate")]
    #[inline]
    pub fn event(&self, flags: EventFlags) -> Result<Event<'_>> {
        let mut raw = core::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; this guard's context is current.
        unsafe { ffi::cuEventCreate(&raw mut raw, flags.bits()) }.result()?;
        Ok(Event {
            raw,
            _marker: PhantomData,
        })
    }

    /// Adopts an event created elsewhere: the returned [`Event`] is lent by this guard like one
    /// it created and destroys the event when dropped (`cuEventDestroy`).
    /// [`Event::into_raw`] is the way back.
    ///
    /// # Safety
    ///
    /// - `raw` is a live event created in this guard's context;
    /// - ownership passes to custack: nothing else destroys the event, and nothing uses it
    ///   after the returned `Event` is dropped or destroyed.
    #[inline]
    pub unsafe fn event_from_raw(&self, raw: ffi::CUevent) -> Event<'_> {
        Event {
            raw,
            _marker: PhantomData,
        }
    }
}

impl Event<'_> {
    /// The raw `CUevent`.
    pub fn as_raw(&self) -> ffi::CUevent {
        self.raw
    }

    /// Gives up ownership: returns the raw `CUevent` without destroying it. Adopt it again
    /// with [`PushedGuard::event_from_raw`].
    #[must_use = "the event is no longer destroyed by custack"]
    pub fn into_raw(self) -> ffi::CUevent {
        core::mem::ManuallyDrop::new(self).raw
    }

    /// `cuEventSynchronize`—Waits until the event has completed.
    ///
    /// # Errors
    ///
    /// The first error of the work recorded before the event, or a sticky error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventSynchronize")]
    #[inline]
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: `raw` is a live event of the current context.
        unsafe { ffi::cuEventSynchronize(self.raw) }.result()
    }

    /// `cuEventQuery`—Whether the event has completed (an event never recorded has).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    #[inline]
    pub fn is_complete(&self) -> Result<bool> {
        // SAFETY: `raw` is a live event of the current context.
        match unsafe { ffi::cuEventQuery(self.raw) } {
            ffi::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            r => r.result().map(|()| true),
        }
    }

    /// `cuEventElapsedTime`—Milliseconds from this event to `end` (both recorded and complete).
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_NOT_READY` if either has not completed, `CUDA_ERROR_INVALID_HANDLE` if
    /// either was created with [`EventFlags::DISABLE_TIMING`] or never recorded.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventElapsedTime")]
    #[inline]
    pub fn elapsed_ms(&self, end: &Event<'_>) -> Result<f32> {
        let mut ms = 0f32;
        // SAFETY: valid out-pointer; both events are live events of the current context.
        unsafe { ffi::cuEventElapsedTime(&raw mut ms, self.raw, end.raw) }.result()?;
        Ok(ms)
    }

    /// `cuEventDestroy`—Destroys the event, returning the driver's error.
    ///
    /// # Errors
    ///
    /// The driver's error. The event is consumed either way.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventDestroy")]
    #[inline]
    pub fn destroy(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: destroyed once; `this` never drops.
        unsafe { ffi::cuEventDestroy_v2(this.raw) }.result()
    }
}

impl Drop for Event<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: live event of the current context, destroyed once. Destroying an event whose
        // recording is pending is allowed: the driver releases it when the work completes.
        if let Err(e) = unsafe { ffi::cuEventDestroy_v2(self.raw) }.result() {
            record_drop_error(e);
        }
    }
}
