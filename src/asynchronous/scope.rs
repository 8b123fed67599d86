//! Stream scopes: asynchronous work that borrows what it uses until one `cuStreamSynchronize`.
//!
//! Everything an operation of a [`StreamScope`] touches (device memory, host memory, kernel
//! arguments) is borrowed for the whole scope, and [`Stream::scope`] ends with one
//! `cuStreamSynchronize`: memory can be neither dropped, freed, reused nor read by the host
//! while the GPU may still use it (C10, C11), with no event or synchronization per operation.
//! Several streams run at once by nesting their scopes; work whose lifetimes overlap without
//! nesting is a [`Submission`](crate::Submission) instead, which enqueues through the same
//! `StreamScope`.

use crate::asynchronous::event::Event;
use crate::asynchronous::stream::{Stream, StreamSerial, record_event, wait_event};
use crate::deadline::{BoundedWait, Deadline, Overrun};
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::memory::{DeviceMemory, DeviceMemoryMut, check_alloc_len, check_same_len};
use crate::vocabulary::binding::{
    ScopedAlloc, ScopedHost, ScopedHostMut, ScopedRead, ScopedSlice, ScopedSliceMut, ScopedWrite,
};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

impl Stream<'_> {
    /// Runs `f` with a scope that enqueues asynchronous work on this stream, then waits for
    /// it (`cuStreamSynchronize`), also when `f` panics.
    ///
    /// Everything an enqueued operation uses is borrowed until the scope ends, like the
    /// borrows of threads spawned in [`std::thread::scope`].
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_NOT_SUPPORTED` inside a [capture](Stream::capture)'s closure (which reaches a
    /// stream only through a leaked guard): the scope's work would be captured, not run. The
    /// synchronization's error: the first error of the work in the scope. The borrows end only
    /// once no work of the scope can still run: if the synchronization fails without a sticky
    /// error, the stream is polled until it is idle (`cuStreamQuery`), then the context
    /// synchronized. A **sticky** error is no evidence that the work is over (a fault in
    /// another context does not stop this one's work, R20): the scope then never returns and
    /// ends the process in custack's safe state ([`fail_stop`](crate::fail_stop): one line on
    /// stderr, exit status 75), as it does if the driver can confirm nothing. Once the process
    /// is poisoned, a scope whose work completed returns the poison rather than `Ok`. [`ErrorKind::HostFunctionPanicked`](crate::ErrorKind::HostFunctionPanicked) if a
    /// [host function](StreamScope::host_fn) of this context panicked. Errors of individual
    /// enqueue calls are returned by those calls.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let mut host = guard.alloc_pinned::<u32>(1024)?;
    /// host.fill(7);
    /// let mut dev = guard.alloc::<u32>(1024)?;
    /// stream.scope(|s| s.copy_to_device(s.bind_mut(&mut dev), &host))??;
    /// // the copy is complete here: `host` and `dev` are free to use again
    /// assert_eq!(dev.to_vec()?, vec![7; 1024]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamSynchronize")]
    #[inline]
    #[track_caller]
    pub fn scope<'env, R>(
        &'env self,
        f: impl for<'scope> FnOnce(&'scope StreamScope<'scope, 'env>) -> R,
    ) -> Result<R> {
        super::refuse_inside_capture("a stream scope")?;
        crate::error::poison::check()?;
        // SAFETY: the stream is live and of the current context (lent by the current guard,
        // borrowed for 'env); the scope is waited for below, or by `waiter` on unwind.
        let scope = unsafe { StreamScope::of(self) };
        let waiter = SyncOnDrop {
            stream: self.as_raw(),
            bound: None,
        };
        let value = f(&scope);
        core::mem::forget(waiter);
        super::wait_stream(self.as_raw())?;
        // A fault elsewhere in the process may have ended this stream's work early while the
        // driver reports it complete: its results cannot be trusted (R20).
        crate::error::poison::check()?;
        super::host::check_panics()?;
        Ok(value)
    }

    /// [`scope`](Self::scope) with its wait bounded by `deadline` ([R19](crate::Deadline)):
    /// runs `f`, then asks the driver whether the stream is idle (`cuStreamQuery`) until it is
    /// or the deadline passes.
    ///
    /// The scope borrows its memory only for this call, so nothing can be handed back while
    /// the GPU may still use it: past the deadline, `overrun` (chosen up front) decides.
    /// [`Overrun::KeepWaiting`] waits until the work is over and returns
    /// [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed) naming this call site
    /// and how late the work was; [`Overrun::Exit`] ends the process with the status it holds,
    /// saying on stderr which scope overran. The same applies when `f` panics (the unwind waits
    /// as the scope's end does). Complete work costs one `cuStreamQuery`, as much as the
    /// `cuStreamSynchronize` of [`scope`](Self::scope).
    ///
    /// # Errors
    ///
    /// As [`scope`](Self::scope); [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed)
    /// after an overrun with [`Overrun::KeepWaiting`] (the work is complete then; the closure's
    /// value is dropped). A query that fails without a sticky error does not say whether the
    /// work is over: then the scope waits as [`scope`](Self::scope) does.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Deadline, Driver, Overrun, Stack};
    /// use std::time::Duration;
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let mut dev = guard.alloc::<u32>(1024)?;
    /// // A frame's budget is 5 ms; past it a watchdog restarts the process (status 75).
    /// let frame = Deadline::after(Duration::from_millis(5));
    /// stream.scope_by(frame, Overrun::Exit, |s| s.fill_u32(s.bind_mut(&mut dev), 1))??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamQuery")]
    #[track_caller]
    #[inline]
    pub fn scope_by<'env, R>(
        &'env self,
        deadline: Deadline,
        overrun: Overrun,
        f: impl for<'scope> FnOnce(&'scope StreamScope<'scope, 'env>) -> R,
    ) -> Result<R> {
        super::refuse_inside_capture("a stream scope")?;
        crate::error::poison::check()?;
        let site = core::panic::Location::caller();
        // SAFETY: as in `scope`; the scope is waited for below, or by `waiter` on unwind.
        let scope = unsafe { StreamScope::of(self) };
        let waiter = SyncOnDrop {
            stream: self.as_raw(),
            bound: Some((deadline, overrun, site)),
        };
        let value = f(&scope);
        core::mem::forget(waiter);
        super::wait_stream_by(self.as_raw(), deadline, overrun, BoundedWait::Scope, site)?;
        // As in `scope`: after a fault elsewhere, a complete stream's results cannot be trusted.
        crate::error::poison::check()?;
        super::host::check_panics()?;
        Ok(value)
    }
}

/// Waits for the stream if a scope's closure unwinds, so borrowed memory is released only after
/// the GPU is done with it; bounded as the scope's own end is, for [`Stream::scope_by`].
struct SyncOnDrop {
    stream: ffi::CUstream,
    bound: Option<(Deadline, Overrun, &'static core::panic::Location<'static>)>,
}

impl Drop for SyncOnDrop {
    fn drop(&mut self) {
        // The stream is live (borrowed by the scope).
        let waited = match self.bound {
            None => super::wait_stream(self.stream),
            Some((deadline, overrun, site)) => {
                super::wait_stream_by(self.stream, deadline, overrun, BoundedWait::Scope, site)
            }
        };
        if let Err(e) = waited {
            record_drop_error(e);
        }
    }
}

/// Enqueues asynchronous work on one stream; see [`Stream::scope`].
///
/// `'scope` is the scope's own lifetime: everything an operation uses must be borrowed for it,
/// so it lives outside the scope (in `'env`) and stays borrowed until the scope has waited for
/// the stream. The scope is `!Send` and `!Sync`.
#[doc(alias = "cuStreamSynchronize")]
pub struct StreamScope<'scope, 'env: 'scope> {
    raw: ffi::CUstream,
    // Which `Stream` the scope enqueues on (its raw handle may be a destroyed stream's).
    serial: StreamSerial,
    // Invariant in 'scope and 'env, as `std::thread::Scope`: borrows for 'scope cannot be
    // shortened to end before the scope does.
    _scope: PhantomData<&'scope mut &'scope ()>,
    _env: PhantomData<(&'env mut &'env (), *const ())>,
}

