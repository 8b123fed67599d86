//! CUDA arrays, texture objects and surface objects.
//!
//! A [`CudaArray`] is opaque, texture-friendly device memory (`cuArray3DCreate`), one, two or
//! three dimensional, copied to and from packed host elements synchronously and in scopes
//! (`cuMemcpy3D`, `cuMemcpy3DAsync`). A [`TextureObject`] (`cuTexObjectCreate`)
//! borrows what it reads *shared* and a [`SurfaceObject`] (`cuSurfObjectCreate`) borrows its
//! array *exclusively*, so the memory can be neither freed nor written otherwise while an
//! object over it exists.
//!
//! A texture reads any of the resources of `CUDA_RESOURCE_DESC` ([`TextureResource`]): a CUDA
//! array, a [`MipmappedArray`](crate::MipmappedArray), linear device memory (any
//! [`DeviceMemory`]), or a [`PitchedBuffer`] as a 2D image; arrays and mipmapped arrays also
//! through a [`ResourceView`]. It samples as [`TextureOptions`] says, which covers
//! `CUDA_TEXTURE_DESC`: an [`AddressMode`] per dimension and a border colour, [`FilterMode`]s
//! for texels and mipmap levels, level-of-detail bias and clamps, maximum anisotropy,
//! normalized coordinates, integer reads and sRGB. A kernel receives an object only bound to its scope ([`StreamScope::bind_texture`],
//! [`StreamScope::bind_surface`]), which keeps the object, and so the array, alive and unchanged
//! until the scope has waited.

pub(crate) mod mipmap;

use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::memory::DeviceMemory;
use crate::memory::pitched::PitchedBuffer;
use crate::memory::pitched::check_packed;
use crate::texture::mipmap::MipmappedArray;
use crate::vocabulary::argument::{KernelArg, KernelParam, sealed as launch_sealed};
use crate::vocabulary::binding::{Invariant, ScopedHost, ScopedHostMut};
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

/// How a texture resolves a coordinate outside the texture, in one dimension
/// (`CUaddress_mode`). [`Wrap`](Self::Wrap) and [`Mirror`](Self::Mirror) need normalized
/// coordinates ([`TextureOptions::normalized`]); without them the driver clamps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[doc(alias = "CUaddress_mode")]
pub enum AddressMode {
    /// Repeat the texture: coordinate `x` reads at `x - floor(x)` (`CU_TR_ADDRESS_MODE_WRAP`).
    Wrap,
    /// The edge texel (`CU_TR_ADDRESS_MODE_CLAMP`). The default.
    #[default]
    Clamp,
    /// Repeat the texture mirrored every other period (`CU_TR_ADDRESS_MODE_MIRROR`).
    Mirror,
    /// [`TextureOptions::border_color`] outside the texture (`CU_TR_ADDRESS_MODE_BORDER`).
    Border,
}

impl AddressMode {
    const fn raw(self) -> ffi::CUaddress_mode {
        match self {
            Self::Wrap => ffi::CU_TR_ADDRESS_MODE_WRAP,
            Self::Clamp => ffi::CU_TR_ADDRESS_MODE_CLAMP,
            Self::Mirror => ffi::CU_TR_ADDRESS_MODE_MIRROR,
            Self::Border => ffi::CU_TR_ADDRESS_MODE_BORDER,
        }
    }
}

/// How a texture filters texels, or mipmap levels (`CUfilter_mode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[doc(alias = "CUfilter_mode")]
pub enum FilterMode {
    /// The nearest texel, or level (`CU_TR_FILTER_MODE_POINT`). The default.
    #[default]
    Point,
    /// Linear interpolation between texels, or levels (`CU_TR_FILTER_MODE_LINEAR`); for float
    /// reads only (not with [`TextureOptions::read_as_integer`]).
    Linear,
}

impl FilterMode {
    const fn raw(self) -> ffi::CUfilter_mode {
        match self {
            Self::Point => ffi::CU_TR_FILTER_MODE_POINT,
            Self::Linear => ffi::CU_TR_FILTER_MODE_LINEAR,
        }
    }
}

