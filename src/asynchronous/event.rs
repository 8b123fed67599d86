//! Events: markers recorded on a stream, for ordering and timing.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::deadline::{Deadline, Polled, passed, poll};
use crate::error::Result;
use crate::error::left_behind::Object;
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

impl Event<'_> {
    /// An event over `raw`, for tests of refusals made before any driver call (wrap it in
    /// `ManuallyDrop`: its drop would destroy `raw`).
    #[cfg(test)]
    pub(crate) fn for_tests(raw: ffi::CUevent) -> Self {
        Self {
            raw,
            _marker: PhantomData,
        }
    }
}

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
        crate::error::poison::check()?;
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

/// An event shared by an [`Rc`](std::rc::Rc) in a payload, bound to a graph being built
/// ([`PushedGuard::build_graph`](crate::PushedGuard::build_graph)): what
/// [`GraphBuilder::record`](crate::graph::GraphBuilder::record) and
/// [`GraphBuilder::wait`](crate::graph::GraphBuilder::wait) take. The payload's `Rc` keeps the
/// event alive for as long as the graph, or an executable graph made from it, may record or wait
/// for it; the program keeps its own `Rc` to use the event outside the graph.
#[derive(Debug, Clone, Copy)]
pub struct ScopedEvent<'scope> {
    raw: ffi::CUevent,
    // Invariant in 'scope: bound to one builder or scope, not used by another.
    _marker: PhantomData<(crate::vocabulary::binding::Invariant<'scope>, *const ())>,
}

impl ScopedEvent<'_> {
    /// The raw `CUevent`.
    pub fn as_raw(&self) -> ffi::CUevent {
        self.raw
    }

    /// `event`, bound for `'scope`: the restricted profile's shared event
    /// (`Rc<RestrictedEvent>` in a payload).
    ///
    /// # Safety
    ///
    /// `event` lives until every graph, and every executable graph, that records or waits for
    /// it through the result is destroyed.
    pub(crate) unsafe fn of<'scope>(event: &Event<'_>) -> ScopedEvent<'scope> {
        ScopedEvent {
            raw: event.raw,
            _marker: PhantomData,
        }
    }
}

impl super::payload::sealed::Sealed for std::rc::Rc<Event<'_>> {}
impl<'g> super::payload::Payload for std::rc::Rc<Event<'g>> {
    type Bound<'scope> = ScopedEvent<'scope>;
    type Access<'a>
        = &'a Event<'g>
    where
        Self: 'a;
    type Read<'a>
        = &'a Event<'g>
    where
        Self: 'a;
    super::payload::held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> ScopedEvent<'scope> {
        // The event lives while the payload holds its `Rc`, which the caller promises it does
        // until the work that uses it is complete.
        ScopedEvent {
            raw: held.raw,
            _marker: PhantomData,
        }
    }
    #[inline]
    fn access<'a>(held: &'a mut Self) -> &'a Event<'g>
    where
        Self: 'a,
    {
        held
    }
    #[inline]
    fn read<'a>(held: &'a Self) -> &'a Event<'g>
    where
        Self: 'a,
    {
        held
    }
    unsafe fn left_behind(held: &Self) {
        crate::error::left_behind::left_behind(Object::Event, held.raw as u64);
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
    #[track_caller]
    pub fn synchronize(&self) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: `raw` is a live event of the current context.
        unsafe { ffi::cuEventSynchronize(self.raw) }
            .result_by(crate::error::Observer::EventSynchronize)
    }

    /// `cuEventQuery` until the event has completed or `deadline` passes
    /// ([R19](crate::Deadline)).
    ///
    /// # Errors
    ///
    /// As [`synchronize`](Self::synchronize);
    /// [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed) (naming this call site)
    /// if it had not completed by then. The event owns no memory: nothing is released either
    /// way.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    #[track_caller]
    #[inline]
    pub fn synchronize_by(&self, deadline: Deadline) -> Result<()> {
        crate::error::poison::check()?;
        let site = core::panic::Location::caller();
        let observer = crate::error::Observer::EventSynchronize;
        // SAFETY: `raw` is a live event of the current context.
        match poll(deadline, observer, site, || unsafe {
            ffi::cuEventQuery(self.raw)
        }) {
            Polled::Done(r) => r,
            Polled::Overdue(waited) => Err(passed(
                format_args!("the event synchronized at {site}"),
                waited,
            )),
        }
    }

    /// `cuEventQuery`—Whether the event has completed (an event never recorded has).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    #[inline]
    pub fn is_complete(&self) -> Result<bool> {
        crate::error::poison::check()?;
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
        crate::error::poison::check()?;
        let mut ms = 0f32;
        // SAFETY: valid out-pointer; both events are live events of the current context.
        unsafe { ffi::cuEventElapsedTime(&raw mut ms, self.raw, end.raw) }.result()?;
        Ok(ms)
    }

    /// `cuEventDestroy`—Destroys the event, returning the driver's error.
    ///
    /// # Errors
    ///
    /// The driver's error; after a sticky error (or in a forked child) that error, without
    /// calling the driver: the event is leaked (R20). The event is consumed either way.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventDestroy")]
    #[inline]
    pub fn destroy(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        crate::error::left_behind::release(Object::Event, this.raw as u64)?;
        // SAFETY: destroyed once; `this` never drops.
        unsafe { ffi::cuEventDestroy_v2(this.raw) }.result()
    }
}

impl Drop for Event<'_> {
    #[inline]
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(Object::Event, self.raw as u64, || {
            // SAFETY: live event of the current context, destroyed once. Destroying an event whose
            // recording is pending is allowed: the driver releases it when the work completes.
            unsafe { ffi::cuEventDestroy_v2(self.raw) }.result()
        });
    }
}

