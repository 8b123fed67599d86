//! Device memory set aside from its guard: a [`ParkedBuffer`] borrows only its context, so it
//! survives the pop and nested pushes, and is attached again to a guard of that context.

use crate::context::Context;
use crate::context::raw::release_in;
use crate::context::stack::{ContextKind, Floating, PushedGuard};
use crate::error::left_behind::Object;
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::memory::DeviceBuffer;
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// Borrows the context; owns `T`s without making the parked buffer `!Send`; carries the kind
/// of context (`Send` is implemented for a [`Floating`] one only).
type ParkedMarker<'ctx, T, K> = PhantomData<(&'ctx Context, fn() -> T, K)>;

/// A [`DeviceBuffer`] set aside so it can outlive its guard and a nested push, and be
/// re-attached to a guard of the same context later ([`PushedGuard::attach`]).
///
/// Holds the context by borrow, so the context outlives it. Dropping it pushes its context
/// briefly to free the memory; to receive the error instead, attach it to a guard and call
/// [`DeviceBuffer::free`].
///
/// `K` is the kind of context it belongs to. A buffer of a [`Floating`] context (the default)
/// is `Send` and `Sync`; one of a [`Green`](crate::Green) context is neither, like its
/// [`GreenContext`](crate::GreenContext): dropping it pushes that context, which may be current
/// on one thread only, so it stays on the thread that parked it.
#[derive(Debug)]
pub struct ParkedBuffer<'ctx, T: DeviceCopy, K: ContextKind = Floating> {
    ctx: ffi::CUcontext,
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: ParkedMarker<'ctx, T, K>,
}

// SAFETY: a parked buffer of a floating context is an allocation of a context, which is not
// tied to a thread (see `Context`'s `Send`); it offers no access without being attached to a
// guard, which checks the context; dropping it pushes the context on the dropping thread
// itself. Not for a green context: the raw `ctx` field keeps that kind `!Send`.
unsafe impl<T: DeviceCopy> Send for ParkedBuffer<'_, T, Floating> {}
// SAFETY: `&ParkedBuffer` allows reading the length only.
unsafe impl<T: DeviceCopy> Sync for ParkedBuffer<'_, T, Floating> {}

static_assertions::assert_impl_all!(ParkedBuffer<'static, u8>: Send, Sync);
static_assertions::assert_not_impl_any!(ParkedBuffer<'static, u8, crate::context::stack::Green>: Send, Sync);

impl<T: DeviceCopy, K: ContextKind> ParkedBuffer<'_, T, K> {
    /// # Safety
    ///
    /// `ptr` is a `cuMemAlloc` allocation of `ctx` holding `len` elements, owned by nothing
    /// else; `ctx` is a context of kind `K` and lives as long as the returned lifetime.
    pub(crate) unsafe fn from_raw_parts<'ctx>(
        ctx: ffi::CUcontext,
        ptr: ffi::CUdeviceptr,
        len: usize,
    ) -> ParkedBuffer<'ctx, T, K> {
        ParkedBuffer {
            ctx,
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// The raw context the buffer belongs to.
    pub fn context_raw(&self) -> ffi::CUcontext {
        self.ctx
    }
    /// The raw device address, for raw calls and other libraries (the buffer's context must be
    /// current, or the call must name that context, as `cuMemcpyPeer` does).
    pub fn device_ptr(&self) -> ffi::CUdeviceptr {
        self.ptr
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it holds no elements (never: allocations are non-empty).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T: DeviceCopy, K: ContextKind> Drop for ParkedBuffer<'_, T, K> {
    fn drop(&mut self) {
        let ptr = self.ptr;
        let free = || {
            // SAFETY: the memory belongs to `ctx`, current while this runs, and is freed once.
            unsafe { ffi::cuMemFree_v2(ptr) }.result()
        };
        // SAFETY: `ctx` is alive (borrowed for `'ctx`); `free` leaves the stack as it was.
        let r = unsafe { release_in(self.ctx, Object::DeviceMemory, ptr, free) };
        if let Err(e) = r {
            record_drop_error(e);
        }
    }
}

impl<'ctx, K: ContextKind> PushedGuard<'ctx, '_, K> {
    /// Parks a buffer: it no longer borrows this guard, only the context, so it survives the
    /// pop and nested pushes (P3, P8). Re-attach it with [`attach`](Self::attach).
    ///
    /// A buffer of a green context parks too, as a `!Send` [`ParkedBuffer`] that stays on this
    /// thread (see [`ParkedBuffer`]'s `K`).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let parked = guard.park(guard.alloc_from(&[1u32; 4])?);
    /// drop(guard); // popped: the parked buffer lives on, borrowing only `ctx`
    /// let guard = stack.push(&ctx)?;
    /// let buf = guard.attach(parked)?;
    /// # drop(buf);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// See [`guide::parking`](crate::guide::parking) for two contexts on one thread.
    pub fn park<T: DeviceCopy>(&self, buffer: DeviceBuffer<'_, T>) -> ParkedBuffer<'ctx, T, K> {
        let (ptr, len) = buffer.into_raw();
        ParkedBuffer {
            ctx: self.as_raw(),
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// Re-attaches a parked buffer to this guard. Checked without calling the driver: the
    /// parked buffer must belong to this guard's context.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ContextMismatch`](crate::ErrorKind::ContextMismatch) if it belongs to another context; the parked buffer is
    /// then dropped, which frees it in its own context.
    pub fn attach<T: DeviceCopy>(
        &self,
        parked: ParkedBuffer<'ctx, T, K>,
    ) -> Result<DeviceBuffer<'_, T>> {
        super::same_context("buffer", parked.ctx, self.as_raw())?;
        let parked = core::mem::ManuallyDrop::new(parked);
        // SAFETY: an allocation of this guard's context (checked above), owned by the parked
        // buffer, which is consumed without being dropped.
        Ok(unsafe { DeviceBuffer::from_raw_parts(parked.ptr, parked.len) })
    }
}
