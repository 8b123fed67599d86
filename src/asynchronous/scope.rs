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
use crate::asynchronous::stream::{Stream, record_event, wait_event};
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::kernel::launch::{DevicePtr, Function, KernelArg, KernelArgs, LaunchConfig, sealed};
use crate::memory::plain::DeviceCopy;
use crate::memory::{DeviceMemory, DeviceMemoryMut, check_alloc_len, check_same_len};
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
    /// synchronization's error: the first error of the work in the scope, or a sticky
    /// error. The borrows end only once no work of the scope can still run: if the
    /// synchronization fails without a sticky error, the stream is polled until it is idle
    /// (`cuStreamQuery`), then the context synchronized; if the driver cannot confirm either,
    /// the process aborts rather than release memory the GPU may still use. [`ErrorKind::HostFunctionPanicked`](crate::ErrorKind::HostFunctionPanicked) if a
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
    pub fn scope<'env, R>(
        &'env self,
        f: impl for<'scope> FnOnce(&'scope StreamScope<'scope, 'env>) -> R,
    ) -> Result<R> {
        super::refuse_inside_capture("a stream scope")?;
        // SAFETY: the stream is live and of the current context (lent by the current guard,
        // borrowed for 'env); the scope is waited for below, or by `waiter` on unwind.
        let scope = unsafe { StreamScope::from_raw(self.as_raw()) };
        let waiter = SyncOnDrop(self.as_raw());
        let value = f(&scope);
        core::mem::forget(waiter);
        super::wait_stream(self.as_raw())?;
        super::host::check_panics()?;
        Ok(value)
    }
}

/// Waits for the stream if a scope's closure unwinds, so borrowed memory is released only after
/// the GPU is done with it.
struct SyncOnDrop(ffi::CUstream);

impl Drop for SyncOnDrop {
    fn drop(&mut self) {
        // The stream is live (borrowed by the scope).
        if let Err(e) = super::wait_stream(self.0) {
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
    // Invariant in 'scope and 'env, as `std::thread::Scope`: borrows for 'scope cannot be
    // shortened to end before the scope does.
    _scope: PhantomData<&'scope mut &'scope ()>,
    _env: PhantomData<(&'env mut &'env (), *const ())>,
}

static_assertions::assert_eq_size!(StreamScope<'static, 'static>, ffi::CUstream);

impl StreamScope<'_, '_> {
    /// # Safety
    ///
    /// `raw` must be a live stream of the current context that stays so for the returned
    /// lifetimes, and whoever hands the scope out must wait for the stream (or an event
    /// recorded on it after the scope's work) before anything the scope's operations borrow
    /// for `'scope` is released.
    #[inline]
    pub(crate) unsafe fn from_raw(raw: ffi::CUstream) -> Self {
        Self {
            raw,
            _scope: PhantomData,
            _env: PhantomData,
        }
    }
}

impl<T: DeviceCopy> ScopedSliceMut<'_, T> {
    /// # Safety
    ///
    /// `ptr..ptr + len * size_of::<T>()` must be live device memory of the current context,
    /// reached by nothing else until the scope's work is complete.
    #[inline]
    pub(crate) unsafe fn from_raw_parts(ptr: ffi::CUdeviceptr, len: usize) -> Self {
        Self {
            ptr,
            len,
            _marker: PhantomData,
        }
    }
}

impl<T: DeviceCopy> ScopedHostMut<'_, T> {
    /// # Safety
    ///
    /// `ptr` must be valid for reads and writes of `len` elements, reached by nothing else
    /// until the scope's work is complete.
    #[inline]
    pub(crate) unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        Self {
            ptr,
            len,
            _marker: PhantomData,
        }
    }
}

/// Device memory bound to a [`StreamScope`] for reading: a `Copy` handle, usable in any
/// number of operations of that scope (they run in stream order), invariant in `'scope` so it
/// cannot be used in another scope (another stream, running concurrently).
#[derive(Debug, Clone, Copy)]
pub struct ScopedSlice<'scope, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: PhantomData<(Invariant<'scope>, *const T)>,
}

/// Device memory bound exclusively to a [`StreamScope`]: readable and writable by the scope's
/// operations, in stream order; nothing outside the scope can touch it until the scope ends.
///
/// Not `Copy`: operations take `&` or `&mut` of it, so one launch cannot receive the same
/// memory both shared and mutable, or mutable twice (C14). Its memory stays bound for the whole
/// scope, so a borrow of the handle of any length is enough.
#[derive(Debug)]
pub struct ScopedSliceMut<'scope, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: PhantomData<(Invariant<'scope>, *const T)>,
}

