//! Surface objects (`cuSurfObjectCreate`): a [`CudaArray`] (or one level of a mipmapped array)
//! read and written by kernels, borrowing it exclusively, and bound to a scope for its kernels
//! ([`StreamScope::bind_surface`]).

use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::Result;
use crate::error::left_behind::Object;
use crate::ffi;
use crate::texture::array::{ArrayElement, CudaArray, array_resource};
use crate::texture::scoped::ScopedSurface;
use core::marker::PhantomData;

/// A surface object over a [`CudaArray`], borrowing it exclusively; destroyed on drop.
#[derive(Debug)]
#[doc(alias = "CUsurfObject")]
pub struct SurfaceObject<'a> {
    raw: ffi::CUsurfObject,
    _marker: PhantomData<(&'a mut (), *const ())>,
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuSurfObjectCreate`—A surface object reading and writing `array` (borrowed
    /// exclusively while it lives).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__SURFOBJECT.html>
    #[doc(alias = "cuSurfObjectCreate")]
    pub fn surface<'a, T: ArrayElement>(
        &self,
        array: &'a mut CudaArray<'_, T>,
    ) -> Result<SurfaceObject<'a>> {
        // SAFETY: a live, surface-capable array of this context, borrowed exclusively for 'a.
        unsafe { create_surface(array.as_raw()) }
    }
}

/// `cuSurfObjectCreate` over `array`.
///
/// # Safety
///
/// `array` is a live, surface-capable array of the current context that nothing else reads or
/// writes for `'a` (the caller holds an exclusive borrow of its owner for `'a`).
pub(crate) unsafe fn create_surface<'a>(array: ffi::CUarray) -> Result<SurfaceObject<'a>> {
    crate::error::poison::check()?;
    let resource = array_resource(array);
    let mut raw = 0;
    // SAFETY: valid out-pointer; a descriptor naming a live, surface-capable array (the
    // caller's contract).
    unsafe { ffi::cuSurfObjectCreate(&raw mut raw, &raw const resource) }.result()?;
    Ok(SurfaceObject {
        raw,
        _marker: PhantomData,
    })
}

impl SurfaceObject<'_> {
    /// The raw `CUsurfObject` (a `cudaSurfaceObject_t`); custack destroys it when this value
    /// drops.
    pub fn as_raw(&self) -> ffi::CUsurfObject {
        self.raw
    }
}

impl Drop for SurfaceObject<'_> {
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(Object::Surface, self.raw, || {
            // SAFETY: as for `TextureObject`.
            unsafe { ffi::cuSurfObjectDestroy(self.raw) }.result()
        });
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// Binds a surface object to this scope exclusively, for its kernels.
    pub fn bind_surface(&self, surface: &'scope mut SurfaceObject<'_>) -> ScopedSurface<'scope> {
        ScopedSurface {
            raw: surface.raw,
            _marker: PhantomData,
        }
    }
}