/// How a [`TextureObject`] samples: every field of `CUDA_TEXTURE_DESC`. The default is C's
/// zeroed descriptor but for the address modes: clamping, point filtering, coordinates in
/// texels, integer texels read as normalized floats.
///
/// ```
/// use custack::{AddressMode, FilterMode, TextureOptions};
/// // Tile an image: wrap around both edges, interpolate, coordinates in [0, 1).
/// let tiled = TextureOptions {
///     filter: FilterMode::Linear,
///     normalized: true,
///     ..TextureOptions::default().with_address(AddressMode::Wrap)
/// };
/// assert_eq!(tiled.address, [AddressMode::Wrap; 3]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[doc(alias = "CUDA_TEXTURE_DESC")]
// One bool per `CU_TRSF_*` flag, as C has them: independent switches, not states.
#[allow(clippy::struct_excessive_bools)]
pub struct TextureOptions {
    /// The address mode of each dimension (x, y, z) (`addressMode`).
    pub address: [AddressMode; 3],
    /// The colour read outside the texture where the address mode is
    /// [`Border`](AddressMode::Border) (`borderColor`), as floats, whatever the element type
    /// (integer reads take the bits of the floats).
    pub border_color: [f32; 4],
    /// Filtering between texels (`filterMode`).
    pub filter: FilterMode,
    /// Filtering between mipmap levels (`mipmapFilterMode`).
    pub mipmap_filter: FilterMode,
    /// Added to the level of detail a kernel asks for (`mipmapLevelBias`).
    pub mipmap_level_bias: f32,
    /// The most detailed level read (`minMipmapLevelClamp`).
    pub min_mipmap_level_clamp: f32,
    /// The least detailed level read (`maxMipmapLevelClamp`). As in C, 0 by default, which
    /// reads only level 0: set it to the last level to read.
    pub max_mipmap_level_clamp: f32,
    /// The maximum anisotropy ratio, 1 to 16 (`maxAnisotropy`; 0, the default, is 1).
    pub max_anisotropy: u32,
    /// Coordinates in [0, 1) rather than in texels (`CU_TRSF_NORMALIZED_COORDINATES`).
    pub normalized: bool,
    /// Integer texels read as integers rather than as floats in [0, 1] or [-1, 1]
    /// (`CU_TRSF_READ_AS_INTEGER`).
    pub read_as_integer: bool,
    /// 8-bit texels converted from sRGB to linear on reads (`CU_TRSF_SRGB`).
    pub srgb: bool,
    /// Full-precision trilinear filtering between levels
    /// (`CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION`).
    pub disable_trilinear_optimization: bool,
}

impl Default for TextureOptions {
    fn default() -> Self {
        Self {
            address: [AddressMode::Clamp; 3],
            border_color: [0.0; 4],
            filter: FilterMode::Point,
            mipmap_filter: FilterMode::Point,
            mipmap_level_bias: 0.0,
            min_mipmap_level_clamp: 0.0,
            max_mipmap_level_clamp: 0.0,
            max_anisotropy: 0,
            normalized: false,
            read_as_integer: false,
            srgb: false,
            disable_trilinear_optimization: false,
        }
    }
}

impl TextureOptions {
    /// The same options with `mode` in every dimension.
    #[must_use]
    pub const fn with_address(self, mode: AddressMode) -> Self {
        Self {
            address: [mode; 3],
            ..self
        }
    }

    /// The driver's descriptor.
    pub(crate) fn to_raw(self) -> ffi::CUDA_TEXTURE_DESC {
        let [x, y, z] = self.address;
        let mut flags = 0;
        for (on, flag) in [
            (self.normalized, ffi::CU_TRSF_NORMALIZED_COORDINATES),
            (self.read_as_integer, ffi::CU_TRSF_READ_AS_INTEGER),
            (self.srgb, ffi::CU_TRSF_SRGB),
            (
                self.disable_trilinear_optimization,
                ffi::CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION,
            ),
        ] {
            if on {
                flags |= flag;
            }
        }
        ffi::CUDA_TEXTURE_DESC {
            addressMode: [x.raw(), y.raw(), z.raw()],
            filterMode: self.filter.raw(),
            flags,
            maxAnisotropy: self.max_anisotropy,
            mipmapFilterMode: self.mipmap_filter.raw(),
            mipmapLevelBias: self.mipmap_level_bias,
            minMipmapLevelClamp: self.min_mipmap_level_clamp,
            maxMipmapLevelClamp: self.max_mipmap_level_clamp,
            borderColor: self.border_color,
            reserved: [0; 12],
        }
    }
}

