//! Page-locked host memory parked across a nested push.
//!
//! A [`PinnedBuffer`] is lent by a guard, like device memory, because the driver frees
//! page-locked memory with the context that allocated it (`cuCtxDestroy` frees its
//! `cuMemHostAlloc` allocations). That keeps it from crossing a nested push, which is exactly
//! where two-context programs stage data. Parking is the way across, as for device buffers
//! ([`PushedGuard::park`]): [`PushedGuard::park_pinned`] turns the buffer into a
//! [`ParkedPinned`] that borrows only the [`Context`], and [`PushedGuard::attach_pinned`] turns
//! it back after a pointer compare, without a driver call.
//!
//! Unlike a parked device buffer, a parked page-locked buffer stays usable: its host side is a
//! slice (reading and writing host memory needs no context), so it dereferences to `[T]` under
//! any context, and every context's stream scopes take it as host memory (`&parked`,
//! `&mut parked`), borrowed until the scope has synchronized, as any host memory is (C11).
//! custack allocates page-locked memory with `CU_MEMHOSTALLOC_PORTABLE`, which the driver
//! documents as "considered as pinned memory by all CUDA contexts, not just the one that
//! performed the allocation", so another context's copies from and to it are truly
//! asynchronous (with unified addressing it is accessible to all contexts anyway).
//!
//! It is not a [`Payload`](crate::Payload): a submission can be leaked (R11), which ends its
//! borrow of the allocating context, and destroying that context frees the pages while a leaked
//! submission of *another* context might still copy to them. Its own context's submissions take
//! it after [`attach_pinned`](PushedGuard::attach_pinned).
//!
//! Freeing: the driver documents neither which context must be current for `cuMemFreeHost`
//! nor what freeing another context's page-locked memory does, only that destroying a context
//! frees its page-locked allocations. So a parked buffer is freed the way a parked device
//! buffer is: its own context is pushed briefly on the dropping thread around `cuMemFreeHost`.
//!
//! Registered host memory ([`RegisteredVec`]) has the same limit (it is lent by a guard, and
//! unregistered in its context) and parks the same way: [`PushedGuard::park_registered`],
//! [`ParkedRegisteredVec`], [`PushedGuard::attach_registered`]; it is registered with
//! `CU_MEMHOSTREGISTER_PORTABLE`. A [`RegisteredHost`](crate::RegisteredHost) borrows its slice
//! and is parked by registering a vector instead.

use crate::context::Context;
use crate::context::raw::{release_in, with_raw_current};
use crate::context::stack::PushedGuard;
use crate::error::left_behind::Object;
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::memory::PinnedBuffer;
use crate::memory::registered::RegisteredVec;
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::NonNull;

/// Borrows the context; owns `T`s without making the parked value `!Send` by itself.
type Marker<'ctx, T> = PhantomData<(&'ctx Context, fn() -> T)>;

