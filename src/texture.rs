//! CUDA arrays, texture objects and surface objects.
//!
//! A [`CudaArray`] is opaque, texture-friendly device memory (`cuArray3DCreate`), copied to and
//! from packed host rows synchronously and in scopes. A [`TextureObject`] (`cuTexObjectCreate`)
//! borrows its array *shared* and a [`SurfaceObject`] (`cuSurfObjectCreate`) borrows it
//! *exclusively*, so the array can be neither freed nor written otherwise while an object over
//! it exists. A kernel receives an object only bound to its scope ([`StreamScope::bind_texture`],
//! [`StreamScope::bind_surface`]), which keeps the object, and so the array, alive and unchanged
//! until the scope has waited.

use crate::StreamScope;
use crate::asynchronous::scope::{Invariant, ScopedHost, ScopedHostMut};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::pitched::{Side2d, check_packed, copy2d};
use crate::plain::DeviceCopy;
use crate::stack::{ContextKind, PushedGuard};
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// An element type a [`CudaArray`] can hold: 1, 2 or 4 channels of `u8`, `u16`, `u32`, `i32`
/// or `f32`. Sealed.
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

/// A `width` × `height` CUDA array of `T`, lent by a guard; destroyed on drop
/// (`cuArrayDestroy`). Created surface-capable, so textures and surfaces can both use it.
#[derive(Debug)]
pub struct CudaArray<'g, T: ArrayElement> {
    raw: ffi::CUarray,
    width: usize,
    height: usize,
    _marker: PhantomData<(&'g (), *const T)>,
}

/// How a [`TextureObject`] samples.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
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
pub struct TextureObject<'a> {
    raw: ffi::CUtexObject,
    _marker: PhantomData<(&'a (), *const ())>,
}

/// A surface object over a [`CudaArray`], borrowing it exclusively; destroyed on drop.
#[derive(Debug)]
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
    #[doc(alias = "cuArray3DCreate")]
    pub fn alloc_array<T: ArrayElement>(
        &self,
        width: usize,
        height: usize,
    ) -> Result<CudaArray<'_, T>> {
        if width == 0 || height == 0 {
            return Err(Error::from_code(ffi::CUresult::CUDA_ERROR_INVALID_VALUE)
                .with_detail("an empty array: allocate at least one element"));
        }
        let desc = ffi::CUDA_ARRAY3D_DESCRIPTOR {
            Width: width,
            Height: if height == 1 { 0 } else { height },
            Depth: 0,
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
            _marker: PhantomData,
        })
    }

    /// `cuTexObjectCreate`—A texture object reading `array` (borrowed shared while it lives).
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
    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }
    /// The raw `CUarray`.
    pub fn as_raw(&self) -> ffi::CUarray {
        self.raw
    }

    /// `cuMemcpy2D`—Copies packed host rows into the array.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] (no driver call); driver errors.
    #[doc(alias = "cuMemcpy2D")]
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        check_packed(
            "copy_from_host",
            "array",
            src.len(),
            self.width,
            self.height,
        )?;
        let copy = copy2d(
            Side2d::Array(self.raw),
            Side2d::Host(src.as_ptr().cast_mut().cast(), self.width * size_of::<T>()),
            self.width * size_of::<T>(),
            self.height,
        );
        // SAFETY: `src` holds the array's elements, packed (only read); a live array of the
        // current context, exclusively borrowed.
        unsafe { ffi::cuMemcpy2D_v2(&raw const copy) }.result()
    }

    /// `cuMemcpy2D`—The array's elements as packed rows.
    #[doc(alias = "cuMemcpy2D")]
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let n = self.width * self.height;
        let mut v: Vec<T> = Vec::with_capacity(n);
        let copy = copy2d(
            Side2d::Host(v.as_mut_ptr().cast(), self.width * size_of::<T>()),
            Side2d::Array(self.raw),
            self.width * size_of::<T>(),
            self.height,
        );
        // SAFETY: `v` has room for the array's elements; a live array of the current context.
        unsafe { ffi::cuMemcpy2D_v2(&raw const copy) }.result()?;
        // SAFETY: the copy initialized all `n` elements; any bit pattern is a valid `T`.
        unsafe { v.set_len(n) };
        Ok(v)
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
    width: usize,
    height: usize,
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
            width: array.width,
            height: array.height,
            _marker: PhantomData,
        }
    }

    /// `cuMemcpy2DAsync`—Enqueues a copy of packed host rows into an array.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] (no driver call); driver errors.
    #[doc(alias = "cuMemcpy2DAsync")]
    pub fn copy_to_array<T: ArrayElement>(
        &self,
        dst: &mut ScopedArray<'scope>,
        src: impl Into<ScopedHost<'scope, T>>,
    ) -> Result<()> {
        let src = src.into();
        check_packed("copy_to_array", "array", src.len(), dst.width, dst.height)?;
        if dst.width_bytes != dst.width * size_of::<T>() {
            return Err(Error::custack(
                ErrorKind::LengthMismatch,
                "copy_to_array: another element type",
            ));
        }
        let copy = copy2d(
            Side2d::Array(dst.raw),
            Side2d::Host(src.as_ptr().cast_mut().cast(), dst.width_bytes),
            dst.width_bytes,
            dst.height,
        );
        // SAFETY: both stay borrowed until the scope has waited; the host side holds the
        // array's bytes, packed (only read).
        unsafe { ffi::cuMemcpy2DAsync_v2(&raw const copy, self.as_raw()) }.result()
    }

    /// `cuMemcpy2DAsync`—Enqueues a copy of an array into packed host rows.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] (no driver call); driver errors.
    #[doc(alias = "cuMemcpy2DAsync")]
    pub fn copy_from_array<T: ArrayElement>(
        &self,
        dst: impl Into<ScopedHostMut<'scope, T>>,
        src: &ScopedArray<'scope>,
    ) -> Result<()> {
        let dst = dst.into();
        check_packed("copy_from_array", "array", dst.len(), src.width, src.height)?;
        if src.width_bytes != src.width * size_of::<T>() {
            return Err(Error::custack(
                ErrorKind::LengthMismatch,
                "copy_from_array: another element type",
            ));
        }
        let copy = copy2d(
            Side2d::Host(dst.as_mut_ptr().cast(), src.width_bytes),
            Side2d::Array(src.raw),
            src.width_bytes,
            src.height,
        );
        // SAFETY: as in `copy_to_array`, the other way; any bit pattern is a valid `T`.
        unsafe { ffi::cuMemcpy2DAsync_v2(&raw const copy, self.as_raw()) }.result()
    }
}
