//! CUDA arrays, texture objects and surface objects.
//!
//! A [`CudaArray`] is opaque, texture-friendly device memory (`cuArray3DCreate`), one, two or
//! three dimensional, copied to and from packed host elements synchronously and in scopes
//! (`cuMemcpy3D`, `cuMemcpy3DAsync`). A [`TextureObject`] (`cuTexObjectCreate`)
//! borrows its array *shared* and a [`SurfaceObject`] (`cuSurfObjectCreate`) borrows it
//! *exclusively*, so the array can be neither freed nor written otherwise while an object over
//! it exists. A kernel receives an object only bound to its scope ([`StreamScope::bind_texture`],
//! [`StreamScope::bind_surface`]), which keeps the object, and so the array, alive and unchanged
//! until the scope has waited.

use crate::StreamScope;
use crate::asynchronous::scope::{Invariant, ScopedHost, ScopedHostMut};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::launch::{KernelArg, KernelParam, sealed as launch_sealed};
use crate::pitched::check_packed;
use crate::plain::DeviceCopy;
use crate::stack::{ContextKind, PushedGuard};
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// An element type a [`CudaArray`] can hold: 1, 2 or 4 channels of `u8`, `u16`, `u32`, `i32`
/// or `f32`. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element type of a CUDA array",
    note = "CUDA array elements have 1, 2 or 4 channels: `u8`, `[u8; 2]`, `[u8; 4]`, `u16`, `u32`, `i32`, `f32`, `[f32; 2]`, `[f32; 4]` (there is no 3-channel format: pad to 4)"
)]
pub trait ArrayElement: DeviceCopy + sealed::Sealed {
    /// The channel format.
    #[doc(hidden)]
    const FORMAT: ffi::CUarray_format;
    /// Channels per element.
    #[doc(hidden)]
    const CHANNELS: u32;
}