/// A [`PinnedBuffer`] set aside so it can outlive its guard and cross a nested push
/// ([`PushedGuard::park_pinned`]); see [`guide::parking`](crate::guide::parking).
///
/// Dereferences to `[T]` under any context (host memory needs none). Stream scopes of any
/// context take `&parked` and `&mut parked` as host memory, borrowed until the scope has
/// synchronized (C11). custack allocates page-locked memory portable
/// (`CU_MEMHOSTALLOC_PORTABLE`: "considered as pinned memory by all CUDA contexts, not just the
/// one that performed the allocation"), so such copies are truly asynchronous.
///
/// Holds its context by borrow, so the context outlives it (C5): the driver frees a context's
/// page-locked memory when the context is destroyed. It documents neither which context must
/// be current for `cuMemFreeHost` nor what freeing another context's page-locked memory does,
/// so dropping a parked buffer pushes its own context briefly around `cuMemFreeHost`, as for a
/// [`ParkedBuffer`](crate::ParkedBuffer); [`free`](Self::free) returns the error instead.
///
/// It is not a [`Payload`](crate::Payload): a submission can be leaked (R11), which ends its
/// borrow of the allocating context, and that context's destruction would then free pages a
/// leaked submission of another context might still copy to. Its own context's submissions take
/// it after [`PushedGuard::attach_pinned`] (C22, `ui-tests/c22_parked_pinned_is_no_payload.rs`).
///
/// # Examples
///
/// Staging between two contexts through host memory (P11):
///
/// ```no_run
/// use custack::prelude::*;
/// use custack::{Context, ContextFlags, Driver, Stack};
/// let device = Driver::init()?.device(0)?;
/// let (a, b) = (
///     Context::new(device, ContextFlags::empty())?,
///     Context::new(device, ContextFlags::empty())?,
/// );
/// let mut stack = Stack::new()?;
/// let mut ga = stack.push(&a)?;
/// let src = ga.alloc_from(&vec![1.5f32; 4096])?;
/// let mut staging = ga.park_pinned(ga.alloc_pinned::<f32>(4096)?);
/// src.copy_to_host(&mut staging)?; // a `&mut [f32]`
/// drop(src); // (or park it, as device memory crosses a nested push)
/// let total = ga.with_pushed(&b, |gb| -> custack::Result<f32> {
///     let dst = gb.alloc_from(&staging)?; // B reads A's page-locked memory
///     Ok(dst.to_vec()?.iter().sum())
/// })??;
/// assert_eq!(total, 1.5 * 4096.0);
/// # Ok::<(), custack::Error>(())
/// ```
#[doc(alias = "cuMemHostAlloc")]
pub struct ParkedPinned<'ctx, T: DeviceCopy> {
    ctx: ffi::CUcontext,
    ptr: NonNull<T>,
    len: usize,
    _marker: Marker<'ctx, T>,
}

impl<T: DeviceCopy> core::fmt::Debug for ParkedPinned<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ParkedPinned")
            .field("ctx", &self.ctx)
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

// SAFETY: a parked page-locked buffer owns host memory of a context, which is not tied to a
// thread (see `Context`'s `Send`); its elements are reached only through `&self`/`&mut self`
// (so `T: Send` suffices to move them); dropping it pushes its context on the dropping thread
// itself.
unsafe impl<T: DeviceCopy + Send> Send for ParkedPinned<'_, T> {}
// SAFETY: `&ParkedPinned` lends `&[T]`, which is `Sync` when `T` is.
unsafe impl<T: DeviceCopy + Sync> Sync for ParkedPinned<'_, T> {}

static_assertions::assert_impl_all!(ParkedPinned<'static, u8>: Send, Sync);
static_assertions::assert_not_impl_any!(ParkedPinned<'static, NotSync>: Sync);

impl<T: DeviceCopy> core::ops::Deref for ParkedPinned<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points to `len` initialized elements (zeroed at allocation, then only
        // written as `T`) that live until the buffer is freed; aliasing follows `&self`. Host
        // access needs no current context.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceCopy> core::ops::DerefMut for ParkedPinned<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` gives exclusive access (no scope can use the
        // memory meanwhile: scopes borrow what they copy from or to).
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceCopy> ParkedPinned<'_, T> {
    /// # Safety
    ///
    /// `buffer` was allocated in `ctx`, which lives as long as the returned lifetime.
    pub(crate) unsafe fn from_pinned<'ctx>(
        ctx: ffi::CUcontext,
        buffer: PinnedBuffer<'_, T>,
    ) -> ParkedPinned<'ctx, T> {
        let (ptr, len) = buffer.into_parts();
        ParkedPinned {
            ctx,
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// The raw context that allocated the memory.
    pub fn context_raw(&self) -> ffi::CUcontext {
        self.ctx
    }

    /// `cuMemFreeHost`—Frees the memory with its own context pushed briefly, returning the
    /// driver's error (the push's or the free's).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemFreeHost")]
    pub fn free(self) -> Result<()> {
        let this = ManuallyDrop::new(self);
        this.free_()
    }

    fn free_(&self) -> Result<()> {
        let ptr = self.ptr.as_ptr().cast::<core::ffi::c_void>();
        let free = || {
            // SAFETY: allocated by `cuMemHostAlloc` in `ctx`, current while this runs; freed
            // once (`free` forgets the value, `drop` runs once). No scope uses it (scopes
            // borrow it), and it is no payload, so no submission owns it.
            unsafe { ffi::cuMemFreeHost(ptr) }.result()
        };
        // SAFETY: `ctx` is alive (borrowed for `'ctx`); `free` leaves the stack as it was.
        unsafe { release_in(self.ctx, Object::HostMemory, ptr as u64, free) }
    }
}

impl<T: DeviceCopy> Drop for ParkedPinned<'_, T> {
    fn drop(&mut self) {
        if let Err(e) = self.free_() {
            record_drop_error(e);
        }
    }
}

/// A [`RegisteredVec`] set aside so it can outlive its guard and cross a nested push
/// ([`PushedGuard::park_registered`]); the registered counterpart of [`ParkedPinned`].
///
/// Dereferences to `[T]` under any context; stream scopes of any context take `&parked` and
/// `&mut parked`. Dropping it pushes its context briefly to unregister the vector
/// (`cuMemHostUnregister`), then drops the vector; [`into_vec`](Self::into_vec) gives it back.
#[doc(alias = "cuMemHostRegister")]
pub struct ParkedRegisteredVec<'ctx, T: DeviceCopy> {
    ctx: ffi::CUcontext,
    vec: ManuallyDrop<Vec<T>>,
    _marker: Marker<'ctx, T>,
}