/// Which part of an array or mipmapped array a texture reads (`CUDA_RESOURCE_VIEW_DESC`):
/// a range of mipmap levels and the extent of the view. The texels are read in the array's
/// own format.
///
/// Start from [`ResourceView::of_array`] or [`ResourceView::of_mipmapped`] (the whole
/// resource) and narrow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CUDA_RESOURCE_VIEW_DESC")]
pub struct ResourceView {
    /// Width of the view, in elements.
    pub width: usize,
    /// Height of the view (1 for a 1D resource).
    pub height: usize,
    /// Depth of the view (1 for a 1D or 2D resource).
    pub depth: usize,
    /// The most detailed mipmap level the view holds (its level 0).
    pub first_level: u32,
    /// The least detailed mipmap level the view holds.
    pub last_level: u32,
}

impl ResourceView {
    /// The whole of `array`.
    pub fn of_array<T: ArrayElement>(array: &CudaArray<'_, T>) -> Self {
        Self {
            width: array.width,
            height: array.height,
            depth: array.depth,
            first_level: 0,
            last_level: 0,
        }
    }

    /// The whole of `array`, all of its levels.
    pub fn of_mipmapped<T: ArrayElement>(array: &MipmappedArray<'_, T>) -> Self {
        let [width, height, depth] = array.extent();
        Self {
            width,
            height,
            depth,
            first_level: 0,
            last_level: array.levels().saturating_sub(1),
        }
    }

    /// The same view of levels `first..=last` only.
    #[must_use]
    pub const fn levels(self, first: u32, last: u32) -> Self {
        Self {
            first_level: first,
            last_level: last,
            ..self
        }
    }

    fn to_raw(self, format: ffi::CUresourceViewFormat) -> ffi::CUDA_RESOURCE_VIEW_DESC {
        // As for arrays, the descriptor's height is 0 for 1D and its depth 0 for 1D and 2D.
        ffi::CUDA_RESOURCE_VIEW_DESC {
            format,
            width: self.width,
            height: if self.height == 1 && self.depth == 1 {
                0
            } else {
                self.height
            },
            depth: if self.depth == 1 { 0 } else { self.depth },
            firstMipmapLevel: self.first_level,
            lastMipmapLevel: self.last_level,
            firstLayer: 0,
            lastLayer: 0,
            reserved: [0; 16],
        }
    }
}

/// What a texture reads (`CUDA_RESOURCE_DESC`, and a `CUDA_RESOURCE_VIEW_DESC` where one is
/// given), borrowing it shared for `'a`: a [`CudaArray`], a [`MipmappedArray`], linear device
/// memory, or a [`PitchedBuffer`]. The [`TextureObject`] made from it
/// ([`PushedGuard::texture_from`]) keeps the borrow, so the memory can be neither written nor
/// freed while the texture lives (C21).
#[derive(Debug, Clone, Copy)]
#[doc(alias = "CUDA_RESOURCE_DESC")]
pub struct TextureResource<'a> {
    desc: ffi::CUDA_RESOURCE_DESC,
    view: Option<ffi::CUDA_RESOURCE_VIEW_DESC>,
    // The handles and addresses are the current context's: not to be used on another thread.
    _marker: PhantomData<(&'a (), *const ())>,
}

fn resource(
    res_type: ffi::CUresourcetype,
    res: ffi::CUDA_RESOURCE_DESC_res,
) -> ffi::CUDA_RESOURCE_DESC {
    ffi::CUDA_RESOURCE_DESC {
        resType: res_type,
        res,
        flags: 0,
    }
}