static_assertions::assert_eq_size!(StreamScope<'static, 'static>, Stream<'static>);

impl StreamScope<'_, '_> {
    /// A scope on `stream`.
    ///
    /// # Safety
    ///
    /// `stream` must be a stream of the current context that stays live for the returned
    /// lifetimes, and whoever hands the scope out must wait for the stream (or an event
    /// recorded on it after the scope's work) before anything the scope's operations borrow
    /// for `'scope` is released.
    #[inline]
    pub(crate) unsafe fn of(stream: &Stream<'_>) -> Self {
        Self {
            raw: stream.as_raw(),
            serial: stream.serial(),
            _scope: PhantomData,
            _env: PhantomData,
        }
    }

    /// A scope on the stream whose raw handle and serial these are (a stream forked into a
    /// capture, [`Stream::capture_forks`](crate::Stream::capture_forks)).
    ///
    /// # Safety
    ///
    /// As for [`of`](Self::of), with `raw` and `serial` those of a live [`Stream`] of the
    /// current context that stays live for the returned lifetimes.
    #[inline]
    pub(crate) unsafe fn of_parts(raw: ffi::CUstream, serial: StreamSerial) -> Self {
        Self {
            raw,
            serial,
            _scope: PhantomData,
            _env: PhantomData,
        }
    }

    /// Which `Stream` the scope enqueues on ([`StreamSerial`]).
    #[inline]
    pub(crate) fn serial(&self) -> StreamSerial {
        self.serial
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// The raw stream the scope enqueues on.
    pub fn as_raw(&self) -> ffi::CUstream {
        self.raw
    }

    /// Binds device memory to this scope for reading, until the scope ends.
    pub fn bind<T: DeviceCopy, M: DeviceMemory<T> + ?Sized>(
        &self,
        memory: &'scope M,
    ) -> ScopedSlice<'scope, T> {
        // SAFETY: `memory` is device memory of the current context (it is lent by a guard or
        // bound by its owner, `DeviceMemory`), borrowed shared for 'scope, so nothing writes it
        // until the scope's work is complete.
        unsafe { ScopedSlice::from_raw_parts(memory.device_ptr(), memory.len()) }
    }

    /// Binds device memory to this scope exclusively, for reading and writing, until the
    /// scope ends.
    pub fn bind_mut<T: DeviceCopy, M: DeviceMemoryMut<T> + ?Sized>(
        &self,
        memory: &'scope mut M,
    ) -> ScopedSliceMut<'scope, T> {
        // SAFETY: `memory` is device memory of the current context (`DeviceMemoryMut`),
        // borrowed exclusively for 'scope, so nothing else reaches it until the scope's work
        // is complete.
        unsafe { ScopedSliceMut::from_raw_parts(memory.device_ptr(), memory.len()) }
    }

    /// Binds host memory to this scope for reading, until the scope ends.
    pub fn bind_host<T: DeviceCopy>(&self, memory: &'scope [T]) -> ScopedHost<'scope, T> {
        memory.into()
    }

    /// Binds host memory to this scope exclusively, so its copies may both read and write it.
    pub fn bind_host_mut<T: DeviceCopy>(
        &self,
        memory: &'scope mut [T],
    ) -> ScopedHostMut<'scope, T> {
        memory.into()
    }

    /// `cuMemAllocAsync`—Allocates `len` elements on the scope's stream, from the device's
    /// default memory pool (uninitialized device bytes: any bit pattern is a valid `T`).
    ///
    /// The allocation is usable by this scope's later operations, in stream order, and is freed
    /// on the stream (`cuMemFreeAsync`) when dropped: after every operation enqueued before the
    /// drop, so it may be dropped while kernels using it are still pending. It is branded with
    /// the scope and cannot leave it. Operations take it by reference (`&alloc`, `&mut alloc`).
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` for zero bytes, [`ErrorKind::SizeOverflow`](crate::ErrorKind::SizeOverflow),
    /// `CUDA_ERROR_OUT_OF_MEMORY`, `CUDA_ERROR_NOT_SUPPORTED` on devices without memory pools;
    /// [`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported) inside a capture into a
    /// graph being built ([`GraphBuilder::capture`](crate::graph::GraphBuilder::capture)), whose
    /// closure could keep the allocation past the capture, and in a conditional node's body
    /// closure in the middle of a capture ([`while_loop`](Self::while_loop) and the others),
    /// where the allocation node would follow the node whose body uses it.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let mut out = vec![0u32; 256];
    /// stream.scope(|s| -> custack::Result<()> {
    ///     let mut tmp = s.alloc::<u32>(256)?;     // cuMemAllocAsync, freed on the stream at drop
    ///     s.fill_u32(&mut tmp, 9)?;
    ///     s.copy_to_host(&mut out, &tmp)
    /// })??;
    /// assert!(out.iter().all(|&x| x == 9));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemAllocAsync")]
    #[inline]
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<ScopedAlloc<'scope, T>> {
        // Poisoned or forked (R20, R22): no creation reaches the driver.
        crate::error::poison::check()?;
        super::refuse_alloc_into_graph()?;
        let bytes = check_alloc_len::<T>(len)?;
        let mut ptr: ffi::CUdeviceptr = 0;
        // SAFETY: `ptr` is a valid out-pointer; the stream is live and of the current context.
        unsafe { ffi::cuMemAllocAsync(&raw mut ptr, bytes, self.raw) }.result()?;
        // SAFETY: allocated on this scope's stream, to be freed there.
        Ok(unsafe { ScopedAlloc::from_raw_parts(ptr, len, self.raw) })
    }

    /// `cuMemcpyHtoDAsync`—Enqueues a copy from host memory (page-locked for a truly
    /// asynchronous copy, e.g. a [`PinnedBuffer`](crate::PinnedBuffer)), which stays borrowed
    /// until the scope ends: `&host`, or a [`ScopedHost`]/[`ScopedHostMut`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyHtoDAsync")]
    #[inline]
    pub fn copy_to_device<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'scope, T>,
        src: impl Into<ScopedHost<'scope, T>>,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        // The host side first: its conversion may be a program's `From`, which could make a node
        // (taking the use `raw_parts` notes for a graph allocation) between the two.
        let src = src.into();
        let (ptr, len) = dst.raw_parts();
        check_same_len("copy_to_device", len, src.len())?;
        // SAFETY: `src` is readable for the copied bytes and stays borrowed until the scope has
        // synchronized the stream; `dst` is live device memory of the current context that
        // stays so until this copy has run (bound for the scope, or freed in stream order).
        unsafe {
            ffi::cuMemcpyHtoDAsync_v2(ptr, src.as_ptr().cast(), len * size_of::<T>(), self.raw)
        }
        .result()
    }

    /// `cuMemcpyDtoHAsync`—Enqueues a copy to host memory, which stays borrowed until the
    /// scope ends: `&mut host`, or a [`ScopedHostMut`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyDtoHAsync")]
    #[inline]
    pub fn copy_to_host<T: DeviceCopy>(
        &self,
        dst: impl Into<ScopedHostMut<'scope, T>>,
        src: impl ScopedRead<'scope, T>,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let (dst, (ptr, len)) = (dst.into(), src.raw_parts());
        check_same_len("copy_to_host", dst.len(), len)?;
        // SAFETY: `dst` is writable for the copied bytes and stays borrowed until the scope has
        // synchronized the stream; `src` is live device memory of the current context until
        // this copy has run; any bit pattern is a valid `T`.
        unsafe {
            ffi::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr().cast(), ptr, len * size_of::<T>(), self.raw)
        }
        .result()
    }

    /// `cuMemcpyDtoDAsync`—Enqueues a device-to-device copy. The two ranges cannot overlap:
    /// `dst` is written through an exclusive binding, which no shared binding aliases.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyDtoDAsync")]
    #[inline]
    pub fn copy_device<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'scope, T>,
        src: impl ScopedRead<'scope, T>,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let ((dst, len), (src, src_len)) = (dst.raw_parts(), src.raw_parts());
        check_same_len("copy_device", len, src_len)?;
        // SAFETY: both are live device memory of the current context until this copy has run,
        // and disjoint: `dst` comes from an exclusive binding or `&mut` allocation, which the
        // borrow checker keeps from aliasing any other binding or allocation of the scope.
        unsafe { ffi::cuMemcpyDtoDAsync_v2(dst, src, len * size_of::<T>(), self.raw) }.result()
    }

    /// `cuMemsetD8Async`—Enqueues setting every byte of `dst` to `value`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemsetD8Async")]
    #[inline]
    pub fn fill_bytes<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'scope, T>,
        value: u8,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let (ptr, len) = dst.raw_parts();
        // SAFETY: `dst` is live device memory of the current context until this memset has run.
        unsafe { ffi::cuMemsetD8Async(ptr, value, len * size_of::<T>(), self.raw) }.result()
    }

    /// `cuMemsetD16Async`—Enqueues setting every 16-bit word of `dst` to `value`.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` (no driver call) if `dst` is not 2-byte aligned or not a
    /// whole number of 16-bit words.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemsetD16Async")]
    #[inline]
    pub fn fill_u16<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'scope, T>,
        value: u16,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let (ptr, len) = dst.raw_parts();
        let bytes = len * size_of::<T>();
        crate::memory::check_memset_unit(ptr, bytes, 2)?;
        // SAFETY: `dst` is live device memory of the current context until this memset has run.
        unsafe { ffi::cuMemsetD16Async(ptr, value, bytes / 2, self.raw) }.result()
    }

    /// `cuMemsetD32Async`—Enqueues setting every 32-bit word of `dst` to `value`.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` (no driver call) if `dst` is not 4-byte aligned or not a
    /// whole number of 32-bit words.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemsetD32Async")]
    #[inline]
    pub fn fill_u32<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'scope, T>,
        value: u32,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let (ptr, len) = dst.raw_parts();
        let bytes = len * size_of::<T>();
        crate::memory::check_memset_unit(ptr, bytes, 4)?;
        // SAFETY: as in `fill_u16`.
        unsafe { ffi::cuMemsetD32Async(ptr, value, bytes / 4, self.raw) }.result()
    }

    /// `cuEventRecord`—Records `event` on the scope's stream.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported) in a capture's scope (or any
    /// call inside a capture's closure), before the driver: an event recorded in a capture
    /// lets any stream that waits for it join the capture (C28.16); streams join a capture
    /// through [`Stream::capture_forks`](crate::Stream::capture_forks). The driver's error;
    /// after a sticky error (or in a forked child) that error, without calling the driver.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventRecord")]
    #[inline]
    pub fn record(&self, event: &Event<'_>) -> Result<()> {
        record_event(self.raw, event)
    }

    /// `cuStreamWaitEvent`—Makes later work in this scope wait for `event`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported) inside a capture's closure,
    /// before the driver (C28.16, as [`record`](Self::record)); the driver's error; after a
    /// sticky error (or in a forked child) that error, without calling the driver.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamWaitEvent")]
    #[inline]
    pub fn wait(&self, event: &Event<'_>) -> Result<()> {
        wait_event(self.raw, event)
    }

    /// `cuLaunchHostFunc`—Enqueues a call of `f` on the host, in stream order: after all work
    /// enqueued before it, and before any work enqueued after it starts.
    ///
    /// The driver calls `f` on a thread of its own, so it must be `Send + 'static` (it cannot
    /// borrow what the scope binds: it would run while the GPU may use it). It must not call the
    /// CUDA API (the driver documents that such a call may deadlock or fail with
    /// `CUDA_ERROR_NOT_PERMITTED`), and it delays the stream's later work while it runs.
    ///
    /// A panic in `f` is caught before it reaches the driver and reported, as
    /// [`ErrorKind::HostFunctionPanicked`](crate::ErrorKind::HostFunctionPanicked) with the
    /// panic's message, by the next wait of this context: the end of a scope,
    /// [`Submission::wait`](crate::Submission::wait) or `try_wait`, [`Stream::synchronize`].
    ///
    /// # Errors
    ///
    /// The driver's error; then `f` is dropped without being called.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// use std::sync::mpsc;
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let (tx, rx) = mpsc::channel();
    /// let pending = stream.submit(guard.alloc::<u8>(1 << 20)?, |s, mut buf| {
    ///     s.fill_bytes(&mut buf, 0)?;
    ///     s.host_fn(move || tx.send("filled").unwrap_or(())) // runs once the memset is done
    /// })?;
    /// assert_eq!(rx.recv().ok(), Some("filled"));
    /// let _buf = pending.wait()?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchHostFunc")]
    pub fn host_fn(&self, f: impl FnOnce() + Send + 'static) -> Result<()> {
        super::host::enqueue(self.raw, super::host::Call::InOrder, f)
    }
}

