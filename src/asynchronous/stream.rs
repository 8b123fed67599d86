//! Streams: creation, priorities, synchronization and events. The work enqueued on them lives
//! in the asynchronous layer (`crate::asynchronous`): [`Stream::scope`] and [`Stream::submit`].

use crate::asynchronous::event::Event;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::deadline::{Deadline, Polled, passed, poll};
use crate::error::Result;
use crate::error::left_behind::Object;
use crate::ffi;
use core::ffi::{c_int, c_uint};
use core::marker::PhantomData;

bitflags::bitflags! {
    /// Stream creation flags (`CUstream_flags`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    #[doc(alias = "CUstream_flags")]
    pub struct StreamFlags: u32 {
        /// `CU_STREAM_NON_BLOCKING`: the stream does not synchronize with the context's legacy
        /// NULL stream. See [`Stream`] for what that changes.
        const NON_BLOCKING = ffi::CUstream_flags::CU_STREAM_NON_BLOCKING.0 as u32;
    }
}

/// A stream of the current context, lent by a guard. Destroyed on drop.
///
/// Whatever its kind, the memory an asynchronous operation uses is out of the host's reach until
/// that operation is known complete: a [`scope`](Self::scope) borrows it until its stream is
/// synchronized, a [`Submission`](crate::Submission) owns it until its event has completed. The
/// two kinds differ only in their ordering against custack's *synchronous* operations, which
/// run on the context's legacy NULL stream:
///
/// - [`guard.stream()`](PushedGuard::stream) (`CU_STREAM_DEFAULT`, blocking): its work starts
///   after every synchronous operation issued before it and finishes before any issued after
///   it (the legacy NULL stream's implicit synchronization).
/// - [`guard.stream_with(StreamFlags::NON_BLOCKING, _)`](PushedGuard::stream_with): no implicit
///   synchronization with the NULL stream, so it overlaps the synchronous work of other
///   threads and streams. Synchronous copies to the host, device-to-device copies and memsets
///   are complete when they return, so later work on it sees their results; a synchronous copy
///   *from pageable host memory to the device* returns once the data is staged, possibly before
///   it reaches the device (CUDA's documented behaviour), so do such a copy in the stream's own
///   scope or submission, from page-locked memory, or after [`synchronize`](PushedGuard::synchronize),
///   when work on a non-blocking stream must read its result.
///
/// Neither kind affects soundness: what the GPU may still use is never freed, reused or handed
/// to the host, on either.
#[derive(Debug)]
#[doc(alias = "CUstream")]
pub struct Stream<'g> {
    raw: ffi::CUstream,
    serial: StreamSerial,
    _marker: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_eq_size!(Stream<'static>, (ffi::CUstream, u64));

/// Which [`Stream`] value work is enqueued on: a number drawn for each `Stream` made (created,
/// adopted or borrowed), never drawn twice in a process. Its raw handle does not tell streams
/// apart: the driver may give a destroyed stream's handle to the next stream it creates, while
/// the destroyed one's work still runs. Library handles use it to know when a call is on the
/// stream of their previous call (`asynchronous::call_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StreamSerial(u64);

impl StreamSerial {
    /// A number no stream of this process has had.
    #[inline]
    fn next() -> Self {
        static NEXT: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(1);
        Self(NEXT.fetch_add(1, core::sync::atomic::Ordering::Relaxed))
    }

    /// A serial for tests of what uses it.
    #[cfg(test)]
    pub(crate) fn for_tests(n: u64) -> Self {
        Self(n)
    }
}
static_assertions::assert_not_impl_any!(Stream<'static>: Send, Sync);

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuStreamCreate`—Creates a blocking stream (`CU_STREAM_DEFAULT`) in this guard's
    /// context.
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
    /// let stream = guard.stream()?;
    /// let mut buf = guard.alloc::<u32>(1024)?;
    /// stream.scope(|s| s.fill_u32(s.bind_mut(&mut buf), 7))??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamCreate")]
    #[inline]
    pub fn stream(&self) -> Result<Stream<'_>> {
        crate::error::poison::check()?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; this guard's context is current.
        unsafe {
            ffi::cuStreamCreate(
                &raw mut raw,
                ffi::CUstream_flags::CU_STREAM_DEFAULT.0 as c_uint,
            )
        }
        .result()?;
        Ok(Stream {
            raw,
            serial: StreamSerial::next(),
            _marker: PhantomData,
        })
    }

    /// `cuStreamCreateWithPriority`—Creates a blocking stream with a priority; lower numbers are
    /// higher priority, within [`stream_priority_range`](Self::stream_priority_range) (the
    /// driver clamps).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamCreateWithPriority")]
    pub fn stream_with_priority(&self, priority: i32) -> Result<Stream<'_>> {
        self.stream_with(StreamFlags::empty(), priority)
    }

    /// `cuStreamCreateWithPriority`—Creates a stream with `flags` (e.g.
    /// [`StreamFlags::NON_BLOCKING`]) and a priority (0 is the default; see
    /// [`stream_with_priority`](Self::stream_with_priority)).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack, StreamFlags};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let stream = guard.stream_with(StreamFlags::NON_BLOCKING, 0)?;
    /// let pending = stream.submit(guard.alloc::<u8>(1 << 20)?, |s, mut buf| s.fill_bytes(&mut buf, 0))?;
    /// let _zeroed = pending.wait()?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamCreateWithPriority")]
    #[doc(alias = "CU_STREAM_NON_BLOCKING")]
    pub fn stream_with(&self, flags: StreamFlags, priority: i32) -> Result<Stream<'_>> {
        crate::error::poison::check()?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; this guard's context is current.
        unsafe { ffi::cuStreamCreateWithPriority(&raw mut raw, flags.bits(), priority) }
            .result()?;
        Ok(Stream {
            raw,
            serial: StreamSerial::next(),
            _marker: PhantomData,
        })
    }

    /// Adopts a stream created elsewhere (another library, raw `cuStreamCreate` calls): the
    /// returned [`Stream`] is lent by this guard like one it created, and destroys the stream
    /// when dropped (`cuStreamDestroy`). [`Stream::into_raw`] is the way back.
    ///
    /// # Safety
    ///
    /// - `raw` is a live stream created in this guard's context (not the NULL stream, nor
    ///   `CU_STREAM_LEGACY` or `CU_STREAM_PER_THREAD`: those are never destroyed; borrow them
    ///   with [`borrow_stream_raw`](Self::borrow_stream_raw));
    /// - ownership passes to custack: nothing else destroys the stream, and nothing uses it
    ///   after the returned `Stream` is dropped or destroyed;
    /// - no work that custack does not know of is pending or enqueued later on it that uses
    ///   memory custack lends (custack frees memory once *its* work on the stream is done);
    /// - no graph capture begun by other code is in progress on it.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let raw = guard.stream()?.into_raw(); // e.g. a stream another library made
    /// // SAFETY: `raw` is a live stream of `ctx`, owned by nobody else now.
    /// let stream = unsafe { guard.stream_from_raw(raw) };
    /// stream.synchronize()?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    #[inline]
    pub unsafe fn stream_from_raw(&self, raw: ffi::CUstream) -> Stream<'_> {
        Stream {
            raw,
            serial: StreamSerial::next(),
            _marker: PhantomData,
        }
    }

    /// Borrows a stream owned elsewhere, e.g. the current stream of a framework that created
    /// it: the returned [`BorrowedStream`] is lent by this guard, dereferences to a
    /// [`Stream`] (so [`scope`](Stream::scope), [`submit`](Stream::submit), events... work on
    /// it), and never destroys the stream.
    ///
    /// The special handles name the current context's default streams and may be borrowed
    /// too: the legacy NULL stream (`core::ptr::null_mut()`),
    /// [`ffi::CU_STREAM_LEGACY`] and [`ffi::CU_STREAM_PER_THREAD`].
    ///
    /// # Safety
    ///
    /// - `raw` is a stream of this guard's context, or one of the special handles above;
    /// - it stays alive (is not destroyed by its owner) until the returned value, and every
    ///   scope, submission or graph capture made through it, is gone;
    /// - no work that custack does not know of uses memory custack lends on it (as for
    ///   [`stream_from_raw`](Self::stream_from_raw));
    /// - no graph capture begun by other code is in progress on it while custack enqueues on
    ///   it (captured work would not run, and a scope could not wait for it).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut buf = guard.alloc::<u32>(256)?;
    /// // SAFETY: the NULL stream is a stream of the current context and is never destroyed.
    /// let null = unsafe { guard.borrow_stream_raw(core::ptr::null_mut()) };
    /// null.scope(|s| s.fill_u32(s.bind_mut(&mut buf), 7))??;
    /// assert_eq!(buf.to_vec()?, vec![7; 256]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    #[inline]
    pub unsafe fn borrow_stream_raw(&self, raw: ffi::CUstream) -> BorrowedStream<'_> {
        BorrowedStream {
            stream: core::mem::ManuallyDrop::new(Stream {
                raw,
                serial: StreamSerial::next(),
                _marker: PhantomData,
            }),
        }
    }
}

/// A stream custack does not own, lent by a guard ([`PushedGuard::borrow_stream_raw`]):
/// a [`Stream`] by dereference that is never destroyed by custack.
#[derive(Debug)]
pub struct BorrowedStream<'g> {
    // Never dropped: the stream belongs to someone else. `Stream::destroy` and `into_raw` take
    // `self`, which a `Deref` cannot give.
    stream: core::mem::ManuallyDrop<Stream<'g>>,
}

static_assertions::assert_eq_size!(BorrowedStream<'static>, Stream<'static>);
static_assertions::assert_not_impl_any!(BorrowedStream<'static>: Send, Sync);

impl<'g> core::ops::Deref for BorrowedStream<'g> {
    type Target = Stream<'g>;
    #[inline]
    fn deref(&self) -> &Stream<'g> {
        &self.stream
    }
}

impl<'g> Stream<'g> {
    /// The raw `CUstream`.
    pub fn as_raw(&self) -> ffi::CUstream {
        self.raw
    }

    /// Which `Stream` this is, among all made in this process.
    #[inline]
    pub(crate) fn serial(&self) -> StreamSerial {
        self.serial
    }

    /// Gives up ownership: returns the raw `CUstream` without destroying it, e.g. to hand it
    /// to a library that will destroy it. Adopt it again with
    /// [`PushedGuard::stream_from_raw`].
    #[must_use = "the stream is no longer destroyed by custack"]
    pub fn into_raw(self) -> ffi::CUstream {
        core::mem::ManuallyDrop::new(self).raw
    }

    /// `cuStreamSynchronize`—Waits for all work on the stream.
    ///
    /// # Errors
    ///
    /// The first error of the stream's work, a sticky error, or
    /// [`ErrorKind::HostFunctionPanicked`](crate::ErrorKind::HostFunctionPanicked) for a
    /// [host function](crate::StreamScope::host_fn) of this context that panicked.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamSynchronize")]
    #[inline]
    #[track_caller]
    pub fn synchronize(&self) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: `raw` is a live stream of the current context.
        unsafe { ffi::cuStreamSynchronize(self.raw) }
            .result_by(crate::error::Observer::StreamSynchronize)?;
        crate::asynchronous::host::check_panics()
    }

    /// `cuStreamQuery` until all work on the stream is complete or `deadline` passes
    /// ([R19](crate::Deadline)).
    ///
    /// # Errors
    ///
    /// As [`synchronize`](Self::synchronize);
    /// [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed) (naming this call site)
    /// if it was not idle by then. What the stream's work uses is owned or borrowed elsewhere
    /// (by a scope or a submission, which wait for it themselves): nothing is released either
    /// way.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamQuery")]
    #[track_caller]
    #[inline]
    pub fn synchronize_by(&self, deadline: Deadline) -> Result<()> {
        crate::error::poison::check()?;
        let site = core::panic::Location::caller();
        let observer = crate::error::Observer::StreamSynchronize;
        // SAFETY: `raw` is a live stream of the current context.
        match poll(deadline, observer, site, || unsafe {
            ffi::cuStreamQuery(self.raw)
        }) {
            Polled::Done(r) => r?,
            Polled::Overdue(waited) => {
                return Err(passed(
                    format_args!("the stream synchronized at {site}"),
                    waited,
                ));
            }
        }
        crate::asynchronous::host::check_panics()
    }

    /// `cuStreamQuery`—Whether all work on the stream is complete.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamQuery")]
    #[inline]
    pub fn is_complete(&self) -> Result<bool> {
        crate::error::poison::check()?;
        // SAFETY: `raw` is a live stream of the current context.
        match unsafe { ffi::cuStreamQuery(self.raw) } {
            ffi::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            r => r.result().map(|()| true),
        }
    }

    /// `cuStreamGetPriority`—The stream's priority.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamGetPriority")]
    pub fn priority(&self) -> Result<i32> {
        crate::error::poison::check()?;
        let mut p: c_int = 0;
        // SAFETY: valid out-pointer; live stream.
        unsafe { ffi::cuStreamGetPriority(self.raw, &raw mut p) }.result()?;
        Ok(p)
    }

    /// `cuEventRecord`—Records `event` on this stream: it completes when all work enqueued so
    /// far has.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported) inside a graph capture's
    /// closure, before the driver (an event recorded in a capture would let another stream
    /// join it: C28.16; fork streams in with [`capture_forks`](Self::capture_forks)); the
    /// driver's error (e.g. an event of another context); after a sticky error (or in a forked
    /// child) that error, without calling the driver (R20, R22).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventRecord")]
    #[inline]
    pub fn record(&self, event: &Event<'g>) -> Result<()> {
        record_event(self.raw, event)
    }

    /// `cuStreamWaitEvent`—Makes future work on this stream wait for `event`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported) inside a graph capture's
    /// closure, before the driver (a wait for an event recorded in a capture joins the stream
    /// to it: C28.16); the driver's error; after a sticky error (or in a forked child) that
    /// error, without calling the driver (R20, R22).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamWaitEvent")]
    #[inline]
    pub fn wait(&self, event: &Event<'g>) -> Result<()> {
        wait_event(self.raw, event)
    }

    /// `cuStreamDestroy`—Destroys the stream, returning the driver's error.
    ///
    /// # Errors
    ///
    /// The driver's error; after a sticky error (or in a forked child) that error, without
    /// calling the driver: the stream is leaked (R20). The stream is consumed either way.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamDestroy")]
    #[inline]
    pub fn destroy(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        crate::error::left_behind::release(Object::Stream, this.raw as u64)?;
        // SAFETY: `raw` is destroyed once; `this` never drops.
        unsafe { ffi::cuStreamDestroy_v2(this.raw) }.result()
    }
}

/// `cuEventRecord` on a live stream of the current context (a `Stream` or a scope's).
#[inline]
pub(crate) fn record_event(stream: ffi::CUstream, event: &Event<'_>) -> Result<()> {
    // Poisoned or forked (R20, R22): refused without the driver, as every wait and record.
    crate::error::poison::check()?;
    super::refuse_event_inside_capture("an event record (cuEventRecord)")?;
    // SAFETY: both handles are live and of the current context: each is lent by the guard that
    // is current on this thread, the only one whose handles are reachable here.
    unsafe { ffi::cuEventRecord(event.as_raw(), stream) }.result()
}

/// `cuStreamWaitEvent` on a live stream of the current context.
#[inline]
pub(crate) fn wait_event(stream: ffi::CUstream, event: &Event<'_>) -> Result<()> {
    crate::error::poison::check()?;
    super::refuse_event_inside_capture("an event wait (cuStreamWaitEvent)")?;
    // SAFETY: as in `record_event`; the flags must be 0.
    unsafe { ffi::cuStreamWaitEvent(stream, event.as_raw(), 0) }.result()
}

impl Drop for Stream<'_> {
    #[inline]
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(Object::Stream, self.raw as u64, || {
            // SAFETY: `raw` is a live stream of the current context, destroyed once.
            unsafe { ffi::cuStreamDestroy_v2(self.raw) }.result()
        });
    }
}

impl Stream<'_> {
    /// A stream over `raw`, for tests of refusals made before any driver call (wrap it in
    /// `ManuallyDrop`: its drop would destroy `raw`).
    #[cfg(test)]
    pub(crate) fn for_tests(raw: ffi::CUstream) -> Self {
        Stream {
            raw,
            serial: StreamSerial::next(),
            _marker: PhantomData,
        }
    }

    /// `cuStreamCreate`—A new non-blocking stream of the current context, for work that has no
    /// guard to lend one: a capture into a graph being built
    /// ([`GraphBuilder::capture`](crate::graph::GraphBuilder::capture)).
    ///
    /// # Safety
    ///
    /// A context must be current, and stay current until the stream drops (which destroys it
    /// under the current context), within the lifetime the caller picks.
    pub(crate) unsafe fn of_current() -> Result<Self> {
        let mut raw = core::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; a context is current (the caller's promise).
        unsafe {
            ffi::cuStreamCreate(
                &raw mut raw,
                ffi::CUstream_flags::CU_STREAM_NON_BLOCKING.0 as c_uint,
            )
        }
        .result()?;
        Ok(Stream {
            raw,
            serial: StreamSerial::next(),
            _marker: PhantomData,
        })
    }
}
