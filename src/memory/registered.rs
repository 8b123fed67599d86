//! Host memory the program already has, registered with the driver (`cuMemHostRegister`):
//! page-locked in place, so asynchronous copies from and to it are truly asynchronous.
//!
//! [`RegisteredHost`] borrows a slice mutably for the length of a closure
//! ([`PushedGuard::register_host`]), which unregisters it when the closure returns or unwinds,
//! whatever became of the value it lent; [`RegisteredVec`] owns a vector and unregisters it on
//! drop (a vector leaked with it is never freed). Either way the memory cannot be moved, freed
//! or reallocated while it is registered (C21), and it is unregistered in the context that
//! registered it (both are lent by its guard).
//! Scopes use them like a [`PinnedBuffer`](crate::PinnedBuffer) (`&reg`, `&mut reg`), and a
//! `RegisteredVec` is a [`Payload`](crate::Payload) submissions can own.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::memory::check_alloc_len;
use crate::vocabulary::plain::DeviceCopy;
use core::ffi::c_void;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;

/// A slice registered with the driver (`cuMemHostRegister`) for the length of the closure
/// [`PushedGuard::register_host`] lends it to. Dereferences to the slice.
///
/// The closure that lends it unregisters the slice when it returns, not this value's drop: a
/// value forgotten (`mem::forget`) or swapped with another leaves nothing registered behind,
/// and none can leave the closure (its lifetime is the closure's own), so the slice is never
/// freed or reallocated while registered.
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
    /// `cuMemHostRegister`—Registers `slice` (page-locks it in place), lends it to `f` as a
    /// [`RegisteredHost`], and unregisters it (`cuMemHostUnregister`) when `f` returns or
    /// unwinds; the slice stays borrowed meanwhile.
    ///
    /// A closure rather than a value that unregisters on drop: a value can be forgotten
    /// (`mem::forget`), which would end the slice's borrow with the memory still registered, and
    /// the program could then free or reallocate it under the registration (C21). Nothing the
    /// closure does with the [`RegisteredHost`] keeps the slice registered after it.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` for an empty slice; `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`
    /// for memory registered already (`f` is not called); driver errors. The error of
    /// `cuMemHostUnregister` after `f` returned (`f`'s result is dropped then), returned once a
    /// second try unregistered the slice: the unregistration is tried up to three times, and a
    /// failure that persists takes the safe state ([`fail_stop`](crate::fail_stop)), since the
    /// slice's borrow must not end while it is registered. In a poisoned process (R20) or a
    /// forked child (R22) the slice is left registered and that error returned: no later copy
    /// of the process reaches the driver's record of it.
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
    /// let stream = guard.stream()?;
    /// guard.register_host(&mut data, |registered| {
    ///     stream.scope(|s| s.copy_to_device(s.bind_mut(&mut dev), &registered))?
    /// })??; // unregistered here; `data` is free again
    /// data.push(2);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemHostRegister")]
    #[doc(alias = "cuMemHostUnregister")]
    pub fn register_host<'s, T: DeviceCopy, R>(
        &'s self,
        slice: &mut [T],
        f: impl for<'r> FnOnce(RegisteredHost<'r, 's, T>) -> R,
    ) -> Result<R> {
        let bytes = check_alloc_len::<T>(slice.len())?;
        let ptr: *mut c_void = slice.as_mut_ptr().cast();
        register(ptr, bytes)?;
        // Unregisters on unwind; on return, `done` below takes the error instead.
        let registration = Registration(ptr);
        let out = f(RegisteredHost {
            slice,
            _guard: PhantomData,
        });
        registration.done()?;
        Ok(out)
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

/// The registration of a slice lent to [`PushedGuard::register_host`]'s closure: private, so
/// no program can forget it. Unregisters on drop (the closure unwound, the error recorded);
/// [`done`](Self::done) unregisters and returns the error.
struct Registration(*mut c_void);

impl Registration {
    fn done(self) -> Result<()> {
        let this = ManuallyDrop::new(self);
        unregister_borrowed(this.0)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Err(e) = unregister_borrowed(self.0) {
            record_drop_error(e);
        }
    }
}

/// Unregisters a borrowed slice before its borrow ends: the caller may free or reuse the memory
/// once this returns, which it must not while the driver holds it page-locked (a later
/// allocation at that address would be taken for pinned memory, C21). A failure is tried again
/// ([`RELEASE_TRIES`](crate::error::left_behind::RELEASE_TRIES) in all); the first error is
/// returned once the slice is unregistered. Where the process is poisoned or forked (R20, R22)
/// the slice stays registered and the error returns at once: no later call reaches the driver's
/// record of it. A failure that persists otherwise (the same error for ever, a lost device)
/// takes the safe state: ending the process is what ends the registration.
fn unregister_borrowed(ptr: *mut c_void) -> Result<()> {
    let mut first: Option<Error> = None;
    for _ in 0..crate::error::left_behind::RELEASE_TRIES {
        match unregister(ptr) {
            Ok(()) => return first.map_or(Ok(()), Err),
            Err(e) if crate::error::poison::may_release().is_err() => {
                return Err(first.unwrap_or(e));
            }
            Err(e) => match &first {
                None => first = Some(e),
                Some(_) => record_drop_error(e),
            },
        }
    }
    let error = first.unwrap_or_else(|| Error::from_kind(ErrorKind::Unknown));
    let detail = format!(
        "{}; cuMemHostUnregister of a slice lent to register_host failed {} times: its borrow \
         cannot end while the driver may hold it page-locked",
        error.detail().unwrap_or("the unregistration failed"),
        crate::error::left_behind::RELEASE_TRIES
    );
    crate::error::fail_stop(&error.with_detail(detail))
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
