//! How a texture samples (`CUDA_TEXTURE_DESC`): [`TextureOptions`], with an [`AddressMode`] per
//! dimension and the [`FilterMode`]s of texels and mipmap levels.

use crate::ffi;

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

/// How a [`TextureObject`](crate::TextureObject) samples: every field of `CUDA_TEXTURE_DESC`. The
/// default is C's zeroed descriptor but for the address modes: clamping, point filtering,
/// coordinates in texels, integer texels read as normalized floats.
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

#[cfg(test)]
mod tests {
    use super::{AddressMode, FilterMode, TextureOptions};
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
}