#[cfg(test)]
mod tests {
    use super::StreamScope;
    use crate::asynchronous::InCapture;
    use crate::asynchronous::event::Event;
    use crate::asynchronous::stream::Stream;
    use crate::error::ErrorKind;
    use core::mem::ManuallyDrop;

    /// Inside a capture's closure every event record and wait (the stream's, its scope's, the
    /// one of a parked submission's) is refused before the driver (C28.16): the handles here
    /// are null and no context is current, so a call that reached the driver would fail with
    /// another error (`CUDA_ERROR_NOT_INITIALIZED`, `CUDA_ERROR_NO_DEVICE` or an invalid
    /// handle), not `NotSupported` with custack's detail.
    #[test]
    fn event_records_and_waits_are_refused_inside_a_capture_before_the_driver() {
        let stream = ManuallyDrop::new(Stream::for_tests(core::ptr::null_mut()));
        let event = ManuallyDrop::new(Event::for_tests(core::ptr::null_mut()));
        let inside = InCapture::enter();
        // SAFETY: the scope is only asked to record and wait, both refused before the driver.
        let scope = unsafe { StreamScope::of(&stream) };
        let refused = [
            ("Stream::record", stream.record(&event)),
            ("Stream::wait", stream.wait(&event)),
            ("StreamScope::record", scope.record(&event)),
            ("StreamScope::wait", scope.wait(&event)),
        ];
        drop(inside);
        for (what, got) in refused {
            let e = got.expect_err(what);
            assert_eq!(e.kind(), ErrorKind::NotSupported, "{what}: {e}");
            assert!(
                e.to_string().contains("inside a graph capture's closure")
                    && e.to_string().contains("capture_forks"),
                "{what}: {e}"
            );
        }
    }