/// Host memory bound to a [`StreamScope`] for reading by its copies. `&'scope [T]` converts
/// into it, so binding is only needed to use memory both ways in one scope.
#[derive(Debug, Clone, Copy)]
pub struct ScopedHost<'scope, T: DeviceCopy> {
    ptr: *const T,
    len: usize,
    _marker: PhantomData<Invariant<'scope>>,
}

/// Host memory bound exclusively to a [`StreamScope`]: its copies may read and write it, in
/// stream order; the host cannot touch it until the scope ends. `&'scope mut [T]` converts
/// into it.
///
/// "Exclusive" is towards the host, not between the scope's own operations: the value is `Copy`,
/// so several copies of one scope may write and read the same memory. That is sound because
/// every operation that can take a `ScopedHostMut<'scope, _>` is enqueued on the one stream of
/// the scope branded `'scope` (`'scope` is invariant, so a nested scope on another stream cannot
/// take it), and a stream runs its operations one after another: they never overlap.
#[derive(Debug, Clone, Copy)]
pub struct ScopedHostMut<'scope, T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    _marker: PhantomData<Invariant<'scope>>,
}

impl<T: DeviceCopy> ScopedHost<'_, T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub(crate) fn as_ptr(&self) -> *const T {
        self.ptr
    }
}

impl<T: DeviceCopy> ScopedHostMut<'_, T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub(crate) fn as_mut_ptr(&self) -> *mut T {
        self.ptr
    }
}

impl<'scope, T: DeviceCopy> From<&'scope [T]> for ScopedHost<'scope, T> {
    fn from(s: &'scope [T]) -> Self {
        Self {
            ptr: s.as_ptr(),
            len: s.len(),
            _marker: PhantomData,
        }
    }
}
impl<'scope, T: DeviceCopy> From<ScopedHostMut<'scope, T>> for ScopedHost<'scope, T> {
    fn from(m: ScopedHostMut<'scope, T>) -> Self {
        Self {
            ptr: m.ptr,
            len: m.len,
            _marker: PhantomData,
        }
    }
}
impl<'scope, T: DeviceCopy> From<&'scope mut [T]> for ScopedHostMut<'scope, T> {
    fn from(s: &'scope mut [T]) -> Self {
        Self {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            _marker: PhantomData,
        }
    }
}

// `impl Into<…>` arguments do not deref-coerce, so the common owners convert directly.
macro_rules! host_from {
    ($([$($g:tt)*] $ty:ty),*) => {$(
        impl<'scope, T: DeviceCopy $($g)*> From<&'scope $ty> for ScopedHost<'scope, T> {
            fn from(s: &'scope $ty) -> Self {
                (&s[..]).into()
            }
        }
        impl<'scope, T: DeviceCopy $($g)*> From<&'scope mut $ty> for ScopedHost<'scope, T> {
            fn from(s: &'scope mut $ty) -> Self {
                (&s[..]).into()
            }
        }
        impl<'scope, T: DeviceCopy $($g)*> From<&'scope mut $ty> for ScopedHostMut<'scope, T> {
            fn from(s: &'scope mut $ty) -> Self {
                (&mut s[..]).into()
            }
        }
    )*};
}
host_from!(
    [] Vec<T>,
    [] crate::PinnedBuffer<'_, T>,
    [] crate::RegisteredHost<'_, '_, T>,
    [] crate::RegisteredVec<'_, T>,
    [] crate::ParkedPinned<'_, T>,
    [] crate::ParkedRegisteredVec<'_, T>,
    [, const N: usize] [T; N]
);

/// `'scope` invariant: a handle of one scope is never accepted by another.
pub(crate) type Invariant<'scope> = fn(&'scope ()) -> &'scope ();

static_assertions::assert_eq_size!(ScopedSliceMut<'static, u8>, (ffi::CUdeviceptr, usize));

impl<'scope, T: DeviceCopy> From<ScopedSliceMut<'scope, T>> for ScopedSlice<'scope, T> {
    fn from(m: ScopedSliceMut<'scope, T>) -> Self {
        Self {
            ptr: m.ptr,
            len: m.len,
            _marker: PhantomData,
        }
    }
}