fn array_resource(array: ffi::CUarray) -> ffi::CUDA_RESOURCE_DESC {
    let mut res = ffi::CUDA_RESOURCE_DESC_res { reserved: [0; 32] };
    res.array = ffi::CUDA_RESOURCE_DESC_array { hArray: array };
    resource(ffi::CU_RESOURCE_TYPE_ARRAY, res)
}

impl<'a> TextureResource<'a> {
    /// A CUDA array (`CU_RESOURCE_TYPE_ARRAY`).
    pub fn array<T: ArrayElement>(array: &'a CudaArray<'_, T>) -> Self {
        Self {
            desc: array_resource(array.raw),
            view: None,
            _marker: PhantomData,
        }
    }

    /// A view of a CUDA array.
    pub fn array_view<T: ArrayElement>(array: &'a CudaArray<'_, T>, view: &ResourceView) -> Self {
        Self {
            view: Some(view.to_raw(T::VIEW_FORMAT)),
            ..Self::array(array)
        }
    }

    /// A mipmapped CUDA array (`CU_RESOURCE_TYPE_MIPMAPPED_ARRAY`): a kernel reads it with an
    /// explicit level of detail (`tex2DLod`) or a gradient (`tex2DGrad`).
    pub fn mipmapped<T: ArrayElement>(array: &'a MipmappedArray<'_, T>) -> Self {
        let mut res = ffi::CUDA_RESOURCE_DESC_res { reserved: [0; 32] };
        res.mipmap = ffi::CUDA_RESOURCE_DESC_mipmap {
            hMipmappedArray: array.as_raw(),
        };
        Self {
            desc: resource(ffi::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY, res),
            view: None,
            _marker: PhantomData,
        }
    }

    /// A view of a mipmapped CUDA array, e.g. a range of its levels.
    pub fn mipmapped_view<T: ArrayElement>(
        array: &'a MipmappedArray<'_, T>,
        view: &ResourceView,
    ) -> Self {
        Self {
            view: Some(view.to_raw(T::VIEW_FORMAT)),
            ..Self::mipmapped(array)
        }
    }

    /// Linear device memory (`CU_RESOURCE_TYPE_LINEAR`): a buffer or a view of one, read by
    /// element index (`tex1Dfetch`). Its address must be aligned to the device's
    /// [`TextureAlignment`](crate::DeviceAttribute::TextureAlignment) (allocations are; a view
    /// at an offset may not be), or the driver refuses the texture.
    pub fn linear<T: ArrayElement, M: DeviceMemory<T> + ?Sized>(memory: &'a M) -> Self {
        let mut res = ffi::CUDA_RESOURCE_DESC_res { reserved: [0; 32] };
        res.linear = ffi::CUDA_RESOURCE_DESC_linear {
            devPtr: memory.device_ptr(),
            format: T::FORMAT,
            numChannels: T::CHANNELS,
            sizeInBytes: memory.byte_len(),
        };
        Self {
            desc: resource(ffi::CU_RESOURCE_TYPE_LINEAR, res),
            view: None,
            _marker: PhantomData,
        }
    }

    /// Pitched device memory as a 2D image (`CU_RESOURCE_TYPE_PITCH2D`), read like a 2D
    /// array (`tex2D`).
    pub fn pitched<T: ArrayElement>(memory: &'a PitchedBuffer<'_, T>) -> Self {
        let mut res = ffi::CUDA_RESOURCE_DESC_res { reserved: [0; 32] };
        res.pitch2D = ffi::CUDA_RESOURCE_DESC_pitch2D {
            devPtr: memory.device_ptr(),
            format: T::FORMAT,
            numChannels: T::CHANNELS,
            width: memory.width(),
            height: memory.height(),
            pitchInBytes: memory.pitch_bytes(),
        };
        Self {
            desc: resource(ffi::CU_RESOURCE_TYPE_PITCH2D, res),
            view: None,
            _marker: PhantomData,
        }
    }

    /// The resource descriptor.
    pub fn as_raw(&self) -> &ffi::CUDA_RESOURCE_DESC {
        &self.desc
    }

    /// The view descriptor, if any.
    pub fn view_as_raw(&self) -> Option<&ffi::CUDA_RESOURCE_VIEW_DESC> {
        self.view.as_ref()
    }
}

