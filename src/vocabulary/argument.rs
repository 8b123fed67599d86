//! What a kernel argument is: plain data by value, or device memory passed as its device
//! pointer ([`DevicePtr`]), sealed so that only custack's bindings build parameter arrays. The
//! tuples of arguments and signatures ([`KernelArgs`](crate::KernelArgs),
//! [`KernelSignature`](crate::KernelSignature)) are built on these in `kernel/launch.rs`.

use crate::ffi;
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

pub(crate) mod sealed {
    pub trait Sealed {}
    /// Seals [`KernelParam`](super::KernelParam) and [`KernelSignature`](crate::KernelSignature).
    pub trait SealedParam {}
    pub trait SealedSignature {}
    /// Seals [`KernelArgs`](crate::KernelArgs): only `()` and tuples of [`KernelArg`]s build
    /// parameter arrays, so no user type can hand the driver pointers of its choosing.
    pub trait SealedArgs {}
}

/// One kernel argument: plain data by value, or device memory of the launching scope
/// ([`ScopedSlice`](crate::ScopedSlice), [`ScopedSliceMut`](crate::ScopedSliceMut), `&`/`&mut` [`ScopedAlloc`](crate::ScopedAlloc)), passed as its device
/// pointer (C15). Sealed.
///
/// `'scope` is the launching scope's own lifetime, exactly: memory bound to another scope (an
/// outer scope's stream, running concurrently) is not an argument of this one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel argument of this scope",
    note = "a kernel argument is plain data by value, or device memory bound to the launching scope: a read-only binding `let a = s.bind(&x);` by value (`a`), a writable binding `let b = s.bind_mut(&mut y);` by reference (`&b` or `&mut b`), a texture binding by value, a surface binding or a `ScopedAlloc` by reference",
    note = "memory bound to another (outer) scope is not an argument of this one: bind it to this scope's `s`"
)]
pub trait KernelArg<'scope>: sealed::Sealed {
    /// What the kernel receives.
    #[doc(hidden)]
    type Raw: Copy;
    /// The parameter type this argument passes, for [`Kernel`](crate::Kernel) signatures: `T` for plain data,
    /// [`DevicePtr<T>`] for device memory.
    type Param: KernelParam;
    /// The value passed.
    #[doc(hidden)]
    fn to_raw(&self) -> Self::Raw;
}

impl<T: DeviceCopy> sealed::Sealed for T {}
impl<T: DeviceCopy> KernelArg<'_> for T {
    type Raw = T;
    type Param = T;
    #[inline]
    fn to_raw(&self) -> T {
        *self
    }
}

/// A kernel parameter that is a device pointer to `T`: the [`Kernel`](crate::Kernel) signature type of device
/// memory arguments ([`ScopedSlice`](crate::ScopedSlice), [`ScopedSliceMut`](crate::ScopedSliceMut), `&`/`&mut` [`ScopedAlloc`](crate::ScopedAlloc) of `T`).
/// Never constructed.
#[derive(Debug)]
pub struct DevicePtr<T: DeviceCopy>(
    // Never read: gives the type a device pointer's size and alignment, which its place in a
    // signature's layout needs.
    #[allow(dead_code)] ffi::CUdeviceptr,
    PhantomData<fn() -> T>,
);

static_assertions::assert_eq_size!(DevicePtr<u8>, ffi::CUdeviceptr);
static_assertions::assert_eq_align!(DevicePtr<u8>, ffi::CUdeviceptr);

/// One parameter type of a [`Kernel`](crate::Kernel) signature: plain data `T`, or [`DevicePtr<T>`]. Sealed.
pub trait KernelParam: sealed::SealedParam + 'static {}
impl<T: DeviceCopy> sealed::SealedParam for T {}
impl<T: DeviceCopy> KernelParam for T {}
impl<T: DeviceCopy> sealed::SealedParam for DevicePtr<T> {}
impl<T: DeviceCopy> KernelParam for DevicePtr<T> {}
