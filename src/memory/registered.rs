//! Host memory the program already has, registered with the driver (`cuMemHostRegister`):
//! page-locked in place, so asynchronous copies from and to it are truly asynchronous.
//!
//! [`RegisteredHost`] borrows a slice mutably and [`RegisteredVec`] owns a vector: either way
//! the memory cannot be moved, freed or reallocated while it is registered (C21), and it is
//! unregistered on drop, in the context that registered it (both are lent by its guard).
//! Scopes use them like a [`PinnedBuffer`](crate::PinnedBuffer) (`&reg`, `&mut reg`), and a
//! `RegisteredVec` is a [`Payload`](crate::Payload) submissions can own.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::memory::check_alloc_len;
use crate::vocabulary::plain::DeviceCopy;
use core::ffi::c_void;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;

/// A slice registered with the driver (`cuMemHostRegister`) for as long as this value lives;
/// lent by a guard, unregistered on drop. Dereferences to the slice.
#[derive(Debug)]
#[doc(alias = "cuMemHostRegister")]
pub struct RegisteredHost<'a, 'g, T: DeviceCopy> {
    slice: &'a mut [T],
    _guard: PhantomData<(&'g (), *const ())>,
}

/// A vector registered with the driver for as long as this value owns it; lent by a guard,
/// unregistered on drop (then the vector drops). Dereferences to a slice: it cannot grow or be
/// reallocated while registered. [`into_vec`](Self::into_vec) gives it back.
#[derive(Debug)]
#[doc(alias = "cuMemHostRegister")]
pub struct RegisteredVec<'g, T: DeviceCopy> {
    vec: ManuallyDrop<Vec<T>>,
    _guard: PhantomData<(&'g (), *const ())>,
}

// Bound to a scope's copies as host memory.
crate::vocabulary::binding::host_from!([] RegisteredHost<'_, '_, T>, [] RegisteredVec<'_, T>);

/// `cuMemHostRegister` of `bytes` at `ptr` in the current context.
fn register(ptr: *mut c_void, bytes: usize) -> Result<()> {
    crate::error::poison::check()?;
    // SAFETY: `ptr..ptr + bytes` is a live allocation the caller holds exclusively for as long as
    // it stays registered; the guard's context is current.
    // Portable (`CU_MEMHOSTREGISTER_PORTABLE`): page-locked for every context, so a parked
    // registered vector (`park_registered`) serves another context's copies too.
    unsafe { ffi::cuMemHostRegister_v2(ptr, bytes, ffi::CU_MEMHOSTREGISTER_PORTABLE) }.result()
}

fn unregister(ptr: *mut c_void) -> Result<()> {
    // Poisoned or forked (R20, R22): left registered (a vector is then leaked, never freed
    // while page-locked).
    crate::error::left_behind::release(crate::error::left_behind::Object::Untracked, ptr as u64)?;
    // SAFETY: `ptr` was registered by `register` in the current context (the guard that lent
    // the value is on top) and is unregistered once; no asynchronous copy uses it (scopes borrow
    // it until complete, submissions own it).
    unsafe { ffi::cuMemHostUnregister(ptr) }.result()
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemHostRegister`—Registers `slice` (page-locks it in place) until the returned value
    /// drops; the slice stays borrowed meanwhile.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` for an empty slice; `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`
    /// for memory registered already; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut data = vec![1u32; 1 << 20];
    /// let mut dev = guard.alloc::<u32>(data.len())?;
    /// {
    ///     let registered = guard.register_host(&mut data)?;
    ///     guard.stream()?.scope(|s| s.copy_to_device(s.bind_mut(&mut dev), &registered))??;
    /// } // unregistered here; `data` is free again
    /// data.push(2);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemHostRegister")]
    pub fn register_host<'a, T: DeviceCopy>(
        &self,
        slice: &'a mut [T],
    ) -> Result<RegisteredHost<'a, '_, T>> {
        let bytes = check_alloc_len::<T>(slice.len())?;
        register(slice.as_mut_ptr().cast(), bytes)?;
        Ok(RegisteredHost {
            slice,
            _guard: PhantomData,
        })
    }

    /// `cuMemHostRegister`—Registers a vector's elements until the returned value drops or
    /// gives the vector back ([`RegisteredVec::into_vec`]).
    ///
    /// # Errors
    ///
    /// As [`register_host`](Self::register_host); the vector is dropped.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemHostRegister")]
    pub fn register_vec<T: DeviceCopy>(&self, mut vec: Vec<T>) -> Result<RegisteredVec<'_, T>> {
        let bytes = check_alloc_len::<T>(vec.len())?;
        register(vec.as_mut_ptr().cast(), bytes)?;
        Ok(RegisteredVec {
            vec: ManuallyDrop::new(vec),
            _guard: PhantomData,
        })
    }
}