/// A texture object over a [`TextureResource`], borrowing what it reads shared; destroyed on
/// drop.
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

    /// `cuTexObjectCreate`—A texture object reading `array` (borrowed shared while it lives):
    /// [`texture_from`](Self::texture_from) with [`TextureResource::array`].
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
        self.texture_from(TextureResource::array(array), options)
    }

    /// `cuTexObjectCreate`—A texture object reading `resource` (an array, a mipmapped array,
    /// linear or pitched device memory, borrowed shared while the texture lives) as `options`
    /// say.
    ///
    /// # Errors
    ///
    /// Driver errors, e.g. `InvalidValue` for options the resource does not support (linear
    /// filtering of integer reads, wrap or mirror addressing without normalized coordinates
    /// on some devices, a linear resource beyond the device's maximum width or misaligned).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{AddressMode, Context, ContextFlags, Driver, FilterMode, Stack};
    /// use custack::{TextureOptions, TextureResource};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut image = guard.alloc_pitched::<f32>(640, 480)?;
    /// image.copy_from_host(&vec![0.5; 640 * 480])?;
    /// let options = TextureOptions {
    ///     filter: FilterMode::Linear,
    ///     normalized: true,
    ///     border_color: [1.0, 0.0, 0.0, 0.0],
    ///     ..TextureOptions::default().with_address(AddressMode::Border)
    /// };
    /// let texture = guard.texture_from(TextureResource::pitched(&image), &options)?;
    /// // `image` is borrowed by `texture`: `image.copy_from_host(..)` would not compile here
    /// # drop(texture);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TEXOBJECT.html>
    #[doc(alias = "cuTexObjectCreate")]
    pub fn texture_from<'a>(
        &self,
        resource: TextureResource<'a>,
        options: &TextureOptions,
    ) -> Result<TextureObject<'a>> {
        let desc = options.to_raw();
        let view = resource
            .view
            .as_ref()
            .map_or(core::ptr::null(), core::ptr::from_ref);
        let mut raw = 0;
        // SAFETY: valid out-pointer; fully initialized descriptors; the resource names a live
        // array, mipmapped array or allocation of this context (it borrows it for `'a`, and it
        // is `!Send`, so this thread's current context is the one it was made under); the view
        // is null or a live descriptor.
        unsafe {
            ffi::cuTexObjectCreate(
                &raw mut raw,
                &raw const resource.desc,
                &raw const desc,
                view,
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
        // SAFETY: a live, surface-capable array of this context, borrowed exclusively for 'a.
        unsafe { create_surface(array.raw) }
    }
}

