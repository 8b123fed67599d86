//! CUDA arrays (`cuArray3DCreate`): opaque, texture-friendly device memory of one, two or three
//! dimensions, its element types ([`ArrayElement`]), its copies to and from packed host elements,
//! synchronous (`cuMemcpy3D`) and in a scope (`cuMemcpy3DAsync`, through a [`ScopedArray`]).

use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::left_behind::Object;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::pitched::check_packed;
use crate::texture::scoped::ScopedArray;
use crate::vocabulary::binding::{ScopedHost, ScopedHostMut};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// An element type a [`CudaArray`] (and a texture over linear or pitched memory) can hold: 1, 2
/// or 4 channels of `u8`, `i8`, `u16`, `i16`, `u32`, `i32` or `f32`. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element type of a CUDA array",
    note = "CUDA array elements have 1, 2 or 4 channels of `u8`, `i8`, `u16`, `i16`, `u32`, `i32` or `f32`: e.g. `f32`, `[f32; 2]`, `[f32; 4]`, `[u8; 4]` (there is no 3-channel format: pad to 4)"
)]
pub trait ArrayElement: DeviceCopy + sealed::Sealed {
    /// The channel format.
    #[doc(hidden)]
    const FORMAT: ffi::CUarray_format;
    /// Channels per element.
    #[doc(hidden)]
    const CHANNELS: u32;
    /// The same format as a resource view format.
    #[doc(hidden)]
    const VIEW_FORMAT: ffi::CUresourceViewFormat;
}

macro_rules! array_element {
    ($($t:ty => $format:ident, $channels:expr, $view:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        impl ArrayElement for $t {
            const FORMAT: ffi::CUarray_format = ffi::$format;
            const CHANNELS: u32 = $channels;
            const VIEW_FORMAT: ffi::CUresourceViewFormat = ffi::$view;
        }
    )*};
}
array_element! {
    u8 => CU_AD_FORMAT_UNSIGNED_INT8, 1, CU_RES_VIEW_FORMAT_UINT_1X8;
    [u8; 2] => CU_AD_FORMAT_UNSIGNED_INT8, 2, CU_RES_VIEW_FORMAT_UINT_2X8;
    [u8; 4] => CU_AD_FORMAT_UNSIGNED_INT8, 4, CU_RES_VIEW_FORMAT_UINT_4X8;
    i8 => CU_AD_FORMAT_SIGNED_INT8, 1, CU_RES_VIEW_FORMAT_SINT_1X8;
    [i8; 2] => CU_AD_FORMAT_SIGNED_INT8, 2, CU_RES_VIEW_FORMAT_SINT_2X8;
    [i8; 4] => CU_AD_FORMAT_SIGNED_INT8, 4, CU_RES_VIEW_FORMAT_SINT_4X8;
    u16 => CU_AD_FORMAT_UNSIGNED_INT16, 1, CU_RES_VIEW_FORMAT_UINT_1X16;
    [u16; 2] => CU_AD_FORMAT_UNSIGNED_INT16, 2, CU_RES_VIEW_FORMAT_UINT_2X16;
    [u16; 4] => CU_AD_FORMAT_UNSIGNED_INT16, 4, CU_RES_VIEW_FORMAT_UINT_4X16;
    i16 => CU_AD_FORMAT_SIGNED_INT16, 1, CU_RES_VIEW_FORMAT_SINT_1X16;
    [i16; 2] => CU_AD_FORMAT_SIGNED_INT16, 2, CU_RES_VIEW_FORMAT_SINT_2X16;
    [i16; 4] => CU_AD_FORMAT_SIGNED_INT16, 4, CU_RES_VIEW_FORMAT_SINT_4X16;
    u32 => CU_AD_FORMAT_UNSIGNED_INT32, 1, CU_RES_VIEW_FORMAT_UINT_1X32;
    [u32; 2] => CU_AD_FORMAT_UNSIGNED_INT32, 2, CU_RES_VIEW_FORMAT_UINT_2X32;
    [u32; 4] => CU_AD_FORMAT_UNSIGNED_INT32, 4, CU_RES_VIEW_FORMAT_UINT_4X32;
    i32 => CU_AD_FORMAT_SIGNED_INT32, 1, CU_RES_VIEW_FORMAT_SINT_1X32;
    [i32; 2] => CU_AD_FORMAT_SIGNED_INT32, 2, CU_RES_VIEW_FORMAT_SINT_2X32;
    [i32; 4] => CU_AD_FORMAT_SIGNED_INT32, 4, CU_RES_VIEW_FORMAT_SINT_4X32;
    f32 => CU_AD_FORMAT_FLOAT, 1, CU_RES_VIEW_FORMAT_FLOAT_1X32;
    [f32; 2] => CU_AD_FORMAT_FLOAT, 2, CU_RES_VIEW_FORMAT_FLOAT_2X32;
    [f32; 4] => CU_AD_FORMAT_FLOAT, 4, CU_RES_VIEW_FORMAT_FLOAT_4X32;
}