// Bound to a scope's copies as host memory.
crate::vocabulary::binding::host_from!([] ParkedPinned<'_, T>, [] ParkedRegisteredVec<'_, T>);

impl<T: DeviceCopy> core::fmt::Debug for ParkedRegisteredVec<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ParkedRegisteredVec")
            .field("ctx", &self.ctx)
            .field("len", &self.vec.len())
            .finish_non_exhaustive()
    }
}

// SAFETY: as for `ParkedPinned`: a vector of `T: Send` registered with a context, which is not
// tied to a thread; dropping it pushes its context on the dropping thread.
unsafe impl<T: DeviceCopy + Send> Send for ParkedRegisteredVec<'_, T> {}
// SAFETY: `&ParkedRegisteredVec` lends `&[T]` only.
unsafe impl<T: DeviceCopy + Sync> Sync for ParkedRegisteredVec<'_, T> {}

static_assertions::assert_impl_all!(ParkedRegisteredVec<'static, u8>: Send, Sync);
static_assertions::assert_not_impl_any!(ParkedRegisteredVec<'static, NotSync>: Sync);

/// Plain data that is `Send` but not `Sync`, for the static assertions above: a parked value
/// shares its elements only when they may be shared.
#[cfg_attr(not(test), allow(dead_code))]
#[derive(Clone, Copy)]
#[repr(transparent)]
struct NotSync(u32, PhantomData<core::cell::Cell<u8>>);
// SAFETY: a `u32` (the marker is zero-sized and never read): plain data, any bit pattern valid;
// only named by the static assertions above.
unsafe impl DeviceCopy for NotSync {}

impl<T: DeviceCopy> core::ops::Deref for ParkedRegisteredVec<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.vec
    }
}

impl<T: DeviceCopy> core::ops::DerefMut for ParkedRegisteredVec<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // A slice: the vector cannot grow or be reallocated while registered (C21).
        &mut self.vec
    }
}

impl<T: DeviceCopy> ParkedRegisteredVec<'_, T> {
    /// # Safety
    ///
    /// `vec` was registered in `ctx`, which lives as long as the returned lifetime.
    pub(crate) unsafe fn from_registered<'ctx>(
        ctx: ffi::CUcontext,
        vec: RegisteredVec<'_, T>,
    ) -> ParkedRegisteredVec<'ctx, T> {
        ParkedRegisteredVec {
            ctx,
            vec: ManuallyDrop::new(vec.into_registered_vec()),
            _marker: PhantomData,
        }
    }

    /// The raw context that registered the vector.
    pub fn context_raw(&self) -> ffi::CUcontext {
        self.ctx
    }

    /// `cuMemHostUnregister`—Unregisters the vector with its own context pushed briefly, and
    /// gives it back.
    ///
    /// # Errors
    ///
    /// The push's or the driver's error; the vector is then leaked (it may still be
    /// registered).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemHostUnregister")]
    pub fn into_vec(self) -> Result<Vec<T>> {
        let mut this = ManuallyDrop::new(self);
        this.unregister()?;
        // SAFETY: taken once; `this` never drops.
        Ok(unsafe { ManuallyDrop::take(&mut this.vec) })
    }

    fn unregister(&mut self) -> Result<()> {
        let ptr = self.vec.as_mut_ptr().cast::<core::ffi::c_void>();
        let unregister = || {
            // SAFETY: registered by `cuMemHostRegister` in `ctx`, current while this runs;
            // unregistered once. No scope uses it (scopes borrow it).
            unsafe { ffi::cuMemHostUnregister(ptr) }.result()
        };
        // SAFETY: `ctx` is alive (borrowed for `'ctx`); `unregister` leaves the stack as it was.
        unsafe { with_raw_current(self.ctx, unregister) }
    }
}