macro_rules! scoped_common {
    ($ty:ident) => {
        impl<T: DeviceCopy> $ty<'_, T> {
            /// The number of elements.
            pub fn len(&self) -> usize {
                self.len
            }
            /// Whether there are no elements.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }
            /// The device address of the first element.
            pub fn device_ptr(&self) -> ffi::CUdeviceptr {
                self.ptr
            }
        }
    };
}
scoped_common!(ScopedSlice);
scoped_common!(ScopedSliceMut);

/// Device memory allocated in stream order on a [`StreamScope`] ([`StreamScope::alloc`]),
/// freed in stream order (`cuMemFreeAsync`) when dropped. Branded with the scope, so it cannot
/// leave it; operations take it by reference, so none can use it after its free is enqueued.
#[derive(Debug)]
#[doc(alias = "cuMemAllocAsync")]
pub struct ScopedAlloc<'scope, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    stream: ffi::CUstream,
    _marker: PhantomData<(Invariant<'scope>, *const T)>,
}

impl<T: DeviceCopy> ScopedAlloc<'_, T> {
    /// # Safety
    ///
    /// `ptr` must be a stream-ordered allocation of `len` elements made on `stream`, a live
    /// stream of the current context, owned by the returned value.
    pub(crate) unsafe fn from_raw_parts(
        ptr: ffi::CUdeviceptr,
        len: usize,
        stream: ffi::CUstream,
    ) -> Self {
        Self {
            ptr,
            len,
            stream,
            _marker: PhantomData,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements (never: allocations are non-empty).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device address of the first element.
    pub fn device_ptr(&self) -> ffi::CUdeviceptr {
        self.ptr
    }

    /// `cuMemFreeAsync`—Enqueues the free on the scope's stream, returning the driver's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemFreeAsync")]
    pub fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: allocated by `cuMemAllocAsync` on `stream`, freed once (`this` never drops),
        // in stream order after every operation that used it.
        unsafe { ffi::cuMemFreeAsync(this.ptr, this.stream) }.result()
    }
}

impl<T: DeviceCopy> Drop for ScopedAlloc<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: as in `free`. The stream is live: the scope borrows it, and the allocation
        // cannot outlive the scope.
        if let Err(e) = unsafe { ffi::cuMemFreeAsync(self.ptr, self.stream) }.result() {
            record_drop_error(e);
        }
    }
}

mod scoped_sealed {
    pub trait Sealed {}
}

/// Device memory that the operations of the scope `'scope` may read: a [`ScopedSlice`], a
/// [`ScopedSliceMut`] or a reference to one, or a reference to a [`ScopedAlloc`] of that
/// scope. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not device memory of `{T}` bound to this scope",
    note = "bind device memory to the scope first: `let a = s.bind(&x);` and pass `a`, or `let b = s.bind_mut(&mut y);` and pass `&b` or `&mut b`; a `ScopedAlloc` is passed by reference"
)]
pub trait ScopedRead<'scope, T: DeviceCopy>: scoped_sealed::Sealed + Sized {
    /// The device address and the number of elements.
    #[doc(hidden)]
    fn raw_parts(self) -> (ffi::CUdeviceptr, usize);
}

/// Device memory that the operations of the scope `'scope` may write: a [`ScopedSliceMut`],
/// `&mut` one, or `&mut` a [`ScopedAlloc`] of that scope. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not device memory of `{T}` this scope may write",
    note = "a destination is bound with `bind_mut`: `let b = s.bind_mut(&mut y);` and pass `&mut b` (or `b`); a `s.bind(&x)` binding only reads; a `ScopedAlloc` is passed as `&mut`"
)]
pub trait ScopedWrite<'scope, T: DeviceCopy>: ScopedRead<'scope, T> {}