/// A `width` × `height` × `depth` CUDA array of `T`, lent by a guard; destroyed on drop
/// (`cuArrayDestroy`). Created surface-capable, so textures and surfaces can both use it.
#[derive(Debug)]
#[doc(alias = "CUarray")]
pub struct CudaArray<'g, T: ArrayElement> {
    raw: ffi::CUarray,
    width: usize,
    height: usize,
    depth: usize,
    _marker: PhantomData<(&'g (), *const T)>,
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuArray3DCreate`—A `width` × `height` array of `T` (height 1 for a 1D array),
    /// uninitialized, usable by textures and surfaces.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, FilterMode, Stack, TextureOptions};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut image = guard.alloc_array::<f32>(640, 480)?;
    /// image.copy_from_host(&vec![0.25; 640 * 480])?;
    /// let options = TextureOptions { filter: FilterMode::Linear, ..Default::default() };
    /// let texture = guard.texture(&image, &options)?;
    /// // `image` is borrowed by `texture`: no writes until it is dropped
    /// # drop(texture);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuArray3DCreate")]
    pub fn alloc_array<T: ArrayElement>(
        &self,
        width: usize,
        height: usize,
    ) -> Result<CudaArray<'_, T>> {
        self.alloc_array_3d(width, height, 1)
    }

    /// `cuArray3DCreate`—A `width` × `height` × `depth` array of `T`, uninitialized (height
    /// and depth 1 for a 1D array, depth 1 for a 2D one). Textures and surfaces over it are
    /// created as for a 2D array and sampled with three coordinates.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for an empty extent (no driver call); driver errors, e.g.
    /// for an extent beyond the device's maximum array dimensions.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut volume = guard.alloc_array_3d::<u16>(64, 32, 16)?;
    /// let voxels: Vec<u16> = (0..64 * 32 * 16).map(|i| i as u16).collect();
    /// volume.copy_from_host(&voxels)?; // packed: x fastest, then y, then z
    /// assert_eq!(volume.to_vec()?, voxels);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuArray3DCreate")]
    pub fn alloc_array_3d<T: ArrayElement>(
        &self,
        width: usize,
        height: usize,
        depth: usize,
    ) -> Result<CudaArray<'_, T>> {
        crate::error::poison::check()?;
        if width == 0 || height == 0 || depth == 0 {
            return Err(Error::from_kind(ErrorKind::InvalidValue)
                .with_detail("an empty array: allocate at least one element"));
        }
        let desc = array_descriptor::<T>(width, height, depth);
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; a fully initialized descriptor; this guard's context is
        // current.
        unsafe { ffi::cuArray3DCreate_v2(&raw mut raw, &raw const desc) }.result()?;
        Ok(CudaArray {
            raw,
            width,
            height,
            depth,
            _marker: PhantomData,
        })
    }
}

/// The descriptor of a surface-capable array of `T` of `width × height × depth` elements: the
/// descriptor's height is 0 for a 1D array and its depth 0 for a 1D or 2D one.
pub(crate) fn array_descriptor<T: ArrayElement>(
    width: usize,
    height: usize,
    depth: usize,
) -> ffi::CUDA_ARRAY3D_DESCRIPTOR {
    array_descriptor_with::<T>([width, height, depth], ffi::CUDA_ARRAY3D_SURFACE_LDST)
}

/// The descriptor of an array of `T` of `width × height × depth` elements with the
/// `CUDA_ARRAY3D_*` `flags`. Unlayered, its height is 0 for a 1D array and its depth 0 for a 1D
/// or 2D one; layered (`CUDA_ARRAY3D_LAYERED`), `depth` is the number of layers, always given
/// (the driver makes a layered array only of a non-zero depth), and its height is 0 for 1D
/// layers (a `height` of 1).
pub(crate) fn array_descriptor_with<T: ArrayElement>(
    [width, height, depth]: [usize; 3],
    flags: core::ffi::c_uint,
) -> ffi::CUDA_ARRAY3D_DESCRIPTOR {
    let layered = flags & ffi::CUDA_ARRAY3D_LAYERED != 0;
    let (h, d) = if layered {
        (if height == 1 { 0 } else { height }, depth)
    } else {
        (
            if height == 1 && depth == 1 { 0 } else { height },
            if depth == 1 { 0 } else { depth },
        )
    };
    ffi::CUDA_ARRAY3D_DESCRIPTOR {
        Width: width,
        Height: h,
        Depth: d,
        Format: T::FORMAT,
        NumChannels: T::CHANNELS,
        Flags: flags,
    }
}

impl<T: ArrayElement> CudaArray<'_, T> {
    /// Elements per row.
    pub fn width(&self) -> usize {
        self.width
    }
    /// Rows per slice (1 for a 1D array).
    pub fn height(&self) -> usize {
        self.height
    }
    /// Slices (1 for a 1D or 2D array).
    pub fn depth(&self) -> usize {
        self.depth
    }
    /// The raw `CUarray`.
    pub fn as_raw(&self) -> ffi::CUarray {
        self.raw
    }

    pub(super) fn extent(&self) -> [usize; 3] {
        [self.width, self.height, self.depth]
    }

    /// `cuMemcpy3D`—Copies packed host elements into the array (x fastest, then y, then z).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] (no driver call); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy3D")]
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        crate::error::poison::check()?;
        check_packed("copy_from_host", "array", src.len(), self.extent())?;
        let copy = array_copy::<T>(
            self.raw,
            self.extent(),
            src.as_ptr().cast_mut().cast(),
            ToArray(true),
        );
        crate::error::poison::check()?;
        // SAFETY: `src` holds the array's elements, packed (only read); a live array of the
        // current context, exclusively borrowed.
        unsafe { ffi::cuMemcpy3D_v2(&raw const copy) }
            .result_releasing(crate::error::Observer::DriverCall)
    }

    /// `cuMemcpy3D`—The array's elements, packed (x fastest, then y, then z).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy3D")]
    pub fn to_vec(&self) -> Result<Vec<T>> {
        crate::error::poison::check()?;
        let n = self.width * self.height * self.depth;
        let mut v: Vec<T> = Vec::with_capacity(n);
        let copy = array_copy::<T>(
            self.raw,
            self.extent(),
            v.as_mut_ptr().cast(),
            ToArray(false),
        );
        crate::error::poison::check()?;
        // SAFETY: `v` has room for the array's elements; a live array of the current context.
        unsafe { ffi::cuMemcpy3D_v2(&raw const copy) }
            .result_releasing(crate::error::Observer::DriverCall)?;
        // SAFETY: the copy initialized all `n` elements; any bit pattern is a valid `T`.
        unsafe { v.set_len(n) };
        Ok(v)
    }
}

impl<T: ArrayElement> Drop for CudaArray<'_, T> {
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(Object::Array, self.raw as u64, || {
            // SAFETY: created by this value, destroyed once; no texture, surface or scope uses it
            // (they borrow it).
            unsafe { ffi::cuArrayDestroy(self.raw) }.result()
        });
    }
}

/// The direction of an [`array_copy`].
#[derive(Clone, Copy)]
pub(crate) struct ToArray(pub(crate) bool);

/// A copy of a whole `array` of `T` with extent `[width, height, depth]` to or from packed host
/// elements at `host`.
pub(crate) fn array_copy<T>(
    array: ffi::CUarray,
    [width, height, depth]: [usize; 3],
    host: *mut core::ffi::c_void,
    ToArray(to_array): ToArray,
) -> ffi::CUDA_MEMCPY3D {
    let row = width * size_of::<T>();
    let (host_type, array_type) = (ffi::CU_MEMORYTYPE_HOST, ffi::CU_MEMORYTYPE_ARRAY);
    let (null_host, null_array) = (core::ptr::null_mut(), core::ptr::null_mut());
    ffi::CUDA_MEMCPY3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: if to_array { host_type } else { array_type },
        srcHost: if to_array { host } else { null_host }.cast_const(),
        srcDevice: 0,
        srcArray: if to_array { null_array } else { array },
        reserved0: core::ptr::null_mut(),
        srcPitch: if to_array { row } else { 0 },
        srcHeight: if to_array { height } else { 0 },
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: if to_array { array_type } else { host_type },
        dstHost: if to_array { null_host } else { host },
        dstDevice: 0,
        dstArray: if to_array { array } else { null_array },
        reserved1: core::ptr::null_mut(),
        dstPitch: if to_array { 0 } else { row },
        dstHeight: if to_array { 0 } else { height },
        WidthInBytes: row,
        Height: height,
        Depth: depth,
    }
}

/// The resource descriptor of a whole array (`CU_RESOURCE_TYPE_ARRAY`), for a texture or a
/// surface over it.
pub(super) fn array_resource(array: ffi::CUarray) -> ffi::CUDA_RESOURCE_DESC {
    let mut res = ffi::CUDA_RESOURCE_DESC_res { reserved: [0; 32] };
    res.array = ffi::CUDA_RESOURCE_DESC_array { hArray: array };
    ffi::CUDA_RESOURCE_DESC {
        resType: ffi::CU_RESOURCE_TYPE_ARRAY,
        res,
        flags: 0,
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// Binds an array to this scope exclusively, for its copies.
    pub fn bind_array<T: ArrayElement>(
        &self,
        array: &'scope mut CudaArray<'_, T>,
    ) -> ScopedArray<'scope> {
        ScopedArray {
            raw: array.raw,
            width_bytes: array.width * size_of::<T>(),
            extent: array.extent(),
            _marker: PhantomData,
        }
    }

    /// `cuMemcpy3DAsync`—Enqueues a copy of packed host elements into an array.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] (no driver call); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy3DAsync")]
    pub fn copy_to_array<T: ArrayElement>(
        &self,
        dst: &mut ScopedArray<'scope>,
        src: impl Into<ScopedHost<'scope, T>>,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let src = src.into();
        check_scoped::<T>("copy_to_array", dst, src.len())?;
        let copy = array_copy::<T>(
            dst.raw,
            dst.extent,
            src.as_ptr().cast_mut().cast(),
            ToArray(true),
        );
        // SAFETY: both stay borrowed until the scope has waited; the host side holds the
        // array's elements, packed (only read).
        unsafe { ffi::cuMemcpy3DAsync_v2(&raw const copy, self.as_raw()) }.result()
    }

    /// `cuMemcpy3DAsync`—Enqueues a copy of an array into packed host elements.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] (no driver call); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy3DAsync")]
    pub fn copy_from_array<T: ArrayElement>(
        &self,
        dst: impl Into<ScopedHostMut<'scope, T>>,
        src: &ScopedArray<'scope>,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let dst = dst.into();
        check_scoped::<T>("copy_from_array", src, dst.len())?;
        let copy = array_copy::<T>(src.raw, src.extent, dst.as_mut_ptr().cast(), ToArray(false));
        // SAFETY: as in `copy_to_array`, the other way; any bit pattern is a valid `T`.
        unsafe { ffi::cuMemcpy3DAsync_v2(&raw const copy, self.as_raw()) }.result()
    }
}

/// `LengthMismatch` unless `host` elements of `T` are exactly the bound array's elements.
pub(super) fn check_scoped<T>(what: &str, array: &ScopedArray<'_>, host: usize) -> Result<()> {
    check_packed(what, "array", host, array.extent)?;
    if array.width_bytes != array.extent[0] * size_of::<T>() {
        return Err(Error::custack(
            ErrorKind::LengthMismatch,
            format!("{what}: another element type than the array's"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::array_descriptor_with;
    use crate::ffi;

    #[test]
    fn a_layered_descriptor_always_names_its_layers() {
        let (ldst, layered) = (ffi::CUDA_ARRAY3D_SURFACE_LDST, ffi::CUDA_ARRAY3D_LAYERED);
        let d = |extent, flags| {
            let d = array_descriptor_with::<f32>(extent, flags);
            ([d.Width, d.Height, d.Depth], d.Flags)
        };
        // Unlayered: height 0 for 1D, depth 0 for 1D and 2D.
        assert_eq!(d([16, 1, 1], ldst), ([16, 0, 0], ldst));
        assert_eq!(d([16, 8, 1], ldst), ([16, 8, 0], ldst));
        assert_eq!(d([16, 8, 4], ldst), ([16, 8, 4], ldst));
        // Layered: the depth is the number of layers, given even for one layer (a depth of 0
        // would be an unlayered 2D array to the driver); height 0 for 1D layers.
        assert_eq!(d([16, 8, 1], layered), ([16, 8, 1], layered));
        assert_eq!(d([16, 8, 6], layered), ([16, 8, 6], layered));
        assert_eq!(d([16, 1, 6], layered), ([16, 0, 6], layered));
        let color = ffi::CUDA_ARRAY3D_COLOR_ATTACHMENT;
        assert_eq!(d([16, 8, 1], color), ([16, 8, 0], color));
    }
}