impl<T: DeviceCopy> Drop for ParkedRegisteredVec<'_, T> {
    fn drop(&mut self) {
        match self.unregister() {
            // SAFETY: dropped once, after it is unregistered.
            Ok(()) => unsafe { ManuallyDrop::drop(&mut self.vec) },
            // Possibly still registered: leak it rather than free page-locked memory.
            Err(e) => record_drop_error(e),
        }
    }
}

impl<'ctx> PushedGuard<'ctx, '_> {
    /// Parks a page-locked buffer: it no longer borrows this guard, only the context, so it
    /// survives the pop and nested pushes, and stays readable and writable as a slice (see
    /// [`ParkedPinned`]). [`attach_pinned`](Self::attach_pinned) is the way back.
    pub fn park_pinned<T: DeviceCopy>(&self, buffer: PinnedBuffer<'_, T>) -> ParkedPinned<'ctx, T> {
        // SAFETY: the buffer is lent by a guard of this thread, and only the guard on top can
        // be used: this one, whose context lives for `'ctx`.
        unsafe { ParkedPinned::from_pinned(self.as_raw(), buffer) }
    }

    /// Re-attaches a parked page-locked buffer to this guard, e.g. to hand it to a submission.
    /// Checked without calling the driver: it must belong to this guard's context.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ContextMismatch`](crate::ErrorKind::ContextMismatch) if it belongs to another context; it is then dropped,
    /// which frees it in its own context.
    pub fn attach_pinned<T: DeviceCopy>(
        &self,
        parked: ParkedPinned<'ctx, T>,
    ) -> Result<PinnedBuffer<'_, T>> {
        super::same_context("page-locked buffer", parked.ctx, self.as_raw())?;
        let parked = ManuallyDrop::new(parked);
        // SAFETY: allocated by `cuMemHostAlloc` in this guard's context (checked above), `len`
        // initialized elements, owned by `parked`, which never drops.
        Ok(unsafe { PinnedBuffer::from_parts(parked.ptr, parked.len) })
    }

    /// Parks a registered vector: it no longer borrows this guard, only the context (see
    /// [`ParkedRegisteredVec`]). [`attach_registered`](Self::attach_registered) is the way back.
    pub fn park_registered<T: DeviceCopy>(
        &self,
        vec: RegisteredVec<'_, T>,
    ) -> ParkedRegisteredVec<'ctx, T> {
        // SAFETY: as in `park_pinned`: registered in this guard's context.
        unsafe { ParkedRegisteredVec::from_registered(self.as_raw(), vec) }
    }

    /// Re-attaches a parked registered vector to this guard. Checked without calling the
    /// driver.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ContextMismatch`](crate::ErrorKind::ContextMismatch) if it was registered in another context; it is then
    /// dropped, which unregisters it in its own context.
    pub fn attach_registered<T: DeviceCopy>(
        &self,
        parked: ParkedRegisteredVec<'ctx, T>,
    ) -> Result<RegisteredVec<'_, T>> {
        super::same_context("registered vector", parked.ctx, self.as_raw())?;
        let mut parked = ManuallyDrop::new(parked);
        // SAFETY: taken once; `parked` never drops.
        let vec = unsafe { ManuallyDrop::take(&mut parked.vec) };
        // SAFETY: registered in this guard's context (checked above), not moved since.
        Ok(unsafe { RegisteredVec::from_registered_vec(vec) })
    }
}