    /// In a forked child (R22; a poisoned process takes the same check, R20) a scope's stream
    /// allocation, host function, event record and wait, and the stream's, are refused before
    /// the driver as `ForkedProcess`: the handles are null and no context is current, so a call
    /// that reached the driver would fail with another error. The host function is dropped,
    /// never called. Each call's check was missing until a review found it (`Stream::record`
    /// and `wait`, `StreamScope::alloc`, `host_fn`; the copies and fills, by the tenth
    /// session's review of the restricted profile).
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_forked_child_s_scope_calls_are_refused_before_the_driver() {
        use crate::vocabulary::binding::{ScopedSlice, ScopedSliceMut};
        crate::alone::rerun_alone!(a_forked_child_s_scope_calls_are_refused_before_the_driver);
        crate::error::poison::watch_forks().expect("the fork watch");
        // SAFETY: the child makes only refused calls (no driver call, no lock another thread
        // may hold: the poison record and the fork flag are atomics) and `_exit`s.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let stream = ManuallyDrop::new(Stream::for_tests(core::ptr::null_mut()));
            let event = ManuallyDrop::new(Event::for_tests(core::ptr::null_mut()));
            // SAFETY: the scope is only asked for calls refused before the driver.
            let scope = unsafe { StreamScope::of(&stream) };
            let called = std::sync::Arc::new(core::sync::atomic::AtomicBool::new(false));
            let flag = std::sync::Arc::clone(&called);
            let (host, mut back) = ([0u32; 4], [0u32; 4]);
            // SAFETY: an address no call dereferences: every call below is refused before the
            // driver (a call that reached it would fail with another error, no context being
            // current in the child).
            let mut dst = unsafe { ScopedSliceMut::<u32>::from_raw_parts(0x1000, 4) };
            // SAFETY: as `dst`.
            let src = unsafe { ScopedSlice::<u32>::from_raw_parts(0x2000, 4) };
            let kinds = [
                scope.alloc::<u32>(4).map(drop),
                scope.host_fn(move || flag.store(true, core::sync::atomic::Ordering::SeqCst)),
                scope.record(&event),
                scope.wait(&event),
                stream.record(&event),
                stream.wait(&event),
                scope.copy_to_device(&mut dst, &host[..]),
                scope.copy_to_host(&mut back[..], src),
                scope.copy_device(&mut dst, src),
                scope.fill_bytes(&mut dst, 1),
                scope.fill_u16(&mut dst, 1),
                scope.fill_u32(&mut dst, 1),
            ]
            .map(|r| r.err().map(|e| e.kind()));
            let refused = kinds.iter().all(|k| *k == Some(ErrorKind::ForkedProcess))
                && !called.load(core::sync::atomic::Ordering::SeqCst)
                && std::sync::Arc::strong_count(&called) == 1;
            // SAFETY: ends the child at once, running nothing of the parent's.
            unsafe { libc::_exit(i32::from(!refused)) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
        assert_eq!(
            libc::WEXITSTATUS(status),
            0,
            "a forked child's scope call was not refused as ForkedProcess before the driver"
        );
    }

    /// Once the process is poisoned, a scope's copies and fills are refused with the first
    /// sticky error before the driver (R20), in a scope opened before the poison too (the one
    /// way to reach them: a scope opened after it is refused). The process runs this test alone
    /// (it poisons it); no context is current and no `cuInit` was made, so a call that reached
    /// the driver would answer another error (`CUDA_ERROR_NOT_INITIALIZED`), not 700. The
    /// checks were missing until the tenth session's review of the restricted profile.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_poisoned_process_s_scope_copies_and_fills_are_refused_before_the_driver() {
        use crate::ffi;
        use crate::vocabulary::binding::{ScopedSlice, ScopedSliceMut};
        crate::alone::rerun_alone!(
            a_poisoned_process_s_scope_copies_and_fills_are_refused_before_the_driver
        );
        let sticky = ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS;
        // Poisons this process, which runs this test alone.
        assert!(sticky.result().is_err());
        assert!(crate::error::poison::poisoned().is_some(), "not poisoned");
        let stream = ManuallyDrop::new(Stream::for_tests(core::ptr::null_mut()));
        // SAFETY: the scope is only asked for calls refused before the driver.
        let scope = unsafe { StreamScope::of(&stream) };
        let (host, mut back) = ([0u32; 4], [0u32; 4]);
        // SAFETY: an address no call dereferences: every call below is refused before the
        // driver.
        let mut dst = unsafe { ScopedSliceMut::<u32>::from_raw_parts(0x1000, 4) };
        // SAFETY: as `dst`.
        let src = unsafe { ScopedSlice::<u32>::from_raw_parts(0x2000, 4) };
        let codes = [
            scope.copy_to_device(&mut dst, &host[..]),
            scope.copy_to_host(&mut back[..], src),
            scope.copy_device(&mut dst, src),
            scope.fill_bytes(&mut dst, 1),
            scope.fill_u16(&mut dst, 1),
            scope.fill_u32(&mut dst, 1),
        ]
        .map(|r| r.err().and_then(|e| e.code()));
        assert_eq!(
            codes,
            [Some(sticky); 6],
            "a call was not refused with the poison"
        );
    }
}