/// `cuSurfObjectCreate` over `array`.
///
/// # Safety
///
/// `array` is a live, surface-capable array of the current context that nothing else reads or
/// writes for `'a` (the caller holds an exclusive borrow of its owner for `'a`).
pub(crate) unsafe fn create_surface<'a>(array: ffi::CUarray) -> Result<SurfaceObject<'a>> {
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

/// A [`CudaArray`] (or one level of a [`MipmappedArray`]) bound exclusively to a scope, for its
/// copies.
#[derive(Debug)]
pub struct ScopedArray<'scope> {
    raw: ffi::CUarray,
    width_bytes: usize,
    extent: [usize; 3],
    _marker: PhantomData<(Invariant<'scope>, *const ())>,
}

impl ScopedArray<'_> {
    /// An array of `T` with `extent`, bound to a scope.
    ///
    /// # Safety
    ///
    /// `raw` is a live array of the current context with that extent and element type, which
    /// nothing else uses while the scope may (the caller holds an exclusive borrow of its owner
    /// for `'scope`).
    pub(crate) unsafe fn from_raw<T: ArrayElement>(raw: ffi::CUarray, extent: [usize; 3]) -> Self {
        Self {
            raw,
            width_bytes: extent[0] * size_of::<T>(),
            extent,
            _marker: PhantomData,
        }
    }
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
#[cfg(test)]
mod tests {
    use super::{AddressMode, FilterMode, ResourceView, TextureOptions, TextureResource};
    use crate::ffi;

    #[test]
    #[allow(clippy::float_cmp)] // the descriptor holds exact copies of the options' floats
    fn options_fill_every_field_of_the_descriptor() {
        let d = TextureOptions::default().to_raw();
        assert_eq!(d.addressMode, [ffi::CU_TR_ADDRESS_MODE_CLAMP; 3]);
        assert_eq!((d.filterMode, d.flags, d.maxAnisotropy), (0, 0, 0));
        let o = TextureOptions {
            address: [AddressMode::Wrap, AddressMode::Mirror, AddressMode::Border],
            border_color: [1.0, 2.0, 3.0, 4.0],
            filter: FilterMode::Linear,
            mipmap_filter: FilterMode::Linear,
            mipmap_level_bias: 0.5,
            min_mipmap_level_clamp: 1.0,
            max_mipmap_level_clamp: 3.0,
            max_anisotropy: 8,
            normalized: true,
            read_as_integer: false,
            srgb: true,
            disable_trilinear_optimization: true,
        };
        let d = o.to_raw();
        assert_eq!(d.addressMode, [0, 2, 3]);
        assert_eq!((d.filterMode, d.mipmapFilterMode), (1, 1));
        assert_eq!(d.flags, 0x02 | 0x10 | 0x20);
        assert_eq!(d.maxAnisotropy, 8);
        assert_eq!(
            (
                d.mipmapLevelBias,
                d.minMipmapLevelClamp,
                d.maxMipmapLevelClamp
            ),
            (0.5, 1.0, 3.0)
        );
        assert_eq!(d.borderColor, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(d.reserved, [0; 12]);
        let wrap = TextureOptions::default().with_address(AddressMode::Wrap);
        assert_eq!(wrap.to_raw().addressMode, [0; 3]);
    }

    #[test]
    fn views_use_the_descriptor_conventions_of_arrays() {
        let view = |w, h, d| ResourceView {
            width: w,
            height: h,
            depth: d,
            first_level: 1,
            last_level: 3,
        };
        let one_d = view(64, 1, 1).to_raw(ffi::CU_RES_VIEW_FORMAT_FLOAT_1X32);
        assert_eq!((one_d.width, one_d.height, one_d.depth), (64, 0, 0));
        let two_d = view(64, 48, 1).to_raw(ffi::CU_RES_VIEW_FORMAT_UINT_4X8);
        assert_eq!((two_d.width, two_d.height, two_d.depth), (64, 48, 0));
        assert_eq!(two_d.format, ffi::CU_RES_VIEW_FORMAT_UINT_4X8);
        assert_eq!((two_d.firstMipmapLevel, two_d.lastMipmapLevel), (1, 3));
        let three_d = view(8, 4, 2).levels(0, 0).to_raw(0);
        assert_eq!(
            (three_d.height, three_d.depth, three_d.lastMipmapLevel),
            (4, 2, 0)
        );
    }

    #[test]
    fn linear_resources_describe_the_memory_they_borrow() {
        // SAFETY: a view only described here, never used with the driver.
        let floats = unsafe { crate::memory::DeviceView::<f32>::from_raw_parts(0x7000, 256) };
        let r = TextureResource::linear(&floats);
        assert_eq!(r.as_raw().resType, ffi::CU_RESOURCE_TYPE_LINEAR);
        // SAFETY: `linear` wrote the `linear` member.
        let linear = unsafe { r.as_raw().res.linear };
        assert_eq!(
            (
                linear.devPtr,
                linear.format,
                linear.numChannels,
                linear.sizeInBytes
            ),
            (0x7000, ffi::CU_AD_FORMAT_FLOAT, 1, 1024)
        );
        assert!(r.view_as_raw().is_none());
        // SAFETY: as above.
        let rgba = unsafe { crate::memory::DeviceView::<[u8; 4]>::from_raw_parts(0x8000, 10) };
        // SAFETY: as above.
        let linear = unsafe { TextureResource::linear(&rgba).as_raw().res.linear };
        assert_eq!(
            (linear.format, linear.numChannels, linear.sizeInBytes),
            (ffi::CU_AD_FORMAT_UNSIGNED_INT8, 4, 40)
        );
    }
}