macro_rules! scoped_read {
    ($([$($lt:lifetime)?] $ty:ty),* ; write: $([$($wlt:lifetime)?] $wty:ty),*) => {
        $(
            impl<$($lt,)? 'scope, T: DeviceCopy> scoped_sealed::Sealed for $ty {}
            impl<$($lt,)? 'scope, T: DeviceCopy> ScopedRead<'scope, T> for $ty {
                #[inline]
                fn raw_parts(self) -> (ffi::CUdeviceptr, usize) {
                    (self.ptr, self.len)
                }
            }
        )*
        $(impl<$($wlt,)? 'scope, T: DeviceCopy> ScopedWrite<'scope, T> for $wty {})*
    };
}
scoped_read!(
    [] ScopedSlice<'scope, T>, [] ScopedSliceMut<'scope, T>,
    ['a] &'a ScopedSliceMut<'scope, T>, ['a] &'a mut ScopedSliceMut<'scope, T>,
    ['a] &'a ScopedAlloc<'scope, T>, ['a] &'a mut ScopedAlloc<'scope, T>;
    write: [] ScopedSliceMut<'scope, T>, ['a] &'a mut ScopedSliceMut<'scope, T>,
        ['a] &'a mut ScopedAlloc<'scope, T>
);

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
        ScopedSlice {
            ptr: memory.device_ptr(),
            len: memory.len(),
            _marker: PhantomData,
        }
    }

    /// Binds device memory to this scope exclusively, for reading and writing, until the
    /// scope ends.
    pub fn bind_mut<T: DeviceCopy, M: DeviceMemoryMut<T> + ?Sized>(
        &self,
        memory: &'scope mut M,
    ) -> ScopedSliceMut<'scope, T> {
        ScopedSliceMut {
            ptr: memory.device_ptr(),
            len: memory.len(),
            _marker: PhantomData,
        }
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
    /// `CUDA_ERROR_OUT_OF_MEMORY`, `CUDA_ERROR_NOT_SUPPORTED` on devices without memory pools.
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
        let ((ptr, len), src) = (dst.raw_parts(), src.into());
        check_same_len("copy_to_device", len, src.len)?;
        // SAFETY: `src` is readable for the copied bytes and stays borrowed until the scope has
        // synchronized the stream; `dst` is live device memory of the current context that
        // stays so until this copy has run (bound for the scope, or freed in stream order).
        unsafe { ffi::cuMemcpyHtoDAsync_v2(ptr, src.ptr.cast(), len * size_of::<T>(), self.raw) }
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
        let (dst, (ptr, len)) = (dst.into(), src.raw_parts());
        check_same_len("copy_to_host", dst.len, len)?;
        // SAFETY: `dst` is writable for the copied bytes and stays borrowed until the scope has
        // synchronized the stream; `src` is live device memory of the current context until
        // this copy has run; any bit pattern is a valid `T`.
        unsafe { ffi::cuMemcpyDtoHAsync_v2(dst.ptr.cast(), ptr, len * size_of::<T>(), self.raw) }
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
        let (ptr, len) = dst.raw_parts();
        let bytes = len * size_of::<T>();
        crate::memory::check_memset_unit(ptr, bytes, 4)?;
        // SAFETY: as in `fill_u16`.
        unsafe { ffi::cuMemsetD32Async(ptr, value, bytes / 4, self.raw) }.result()
    }

    /// `cuEventRecord`—Records `event` on the scope's stream.
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
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamWaitEvent")]
    #[inline]
    pub fn wait(&self, event: &Event<'_>) -> Result<()> {
        wait_event(self.raw, event)
    }

    /// `cuLaunchKernelEx`—Enqueues a kernel launch with launch attributes: thread-block
    /// clusters (compute capability 9.0), priority, programmatic stream serialization,
    /// cooperative.
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch).
    ///
    /// # Errors
    ///
    /// As [`launch`](Self::launch); `CUDA_ERROR_INVALID_CLUSTER_SIZE` for a cluster that does
    /// not divide the grid or is too large.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernelEx")]
    #[allow(clippy::needless_pass_by_value)]
    pub unsafe fn launch_with<A: KernelArgs<'scope>>(
        &self,
        function: &Function<'scope>,
        config: LaunchConfig,
        attributes: &crate::LaunchAttributes,
        args: A,
    ) -> Result<()> {
        let mut attrs = attributes.raw();
        let raw_config = ffi::CUlaunchConfig {
            gridDimX: config.grid.0,
            gridDimY: config.grid.1,
            gridDimZ: config.grid.2,
            blockDimX: config.block.0,
            blockDimY: config.block.1,
            blockDimZ: config.block.2,
            sharedMemBytes: config.shared_mem_bytes,
            hStream: self.raw,
            attrs: attrs.as_mut_ptr(),
            numAttrs: attrs.len() as core::ffi::c_uint,
        };
        args.with_params(|params| {
            // SAFETY: as in `launch`; `raw_config` and the attributes it points to live for the
            // call.
            unsafe {
                ffi::cuLaunchKernelEx(
                    &raw const raw_config,
                    function.as_raw(),
                    params,
                    core::ptr::null_mut(),
                )
            }
            .result()
        })
    }

    /// `cuLaunchCooperativeKernel`—Enqueues a launch whose blocks may synchronize with each
    /// other as they run (a grid-wide barrier): every block is resident at once. The grid is
    /// checked first against the device: cooperative launches supported, and no more blocks
    /// than `max_active_blocks_per_sm × SMs`.
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch).
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE` (before any launch) for a grid that cannot be
    /// resident at once, with the limit in the detail; `CUDA_ERROR_NOT_SUPPORTED` where the
    /// device has no cooperative launch; as [`launch`](Self::launch).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchCooperativeKernel")]
    #[allow(clippy::needless_pass_by_value)]
    pub unsafe fn launch_cooperative<A: KernelArgs<'scope>>(
        &self,
        function: &Function<'scope>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        crate::kernel::launch::check_cooperative(function, config)?;
        args.with_params(|params| {
            // SAFETY: as in `launch`.
            unsafe {
                ffi::cuLaunchCooperativeKernel(
                    function.as_raw(),
                    config.grid.0,
                    config.grid.1,
                    config.grid.2,
                    config.block.0,
                    config.block.1,
                    config.block.2,
                    config.shared_mem_bytes,
                    self.raw,
                    params,
                )
            }
            .result()
        })
    }

    /// `cuLaunchKernel`—Enqueues a launch of a [`Kernel`](crate::Kernel) whose signature was
    /// checked when it was looked up ([`Module::kernel`](crate::Module::kernel)): `args` must
    /// have exactly that signature, which the compiler checks; nothing is checked at run time.
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch), but the kernel's parameter list is known to match `args` in
    /// number, offsets and sizes (where the driver could tell, CUDA 12.4+): what is left to the
    /// caller is that the kernel touches only the memory it is passed, within its length, and
    /// writes only through arguments passed mutably.
    ///
    /// # Errors
    ///
    /// As [`launch`](Self::launch).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::{DevicePtr, LaunchConfig};
    /// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// // add_u32(unsigned* x, unsigned k, unsigned n), checked once against the kernel (CUDA 12.4+)
    /// let add = module.kernel::<(DevicePtr<u32>, u32, u32)>("add_u32")?;
    /// let mut x = guard.alloc_zeroed::<u32>(1024)?;
    /// guard.stream()?.scope(|s| {
    ///     let mut dx = s.bind_mut(&mut x);
    ///     // SAFETY: add_u32 touches x[0..n), and x holds n elements.
    ///     unsafe { s.launch_kernel(&add, LaunchConfig::for_elements(1024), (&mut dx, 1u32, 1024u32)) }
    /// })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernel")]
    #[inline]
    #[allow(clippy::needless_pass_by_value)]
    pub unsafe fn launch_kernel<A: KernelArgs<'scope>>(
        &self,
        kernel: &crate::Kernel<'scope, A::Params>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        // SAFETY: the caller's promise, as for `launch`.
        unsafe { self.launch(&kernel.function(), config, args) }
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

    /// `cuLaunchKernel`—Enqueues a kernel launch.
    ///
    /// For a kernel whose parameters and buffer extents you can state, declare it once with
    /// [`kernel_contract!`](crate::kernel_contract) and launch it with the safe
    /// [`run`](Self::run) instead; this `unsafe` launch is for kernels one cannot describe.
    ///
    /// `args` is a tuple of plain data (passed by value) and device memory of this scope
    /// ([`ScopedSlice`], [`ScopedSliceMut`], `&`/`&mut` [`ScopedAlloc`]; passed as device
    /// pointers). `function`'s module must outlive the scope (`Function<'scope>`), so it cannot
    /// be unloaded while the kernel may run (C9).
    ///
    /// # Safety
    ///
    /// The kernel is unchecked code:
    /// - its parameter list must match `args` in number, order and type;
    /// - every address it dereferences must come from a device-memory argument of this launch
    ///   ([`ScopedSlice`], [`ScopedSliceMut`], `&`/`&mut` [`ScopedAlloc`]), within that
    ///   argument's length; it writes only through arguments passed mutably;
    /// - plain-data arguments are values, never addresses: an integer holding a device address
    ///   (from `device_ptr()`, say) must not be dereferenced, because nothing keeps the memory
    ///   it names alive, bound or unaliased while the kernel runs.
    ///
    /// # Errors
    ///
    /// Launch errors (`CUDA_ERROR_INVALID_VALUE` for a block larger than the device allows,
    /// too much shared memory, ...). Faults inside the kernel surface at the scope's end.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::LaunchConfig;
    /// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let add = module.function("add_u32")?;
    /// let mut x = guard.alloc_from(&[1u32; 1024])?;
    /// guard.stream()?.scope(|s| {
    ///     let mut dx = s.bind_mut(&mut x);
    ///     // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n), and x holds n
    ///     // elements.
    ///     unsafe { s.launch(&add, LaunchConfig::for_elements(1024), (&mut dx, 41u32, 1024u32)) }
    /// })??; // launch errors (inner), faults while running (outer)
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernel")]
    #[inline]
    // Taking the tuple by value lets callers write `(&da, &mut db, n)` in place.
    #[allow(clippy::needless_pass_by_value)]
    pub unsafe fn launch<A: KernelArgs<'scope>>(
        &self,
        function: &Function<'scope>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        args.with_params(|params| {
            // SAFETY: `function` is a live function of a module of the current context that
            // outlives the scope;
            // `params` points to one pointer per argument, each to a live value of the type the
            // caller promised the kernel takes; device memory arguments stay borrowed until the
            // scope has synchronized the stream.
            unsafe {
                ffi::cuLaunchKernel(
                    function.as_raw(),
                    config.grid.0,
                    config.grid.1,
                    config.grid.2,
                    config.block.0,
                    config.block.1,
                    config.block.2,
                    config.shared_mem_bytes,
                    self.raw,
                    params,
                    core::ptr::null_mut(),
                )
            }
            .result()
        })
    }
}