macro_rules! array_element {
    ($($t:ty => $format:ident, $channels:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl ArrayElement for $t {
            const FORMAT: ffi::CUarray_format = ffi::$format;
            const CHANNELS: u32 = $channels;
        }
    )*};
}
array_element! {
    u8 => CU_AD_FORMAT_UNSIGNED_INT8, 1;
    [u8; 2] => CU_AD_FORMAT_UNSIGNED_INT8, 2;
    [u8; 4] => CU_AD_FORMAT_UNSIGNED_INT8, 4;
    u16 => CU_AD_FORMAT_UNSIGNED_INT16, 1;
    u32 => CU_AD_FORMAT_UNSIGNED_INT32, 1;
    i32 => CU_AD_FORMAT_SIGNED_INT32, 1;
    f32 => CU_AD_FORMAT_FLOAT, 1;
    [f32; 2] => CU_AD_FORMAT_FLOAT, 2;
    [f32; 4] => CU_AD_FORMAT_FLOAT, 4;
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

/// How a [`TextureObject`] samples.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[doc(alias = "CUDA_TEXTURE_DESC")]
pub struct TextureOptions {
    /// Linear filtering (float textures) rather than the nearest texel.
    pub linear: bool,
    /// Coordinates in [0, 1) rather than in texels.
    pub normalized: bool,
    /// Integer texels read as integers rather than normalized floats.
    pub read_as_integer: bool,
}

/// A texture object over a [`CudaArray`], borrowing it shared; destroyed on drop.
#[derive(Debug)]
#[doc(alias = "CUtexObject")]
pub struct TextureObject<'a> {
    raw: ffi::CUtexObject,
    _marker: PhantomData<(&'a (), *const ())>,
}

/// A surface object over a [`CudaArray`], borrowing it exclusively; destroyed on drop.
#[derive(Debug)]
#[doc(alias = "CUsurfObject")]
pub struct SurfaceObject<'a> {
    raw: ffi::CUsurfObject,
    _marker: PhantomData<(&'a mut (), *const ())>,
}

/// A texture object bound to a scope: a kernel argument of that scope (a `cudaTextureObject_t`,
/// [`TextureHandle`] in a checked signature). `Copy`.
#[derive(Debug, Clone, Copy)]
pub struct ScopedTexture<'scope> {
    raw: ffi::CUtexObject,
    _marker: PhantomData<(Invariant<'scope>, *const ())>,
}

/// A surface object bound exclusively to a scope: a kernel argument of that scope, taken as
/// `&`/`&mut` (a `cudaSurfaceObject_t`, [`SurfaceHandle`] in a checked signature).
#[derive(Debug)]
pub struct ScopedSurface<'scope> {
    raw: ffi::CUsurfObject,
    _marker: PhantomData<(Invariant<'scope>, *const ())>,
}

/// A texture object parameter in a [`Kernel`](crate::Kernel) signature. Never constructed.
#[derive(Debug)]
pub struct TextureHandle(#[allow(dead_code)] ffi::CUtexObject);
/// A surface object parameter in a [`Kernel`](crate::Kernel) signature. Never constructed.
#[derive(Debug)]
pub struct SurfaceHandle(#[allow(dead_code)] ffi::CUsurfObject);

fn array_resource(array: ffi::CUarray) -> ffi::CUDA_RESOURCE_DESC {
    let mut res = [0u64; 16];
    res[0] = array as usize as u64;
    ffi::CUDA_RESOURCE_DESC {
        resType: ffi::CU_RESOURCE_TYPE_ARRAY,
        res,
        flags: 0,
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuArray3DCreate`—A `width` × `height` array of `T` (height 1 for a 1D array),
    /// uninitialized, usable by textures and surfaces.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack, TextureOptions};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut image = guard.alloc_array::<f32>(640, 480)?;
    /// image.copy_from_host(&vec![0.25; 640 * 480])?;
    /// let texture = guard.texture(&image, &TextureOptions { linear: true, ..Default::default() })?;
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
        if width == 0 || height == 0 || depth == 0 {
            return Err(Error::from_code(ffi::CUresult::CUDA_ERROR_INVALID_VALUE)
                .with_detail("an empty array: allocate at least one element"));
        }
        // The descriptor's height is 0 for a 1D array and its depth 0 for a 1D or 2D one.
        let desc = ffi::CUDA_ARRAY3D_DESCRIPTOR {
            Width: width,
            Height: if height == 1 && depth == 1 { 0 } else { height },
            Depth: if depth == 1 { 0 } else { depth },
            Format: T::FORMAT,
            NumChannels: T::CHANNELS,
            Flags: ffi::CUDA_ARRAY3D_SURFACE_LDST,
        };
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

    /// `cuTexObjectCreate`—A texture object reading `array` (borrowed shared while it lives).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TEXOBJECT.html>
    #[doc(alias = "cuTexObjectCreate")]
    pub fn texture<'a, T: ArrayElement>(
        &self,
        array: &'a CudaArray<'_, T>,
        options: &TextureOptions,
    ) -> Result<TextureObject<'a>> {
        let resource = array_resource(array.raw);
        let mut flags = 0;
        if options.normalized {
            flags |= ffi::CU_TRSF_NORMALIZED_COORDINATES;
        }
        if options.read_as_integer {
            flags |= ffi::CU_TRSF_READ_AS_INTEGER;
        }
        let desc = ffi::CUDA_TEXTURE_DESC {
            addressMode: [1, 1, 1], // clamp
            filterMode: i32::from(options.linear),
            flags,
            ..Default::default()
        };
        let mut raw = 0;
        // SAFETY: valid out-pointer; fully initialized descriptors naming a live array of this
        // context; no resource view.
        unsafe {
            ffi::cuTexObjectCreate(
                &raw mut raw,
                &raw const resource,
                &raw const desc,
                core::ptr::null(),
            )
        }
        .result()?;
        Ok(TextureObject {
            raw,
            _marker: PhantomData,
        })
    }

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
        let resource = array_resource(array.raw);
        let mut raw = 0;
        // SAFETY: valid out-pointer; a descriptor naming a live, surface-capable array.
        unsafe { ffi::cuSurfObjectCreate(&raw mut raw, &raw const resource) }.result()?;
        Ok(SurfaceObject {
            raw,
            _marker: PhantomData,
        })
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

    fn extent(&self) -> [usize; 3] {
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
        check_packed("copy_from_host", "array", src.len(), self.extent())?;
        let copy = array_copy::<T>(
            self.raw,
            self.extent(),
            src.as_ptr().cast_mut().cast(),
            ToArray(true),
        );
        // SAFETY: `src` holds the array's elements, packed (only read); a live array of the
        // current context, exclusively borrowed.
        unsafe { ffi::cuMemcpy3D_v2(&raw const copy) }.result()
    }

    /// `cuMemcpy3D`—The array's elements, packed (x fastest, then y, then z).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy3D")]
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let n = self.width * self.height * self.depth;
        let mut v: Vec<T> = Vec::with_capacity(n);
        let copy = array_copy::<T>(
            self.raw,
            self.extent(),
            v.as_mut_ptr().cast(),
            ToArray(false),
        );
        // SAFETY: `v` has room for the array's elements; a live array of the current context.
        unsafe { ffi::cuMemcpy3D_v2(&raw const copy) }.result()?;
        // SAFETY: the copy initialized all `n` elements; any bit pattern is a valid `T`.
        unsafe { v.set_len(n) };
        Ok(v)
    }
}

/// The direction of an [`array_copy`].
#[derive(Clone, Copy)]
struct ToArray(bool);

/// A copy of a whole `array` of `T` with extent `[width, height, depth]` to or from packed host
/// elements at `host`.
fn array_copy<T>(
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

impl<T: ArrayElement> Drop for CudaArray<'_, T> {
    fn drop(&mut self) {
        // SAFETY: created by this value, destroyed once; no texture, surface or scope uses it
        // (they borrow it).
        if let Err(e) = unsafe { ffi::cuArrayDestroy(self.raw) }.result() {
            record_drop_error(e);
        }
    }
}

impl Drop for TextureObject<'_> {
    fn drop(&mut self) {
        // SAFETY: created by this value, destroyed once; no scope uses it (scopes borrow it).
        if let Err(e) = unsafe { ffi::cuTexObjectDestroy(self.raw) }.result() {
            record_drop_error(e);
        }
    }
}

impl Drop for SurfaceObject<'_> {
    fn drop(&mut self) {
        // SAFETY: as for `TextureObject`.
        if let Err(e) = unsafe { ffi::cuSurfObjectDestroy(self.raw) }.result() {
            record_drop_error(e);
        }
    }
}

impl TextureObject<'_> {
    /// The raw `CUtexObject` (a `cudaTextureObject_t`), e.g. for a kernel launched by other
    /// code; custack destroys it when this value drops.
    pub fn as_raw(&self) -> ffi::CUtexObject {
        self.raw
    }
}

impl SurfaceObject<'_> {
    /// The raw `CUsurfObject` (a `cudaSurfaceObject_t`); custack destroys it when this value
    /// drops.
    pub fn as_raw(&self) -> ffi::CUsurfObject {
        self.raw
    }
}

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

/// A [`CudaArray`] bound exclusively to a scope, for its copies.
#[derive(Debug)]
pub struct ScopedArray<'scope> {
    raw: ffi::CUarray,
    width_bytes: usize,
    extent: [usize; 3],
    _marker: PhantomData<(Invariant<'scope>, *const ())>,
}

impl<'scope> StreamScope<'scope, '_> {
    /// Binds a texture object to this scope for its kernels, until the scope ends.
    pub fn bind_texture(&self, texture: &'scope TextureObject<'_>) -> ScopedTexture<'scope> {
        ScopedTexture {
            raw: texture.raw,
            _marker: PhantomData,
        }
    }

    /// Binds a surface object to this scope exclusively, for its kernels.
    pub fn bind_surface(&self, surface: &'scope mut SurfaceObject<'_>) -> ScopedSurface<'scope> {
        ScopedSurface {
            raw: surface.raw,
            _marker: PhantomData,
        }
    }

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
        let dst = dst.into();
        check_scoped::<T>("copy_from_array", src, dst.len())?;
        let copy = array_copy::<T>(src.raw, src.extent, dst.as_mut_ptr().cast(), ToArray(false));
        // SAFETY: as in `copy_to_array`, the other way; any bit pattern is a valid `T`.
        unsafe { ffi::cuMemcpy3DAsync_v2(&raw const copy, self.as_raw()) }.result()
    }
}

/// `LengthMismatch` unless `host` elements of `T` are exactly the bound array's elements.
fn check_scoped<T>(what: &str, array: &ScopedArray<'_>, host: usize) -> Result<()> {
    check_packed(what, "array", host, array.extent)?;
    if array.width_bytes != array.extent[0] * size_of::<T>() {
        return Err(Error::custack(
            ErrorKind::LengthMismatch,
            format!("{what}: another element type than the array's"),
        ));
    }
    Ok(())
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