// Recording and waiting on the whole context (every stream of it), CUDA 12.5.
impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuCtxRecordEvent`—Records `event` after all work enqueued so far in this context, on
    /// every stream (CUDA 12.5; looked up, not linked).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported) inside a graph capture's
    /// closure, before the driver (C28.16, as [`Stream::record`](crate::Stream::record));
    /// [`ErrorKind::DriverTooOld`](crate::ErrorKind::DriverTooOld) on a driver older than 12.5
    /// ("needs driver ≥ 12.5 (this driver: A.B)"); driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, EventFlags, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let everything = guard.event(EventFlags::DISABLE_TIMING)?;
    /// guard.record_event(&everything)?; // after the work of every stream of the context
    /// everything.synchronize()?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxRecordEvent")]
    pub fn record_event(&self, event: &Event<'_>) -> Result<()> {
        crate::error::poison::check()?;
        super::refuse_event_inside_capture("an event record (cuCtxRecordEvent)")?;
        let record = crate::driver::lookup::CTX_RECORD_EVENT.get()?;
        // SAFETY: this guard's context is live and current; `event` is a live event of it (lent
        // by this guard, the only one whose handles are reachable here).
        unsafe { record(self.as_raw(), event.as_raw()) }.result()
    }

    /// `cuCtxWaitEvent`—Makes all future work of this context, on every stream, wait for
    /// `event` (CUDA 12.5; looked up, not linked).
    ///
    /// # Errors
    ///
    /// As [`record_event`](Self::record_event).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxWaitEvent")]
    pub fn wait_event(&self, event: &Event<'_>) -> Result<()> {
        crate::error::poison::check()?;
        super::refuse_event_inside_capture("an event wait (cuCtxWaitEvent)")?;
        let wait = crate::driver::lookup::CTX_WAIT_EVENT.get()?;
        // SAFETY: as in `record_event`.
        unsafe { wait(self.as_raw(), event.as_raw()) }.result()
    }
}

/// An interprocess handle to an event (`CUipcEventHandle`): plain bytes, `Send + Sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CUipcEventHandle")]
pub struct IpcEventHandle {
    raw: ffi::CUipcEventHandle,
}

impl IpcEventHandle {
    /// The handle's 64 bytes, to send to another process.
    pub fn to_bytes(&self) -> [u8; 64] {
        self.raw.reserved.map(|b| b as u8)
    }
    /// A handle from its bytes.
    pub fn from_bytes(bytes: [u8; 64]) -> Self {
        Self {
            raw: ffi::CUipcEventHandle {
                reserved: bytes.map(|b| b as core::ffi::c_char),
            },
        }
    }
}

impl Event<'_> {
    /// `cuIpcGetEventHandle`—A handle another process can open this event with
    /// ([`PushedGuard::open_ipc_event`]), to make its streams wait on the GPU for the work this
    /// event is recorded after.
    ///
    /// # Errors
    ///
    /// The driver's error: `CUDA_ERROR_INVALID_VALUE` unless the event was created with
    /// [`EventFlags::INTERPROCESS`](crate::EventFlags::INTERPROCESS) and
    /// [`DISABLE_TIMING`](crate::EventFlags::DISABLE_TIMING); `CUDA_ERROR_NOT_SUPPORTED` where the
    /// platform has no IPC (Windows, some embedded platforms).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, EventFlags, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let done = guard.event(EventFlags::INTERPROCESS | EventFlags::DISABLE_TIMING)?;
    /// let bytes: [u8; 64] = done.ipc_handle()?.to_bytes(); // send these to the other process
    /// # let _ = bytes;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuIpcGetEventHandle")]
    pub fn ipc_handle(&self) -> Result<IpcEventHandle> {
        crate::error::poison::check()?;
        let mut raw = ffi::CUipcEventHandle { reserved: [0; 64] };
        // SAFETY: valid out-pointer; a live event of the current context (it is lent by the
        // current guard).
        unsafe { ffi::cuIpcGetEventHandle(&raw mut raw, self.as_raw()) }.result()?;
        Ok(IpcEventHandle { raw })
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuIpcOpenEventHandle`—Opens another process's event as an event of this guard's
    /// context, lent like every event (it behaves as one created with
    /// [`EventFlags::DISABLE_TIMING`](crate::EventFlags::DISABLE_TIMING)): a stream of this
    /// process that waits for it ([`StreamScope::wait`](crate::StreamScope::wait),
    /// [`Stream::wait`](crate::Stream::wait)) waits on the GPU for the work the other process
    /// recorded it after. Destroyed on drop (`cuEventDestroy`).
    ///
    /// # Safety
    ///
    /// What no type can check across processes: the exporting process must keep its event
    /// alive until the returned event is dropped (the driver documents any use of an opened
    /// event after the exported one is destroyed as undefined behaviour), and what the two
    /// processes order with it (who writes shared memory when) is theirs to agree on.
    ///
    /// # Errors
    ///
    /// The driver's error (e.g. the handle comes from this process, or from another device
    /// than this context's, or the platform has no IPC).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuIpcOpenEventHandle")]
    pub unsafe fn open_ipc_event(&self, handle: &IpcEventHandle) -> Result<Event<'_>> {
        crate::error::poison::check()?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; this guard's context is current; the caller vouches for
        // the other process's event.
        unsafe { ffi::cuIpcOpenEventHandle(&raw mut raw, handle.raw) }.result()?;
        // SAFETY: a live event of this guard's context, owned by nothing else: the returned
        // value destroys it, as `cuIpcOpenEventHandle` asks.
        Ok(unsafe { self.event_from_raw(raw) })
    }
}