impl<T: DeviceCopy> core::ops::Deref for RegisteredHost<'_, '_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.slice
    }
}
impl<T: DeviceCopy> core::ops::DerefMut for RegisteredHost<'_, '_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.slice
    }
}

impl<T: DeviceCopy> RegisteredHost<'_, '_, T> {
    /// `cuMemHostUnregister`—Unregisters the slice, returning the driver's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemHostUnregister")]
    pub fn unregister(self) -> Result<()> {
        let mut this = ManuallyDrop::new(self);
        unregister(this.slice.as_mut_ptr().cast())
    }
}

impl<T: DeviceCopy> Drop for RegisteredHost<'_, '_, T> {
    fn drop(&mut self) {
        if let Err(e) = unregister(self.slice.as_mut_ptr().cast()) {
            record_drop_error(e);
        }
    }
}

impl<T: DeviceCopy> core::ops::Deref for RegisteredVec<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.vec
    }
}
impl<T: DeviceCopy> core::ops::DerefMut for RegisteredVec<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.vec
    }
}

impl<T: DeviceCopy> RegisteredVec<'_, T> {
    /// The elements' pointer, taken without a reference to them (`Vec::as_mut_ptr`), as
    /// `PinnedBuffer::raw_ptr`.
    pub(crate) fn raw_ptr(&mut self) -> *mut T {
        self.vec.as_mut_ptr()
    }

    /// The vector, still registered (for parking).
    pub(crate) fn into_registered_vec(self) -> Vec<T> {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: taken once; `this` never drops.
        unsafe { ManuallyDrop::take(&mut this.vec) }
    }

    /// # Safety
    ///
    /// `vec`'s elements are registered in the context of the guard the returned lifetime
    /// borrows, and nothing else unregisters them.
    pub(crate) unsafe fn from_registered_vec<'g>(vec: Vec<T>) -> RegisteredVec<'g, T> {
        RegisteredVec {
            vec: ManuallyDrop::new(vec),
            _guard: PhantomData,
        }
    }

    /// `cuMemHostUnregister`—Unregisters the vector and gives it back.
    ///
    /// # Errors
    ///
    /// The driver's error; the vector is then leaked (it may still be registered).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemHostUnregister")]
    pub fn into_vec(self) -> Result<Vec<T>> {
        let mut this = ManuallyDrop::new(self);
        unregister(this.vec.as_mut_ptr().cast())?;
        // SAFETY: taken once; `this` never drops.
        Ok(unsafe { ManuallyDrop::take(&mut this.vec) })
    }
}

impl<T: DeviceCopy> Drop for RegisteredVec<'_, T> {
    fn drop(&mut self) {
        match unregister(self.vec.as_mut_ptr().cast()) {
            // SAFETY: dropped once, after it is unregistered.
            Ok(()) => unsafe { ManuallyDrop::drop(&mut self.vec) },
            // Possibly still registered: leak it rather than free page-locked memory.
            Err(e) => record_drop_error(e),
        }
    }
}
