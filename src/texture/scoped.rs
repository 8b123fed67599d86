//! What a scope's kernels and copies receive of this folder's values: a texture or surface
//! object bound to the scope ([`ScopedTexture`], [`ScopedSurface`], kernel arguments passed as
//! their 64-bit handles), their parameter types in a checked kernel signature
//! ([`TextureHandle`], [`SurfaceHandle`]), and an array bound to it for its copies
//! ([`ScopedArray`]). The `bind_*` methods that make them are beside what they bind.

use crate::ffi;
use crate::vocabulary::argument::{KernelArg, KernelParam, sealed as launch_sealed};
use crate::vocabulary::binding::Invariant;
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// A texture object bound to a scope: a kernel argument of that scope (a `cudaTextureObject_t`,
/// [`TextureHandle`] in a checked signature). `Copy`.
#[derive(Debug, Clone, Copy)]
pub struct ScopedTexture<'scope> {
    pub(super) raw: ffi::CUtexObject,
    pub(super) _marker: PhantomData<(Invariant<'scope>, *const ())>,
}

/// A surface object bound exclusively to a scope: a kernel argument of that scope, taken as
/// `&`/`&mut` (a `cudaSurfaceObject_t`, [`SurfaceHandle`] in a checked signature).
#[derive(Debug)]
pub struct ScopedSurface<'scope> {
    pub(super) raw: ffi::CUsurfObject,
    pub(super) _marker: PhantomData<(Invariant<'scope>, *const ())>,
}

/// A texture object parameter in a [`Kernel`](crate::Kernel) signature. Never constructed.
#[derive(Debug)]
pub struct TextureHandle(#[allow(dead_code)] ffi::CUtexObject);
/// A surface object parameter in a [`Kernel`](crate::Kernel) signature. Never constructed.
#[derive(Debug)]
pub struct SurfaceHandle(#[allow(dead_code)] ffi::CUsurfObject);

impl ScopedTexture<'_> {
    pub(crate) fn raw(self) -> ffi::CUtexObject {
        self.raw
    }
}
impl ScopedSurface<'_> {
    pub(crate) fn raw(&self) -> ffi::CUsurfObject {
        self.raw
    }
}

/// A [`CudaArray`](crate::CudaArray) (or one level of a [`MipmappedArray`](crate::MipmappedArray))
/// bound exclusively to a scope, for its copies.
#[derive(Debug)]
pub struct ScopedArray<'scope> {
    pub(super) raw: ffi::CUarray,
    pub(super) width_bytes: usize,
    pub(super) extent: [usize; 3],
    pub(super) _marker: PhantomData<(Invariant<'scope>, *const ())>,
}

impl ScopedArray<'_> {
    /// An array of `T` with `extent`, bound to a scope.
    ///
    /// # Safety
    ///
    /// `raw` is a live array of the current context with that extent and element type, which
    /// nothing else uses while the scope may (the caller holds an exclusive borrow of its owner
    /// for `'scope`).
    pub(crate) unsafe fn from_raw<T: DeviceCopy>(raw: ffi::CUarray, extent: [usize; 3]) -> Self {
        Self {
            raw,
            width_bytes: extent[0] * size_of::<T>(),
            extent,
            _marker: PhantomData,
        }
    }
}

// Texture and surface objects bound to the scope are passed as their 64-bit handles.
impl launch_sealed::Sealed for ScopedTexture<'_> {}
impl<'scope> KernelArg<'scope> for ScopedTexture<'scope> {
    type Raw = ffi::CUtexObject;
    type Param = TextureHandle;
    #[inline]
    fn to_raw(&self) -> ffi::CUtexObject {
        self.raw()
    }
}
impl launch_sealed::Sealed for &ScopedSurface<'_> {}
impl launch_sealed::Sealed for &mut ScopedSurface<'_> {}
impl<'scope> KernelArg<'scope> for &ScopedSurface<'scope> {
    type Raw = ffi::CUsurfObject;
    type Param = SurfaceHandle;
    #[inline]
    fn to_raw(&self) -> ffi::CUsurfObject {
        self.raw()
    }
}
impl<'scope> KernelArg<'scope> for &mut ScopedSurface<'scope> {
    type Raw = ffi::CUsurfObject;
    type Param = SurfaceHandle;
    #[inline]
    fn to_raw(&self) -> ffi::CUsurfObject {
        self.raw()
    }
}

// Texture and surface handles are parameter types of kernel signatures.
impl launch_sealed::SealedParam for TextureHandle {}
impl KernelParam for TextureHandle {}
impl launch_sealed::SealedParam for SurfaceHandle {}
impl KernelParam for SurfaceHandle {}