// Device memory bound to a scope is a kernel argument of that scope (C15), passed as its device
// pointer.
macro_rules! device_arg {
    ($($ty:ident),*) => {$(
        impl<T: DeviceCopy> sealed::Sealed for $ty<'_, T> {}
        impl<'scope, T: DeviceCopy> KernelArg<'scope> for $ty<'scope, T> {
            type Raw = ffi::CUdeviceptr;
            type Param = DevicePtr<T>;
            #[inline]
            fn to_raw(&self) -> ffi::CUdeviceptr {
                self.device_ptr()
            }
        }
    )*};
}
device_arg!(ScopedSlice, ScopedSliceMut);

// A mutable binding is passed by reference (`&x` to read, `&mut x` to write), so one launch
// cannot alias it; the memory stays bound for the whole scope, so any borrow is enough.
impl<T: DeviceCopy> sealed::Sealed for &ScopedSliceMut<'_, T> {}
impl<T: DeviceCopy> sealed::Sealed for &mut ScopedSliceMut<'_, T> {}
impl<'scope, T: DeviceCopy> KernelArg<'scope> for &ScopedSliceMut<'scope, T> {
    type Raw = ffi::CUdeviceptr;
    type Param = DevicePtr<T>;
    #[inline]
    fn to_raw(&self) -> ffi::CUdeviceptr {
        self.device_ptr()
    }
}
impl<'scope, T: DeviceCopy> KernelArg<'scope> for &mut ScopedSliceMut<'scope, T> {
    type Raw = ffi::CUdeviceptr;
    type Param = DevicePtr<T>;
    #[inline]
    fn to_raw(&self) -> ffi::CUdeviceptr {
        self.device_ptr()
    }
}

// A stream-ordered allocation is passed by reference: its free is enqueued on the same stream
// when it drops, after this launch, so a borrow shorter than the scope is enough.
impl<T: DeviceCopy> sealed::Sealed for &ScopedAlloc<'_, T> {}
impl<T: DeviceCopy> sealed::Sealed for &mut ScopedAlloc<'_, T> {}
impl<'scope, T: DeviceCopy> KernelArg<'scope> for &ScopedAlloc<'scope, T> {
    type Raw = ffi::CUdeviceptr;
    type Param = DevicePtr<T>;
    #[inline]
    fn to_raw(&self) -> ffi::CUdeviceptr {
        self.device_ptr()
    }
}
impl<'scope, T: DeviceCopy> KernelArg<'scope> for &mut ScopedAlloc<'scope, T> {
    type Raw = ffi::CUdeviceptr;
    type Param = DevicePtr<T>;
    #[inline]
    fn to_raw(&self) -> ffi::CUdeviceptr {
        self.device_ptr()
    }
}
