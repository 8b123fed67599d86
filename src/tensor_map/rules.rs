//! What a tensor map describes, in plain values ([`Tiled`], [`Im2col`], the element types and
//! the options as enums), and the driver's documented rules for it, checked before the driver
//! is asked ([`TensorMapRule`], [`TensorMapError`]): pure arithmetic, no driver call, so the
//! unit tests below reach every rule.

use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::vocabulary::plain::DeviceCopy;

/// The most dimensions a tensor map has (`cuTensorMapEncodeTiled`'s `tensorRank`).
pub(crate) const MAX_RANK: usize = 5;

mod sealed {
    pub trait Sealed {}
}

/// An element type a tensor map can describe: the Rust type names the driver's
/// `CUtensorMapDataType`, so a map's element type cannot differ from its buffer's. Sealed.
pub trait TensorElement: DeviceCopy + sealed::Sealed {
    /// The driver's name of the type.
    #[doc(hidden)]
    const DATA_TYPE: ffi::CUtensorMapDataType;
    /// Whether it is a floating-point type (the NaN out-of-bounds fill needs one).
    #[doc(hidden)]
    const FLOAT: bool;
}

macro_rules! tensor_element {
    ($($t:ty => $c:ident, $float:literal;)*) => {$(
        impl sealed::Sealed for $t {}
        impl TensorElement for $t {
            const DATA_TYPE: ffi::CUtensorMapDataType = ffi::CUtensorMapDataType::$c;
            const FLOAT: bool = $float;
        }
    )*};
}
tensor_element! {
    u8 => CU_TENSOR_MAP_DATA_TYPE_UINT8, false;
    u16 => CU_TENSOR_MAP_DATA_TYPE_UINT16, false;
    u32 => CU_TENSOR_MAP_DATA_TYPE_UINT32, false;
    i32 => CU_TENSOR_MAP_DATA_TYPE_INT32, false;
    u64 => CU_TENSOR_MAP_DATA_TYPE_UINT64, false;
    i64 => CU_TENSOR_MAP_DATA_TYPE_INT64, false;
    f32 => CU_TENSOR_MAP_DATA_TYPE_FLOAT32, true;
    f64 => CU_TENSOR_MAP_DATA_TYPE_FLOAT64, true;
}

/// `CUtensorMapInterleave`: the interleaved layout the tensor has in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Interleave {
    /// No interleave (the usual row-major tensor).
    #[default]
    None,
    /// 16-byte interleave (NC/8HWC8 for 2-byte elements).
    B16,
    /// 32-byte interleave (NC/16HWC16); needs [`Swizzle::B32`].
    B32,
}

/// `CUtensorMapSwizzle`: how a box is spread over shared memory's banks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Swizzle {
    /// No swizzle.
    #[default]
    None,
    /// 16-byte chunks within a 32-byte span.
    B32,
    /// 16-byte chunks within a 64-byte span.
    B64,
    /// 16-byte chunks within a 128-byte span.
    B128,
}

/// `CUtensorMapL2promotion`: the granularity at which L2 is filled from DRAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum L2Promotion {
    /// No promotion.
    #[default]
    None,
    /// 64 bytes.
    B64,
    /// 128 bytes.
    B128,
    /// 256 bytes.
    B256,
}

/// `CUtensorMapFloatOOBfill`: what an element of a box outside the tensor reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OobFill {
    /// Zero.
    #[default]
    Zero,
    /// A NaN that FMA instructions treat as zero (floating-point element types only).
    NanRequestZeroFma,
}

impl Interleave {
    pub(super) fn raw(self) -> ffi::CUtensorMapInterleave {
        match self {
            Self::None => ffi::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            Self::B16 => ffi::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_16B,
            Self::B32 => ffi::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_32B,
        }
    }
    /// The bytes the hardware moves along dimension 0 at a time: 16 without interleave (TMA's
    /// unit), else the interleave's.
    fn chunk(self) -> u64 {
        match self {
            Self::None | Self::B16 => 16,
            Self::B32 => 32,
        }
    }
}
impl Swizzle {
    pub(super) fn raw(self) -> ffi::CUtensorMapSwizzle {
        match self {
            Self::None => ffi::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            Self::B32 => ffi::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
            Self::B64 => ffi::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
            Self::B128 => ffi::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        }
    }
    fn span(self) -> Option<u64> {
        match self {
            Self::None => None,
            Self::B32 => Some(32),
            Self::B64 => Some(64),
            Self::B128 => Some(128),
        }
    }
}
impl L2Promotion {
    pub(super) fn raw(self) -> ffi::CUtensorMapL2promotion {
        match self {
            Self::None => ffi::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
            Self::B64 => ffi::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
            Self::B128 => ffi::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            Self::B256 => ffi::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        }
    }
}
impl OobFill {
    pub(super) fn raw(self) -> ffi::CUtensorMapFloatOOBfill {
        match self {
            Self::Zero => ffi::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            Self::NanRequestZeroFma => {
                ffi::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
            }
        }
    }
}

/// A rule of the driver's documentation for `cuTensorMapEncodeTiled` and
/// `cuTensorMapEncodeIm2col` (group "Tensor Map Object Management"), or custack's own that the
/// map stays within its buffer: which one a refused map broke ([`TensorMapError::rule`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TensorMapRule {
    /// `tensorRank` is 1 to 5 (3 to 5 for im2col, and where `interleave` is not `NONE`).
    Rank,
    /// Every per-dimension array has its length for the rank: `rank` extents, box sizes and
    /// element strides, `rank - 1` strides, `rank - 2` corners.
    Lengths,
    /// `globalAddress` is 16-byte aligned (32 with [`Interleave::B32`]).
    BaseAlignment,
    /// Each `globalDim` is non-zero and at most 2^32.
    Extent,
    /// Each `globalStrides` is a multiple of 16 (32 with [`Interleave::B32`]) and below 2^40.
    Stride,
    /// Each `boxDim` is non-zero and at most 256.
    BoxSize,
    /// Without interleave, `boxDim[0]` × the element size is a multiple of 16 bytes.
    BoxInnerBytes,
    /// Each `elementStrides` is non-zero and at most 8.
    ElementStride,
    /// With [`Interleave::B32`], the swizzle is [`Swizzle::B32`].
    InterleaveSwizzle,
    /// Without interleave and with a swizzle, the box's inner dimension in bytes is at most the
    /// swizzle's span (32, 64 or 128).
    SwizzleSpan,
    /// [`OobFill::NanRequestZeroFma`] only for a floating-point element type.
    OobFillType,
    /// Im2col: each corner offset is within the range of its rank (rank 3: ±2^15, rank 4:
    /// ±2^7, rank 5: ±2^4, lower bound inclusive, upper exclusive).
    CornerRange,
    /// Im2col: the bounding box the corners give has a non-zero area.
    CornerBox,
    /// Im2col: `channelsPerPixel` is 1 to 256.
    ChannelsPerPixel,
    /// Im2col: `pixelsPerColumn` is 1 to 1024.
    PixelsPerColumn,
    /// custack: every byte the map reaches lies within the buffer it is built over (its last
    /// element's offset, plus dimension 0's row rounded up to the bytes the hardware moves at a
    /// time, at most the buffer's length), computed without overflow.
    FitsBuffer,
}

/// Why a tensor map was refused before the driver saw it: the rule it broke and what it
/// compared. The source of an [`ErrorKind::TensorMapRefused`] error
/// ([`TensorMapError::of`] reads it back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMapError {
    rule: TensorMapRule,
    detail: String,
}

impl TensorMapError {
    /// The rule the map broke.
    #[must_use]
    pub fn rule(&self) -> TensorMapRule {
        self.rule
    }

    /// The tensor-map refusal an error carries, if it is one.
    #[must_use]
    pub fn of(error: &Error) -> Option<&Self> {
        std::error::Error::source(error)?.downcast_ref::<Self>()
    }
}

impl core::fmt::Display for TensorMapError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}: {}", self.rule, self.detail)
    }
}
impl std::error::Error for TensorMapError {}

fn refuse(rule: TensorMapRule, detail: String) -> Error {
    Error::custack(
        ErrorKind::TensorMapRefused,
        format!("tensor map refused by rule {rule:?}: {detail}"),
    )
    .with_source(TensorMapError { rule, detail })
}

/// What a tiled tensor map describes: the tensor (extents, innermost first, and the byte
/// strides of dimensions 1 and up) and the box one copy moves. Options default to no
/// interleave, no swizzle, no L2 promotion and a zero fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tiled {
    pub(super) layout: Layout,
    pub(super) box_dims: Vec<u32>,
}

/// What an im2col tensor map describes: the tensor (NWC, NHWC or NDHWC: channels innermost),
/// the bounding box's corners in the spatial dimensions, the channels and pixels one copy
/// moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Im2col {
    pub(super) layout: Layout,
    pub(super) lower: Vec<i32>,
    pub(super) upper: Vec<i32>,
    pub(super) channels_per_pixel: u32,
    pub(super) pixels_per_column: u32,
}

/// What both kinds of map share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Layout {
    pub(super) dims: Vec<u64>,
    pub(super) strides: Vec<u64>,
    pub(super) element_strides: Vec<u32>,
    pub(super) interleave: Interleave,
    pub(super) swizzle: Swizzle,
    pub(super) l2: L2Promotion,
    pub(super) oob: OobFill,
}

impl Layout {
    fn new(dims: &[u64], strides: &[u64]) -> Self {
        Self {
            dims: dims.to_vec(),
            strides: strides.to_vec(),
            element_strides: vec![1; dims.len()],
            interleave: Interleave::None,
            swizzle: Swizzle::None,
            l2: L2Promotion::None,
            oob: OobFill::Zero,
        }
    }
}

macro_rules! options {
    ($ty:ident) => {
        impl $ty {
            /// The step along each dimension (default 1 each; each 1 to 8).
            #[must_use]
            pub fn element_strides(mut self, strides: &[u32]) -> Self {
                self.layout.element_strides = strides.to_vec();
                self
            }
            /// The interleaved layout (default none).
            #[must_use]
            pub fn interleave(mut self, interleave: Interleave) -> Self {
                self.layout.interleave = interleave;
                self
            }
            /// The shared-memory swizzle (default none).
            #[must_use]
            pub fn swizzle(mut self, swizzle: Swizzle) -> Self {
                self.layout.swizzle = swizzle;
                self
            }
            /// The L2 promotion (default none).
            #[must_use]
            pub fn l2_promotion(mut self, l2: L2Promotion) -> Self {
                self.layout.l2 = l2;
                self
            }
            /// The out-of-bounds fill (default zero).
            #[must_use]
            pub fn oob_fill(mut self, oob: OobFill) -> Self {
                self.layout.oob = oob;
                self
            }
        }
    };
}
options!(Tiled);
options!(Im2col);

impl Tiled {
    /// A tensor of `dims` elements per dimension (innermost first, 1 to 5 of them), whose
    /// dimensions 1 and up are `strides` bytes apart (`dims.len() - 1` of them), copied in boxes
    /// of `box_dims` elements (one per dimension).
    #[must_use]
    pub fn new(dims: &[u64], strides: &[u64], box_dims: &[u32]) -> Self {
        Self {
            layout: Layout::new(dims, strides),
            box_dims: box_dims.to_vec(),
        }
    }

    /// Checks every rule for elements of type `T` at `base` in a buffer of `bytes` bytes.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TensorMapRefused`], its source a [`TensorMapError`] naming the rule.
    pub(super) fn check<T: TensorElement>(&self, base: u64, bytes: usize) -> Result<()> {
        let l = &self.layout;
        let rank = l.dims.len();
        let min = if l.interleave == Interleave::None {
            1
        } else {
            3
        };
        check_rank(rank, min)?;
        if self.box_dims.len() != rank {
            return Err(lengths("box sizes", self.box_dims.len(), rank));
        }
        check_layout::<T>(l, base)?;
        for (i, &b) in self.box_dims.iter().enumerate() {
            if b == 0 || b > 256 {
                return Err(refuse(
                    TensorMapRule::BoxSize,
                    format!("box size {i} is {b}, not 1 to 256"),
                ));
            }
        }
        let inner = u64::from(self.box_dims.first().copied().unwrap_or(0)) * size_of::<T>() as u64;
        if l.interleave == Interleave::None {
            if inner % 16 != 0 {
                return Err(refuse(
                    TensorMapRule::BoxInnerBytes,
                    format!("the box's inner dimension is {inner} bytes, not a multiple of 16"),
                ));
            }
            check_swizzle_span(l.swizzle, inner)?;
        }
        check_fits::<T>(l, bytes)
    }
}

impl Im2col {
    /// A tensor of `dims` elements per dimension (channels first, then W, H, D, N; 3 to 5 of
    /// them), dimensions 1 and up `strides` bytes apart, whose bounding box's corners are
    /// `lower` and `upper` (one offset per spatial dimension, W first: `dims.len() - 2`), copying
    /// `channels_per_pixel` channels of `pixels_per_column` pixels.
    #[must_use]
    pub fn new(
        dims: &[u64],
        strides: &[u64],
        lower: &[i32],
        upper: &[i32],
        channels_per_pixel: u32,
        pixels_per_column: u32,
    ) -> Self {
        Self {
            layout: Layout::new(dims, strides),
            lower: lower.to_vec(),
            upper: upper.to_vec(),
            channels_per_pixel,
            pixels_per_column,
        }
    }

    /// As [`Tiled::check`], with the im2col rules.
    pub(super) fn check<T: TensorElement>(&self, base: u64, bytes: usize) -> Result<()> {
        let l = &self.layout;
        let rank = l.dims.len();
        check_rank(rank, 3)?;
        let spatial = rank - 2;
        if self.lower.len() != spatial || self.upper.len() != spatial {
            return Err(lengths(
                "corner offsets",
                self.lower.len().max(self.upper.len()),
                spatial,
            ));
        }
        check_layout::<T>(l, base)?;
        // rank 3: [-2^15, 2^15), rank 4: [-2^7, 2^7), rank 5: [-2^4, 2^4).
        let half: i64 = match rank {
            3 => 1 << 15,
            4 => 1 << 7,
            _ => 1 << 4,
        };
        let corners = self.lower.iter().zip(&self.upper);
        for (i, ((&lo, &up), &dim)) in corners.zip(l.dims.iter().skip(1)).enumerate() {
            for (which, v) in [("lower", lo), ("upper", up)] {
                if !(-half..half).contains(&i64::from(v)) {
                    return Err(refuse(
                        TensorMapRule::CornerRange,
                        format!(
                            "the {which} corner's offset {i} is {v}, outside [{}, {}] for rank {rank}",
                            -half,
                            half - 1
                        ),
                    ));
                }
            }
            // The box spans the dimension from `lower` to `dim - 1 + upper`.
            let size = i128::from(dim) + i128::from(up) - i128::from(lo);
            if size <= 0 {
                return Err(refuse(
                    TensorMapRule::CornerBox,
                    format!(
                        "the bounding box is empty along spatial dimension {i}: extent {dim}, \
                         corners {lo} and {up}"
                    ),
                ));
            }
        }
        if self.channels_per_pixel == 0 || self.channels_per_pixel > 256 {
            return Err(refuse(
                TensorMapRule::ChannelsPerPixel,
                format!(
                    "channels per pixel is {}, not 1 to 256",
                    self.channels_per_pixel
                ),
            ));
        }
        if self.pixels_per_column == 0 || self.pixels_per_column > 1024 {
            return Err(refuse(
                TensorMapRule::PixelsPerColumn,
                format!(
                    "pixels per column is {}, not 1 to 1024",
                    self.pixels_per_column
                ),
            ));
        }
        if l.interleave == Interleave::None {
            let inner = u64::from(self.channels_per_pixel) * size_of::<T>() as u64;
            check_swizzle_span(l.swizzle, inner)?;
        }
        check_fits::<T>(l, bytes)
    }
}

fn lengths(what: &str, got: usize, want: usize) -> Error {
    refuse(
        TensorMapRule::Lengths,
        format!("{got} {what} given, the rank needs {want}"),
    )
}

fn check_rank(rank: usize, min: usize) -> Result<()> {
    if rank < min || rank > MAX_RANK {
        return Err(refuse(
            TensorMapRule::Rank,
            format!("rank {rank}, not {min} to {MAX_RANK}"),
        ));
    }
    Ok(())
}

/// The rules both kinds share: lengths, alignment, extents, strides, element strides, the
/// interleave's swizzle and the fill's type.
fn check_layout<T: TensorElement>(l: &Layout, base: u64) -> Result<()> {
    let rank = l.dims.len();
    if l.strides.len() + 1 != rank {
        return Err(lengths("strides", l.strides.len(), rank - 1));
    }
    if l.element_strides.len() != rank {
        return Err(lengths("element strides", l.element_strides.len(), rank));
    }
    let align = if l.interleave == Interleave::B32 {
        32
    } else {
        16
    };
    if base % align != 0 {
        return Err(refuse(
            TensorMapRule::BaseAlignment,
            format!("the base address {base:#x} is not {align}-byte aligned"),
        ));
    }
    for (i, &d) in l.dims.iter().enumerate() {
        if d == 0 || d > 1 << 32 {
            return Err(refuse(
                TensorMapRule::Extent,
                format!("extent {i} is {d}, not 1 to 2^32"),
            ));
        }
    }
    for (i, &s) in l.strides.iter().enumerate() {
        if s % align != 0 || s >= 1 << 40 {
            return Err(refuse(
                TensorMapRule::Stride,
                format!(
                    "stride {} is {s} bytes, not a multiple of {align} below 2^40",
                    i + 1
                ),
            ));
        }
    }
    for (i, &e) in l.element_strides.iter().enumerate() {
        if e == 0 || e > 8 {
            return Err(refuse(
                TensorMapRule::ElementStride,
                format!("element stride {i} is {e}, not 1 to 8"),
            ));
        }
    }
    if l.interleave == Interleave::B32 && l.swizzle != Swizzle::B32 {
        return Err(refuse(
            TensorMapRule::InterleaveSwizzle,
            format!(
                "32-byte interleave needs the 32-byte swizzle, not {:?}",
                l.swizzle
            ),
        ));
    }
    if l.oob == OobFill::NanRequestZeroFma && !T::FLOAT {
        return Err(refuse(
            TensorMapRule::OobFillType,
            format!(
                "the NaN fill needs a floating-point element type, not `{}`",
                core::any::type_name::<T>()
            ),
        ));
    }
    Ok(())
}

fn check_swizzle_span(swizzle: Swizzle, inner: u64) -> Result<()> {
    match swizzle.span() {
        Some(span) if inner > span => Err(refuse(
            TensorMapRule::SwizzleSpan,
            format!("the box's inner dimension is {inner} bytes, more than the swizzle's {span}"),
        )),
        _ => Ok(()),
    }
}

/// The bytes from the base a map reaches: its last element's offset (each extent less one
/// times its stride, the element size for dimension 0) plus dimension 0's last chunk, rounded
/// up to what the hardware moves at a time; `None` on overflow.
pub(super) fn reach<T>(l: &Layout) -> Option<u64> {
    let elem = size_of::<T>() as u64;
    let (&d0, outer) = l.dims.split_first()?;
    // The start of the last row of dimension 0: each outer extent less one times its stride.
    let mut row_start = 0u64;
    for (&d, &stride) in outer.iter().zip(&l.strides) {
        row_start = row_start.checked_add(d.checked_sub(1)?.checked_mul(stride)?)?;
    }
    // That whole row, rounded up to the chunk.
    let row = d0.checked_mul(elem)?;
    let chunk = l.interleave.chunk();
    let row = row.checked_add(chunk - 1)? / chunk * chunk;
    row_start.checked_add(row)
}

fn check_fits<T: TensorElement>(l: &Layout, bytes: usize) -> Result<()> {
    match reach::<T>(l) {
        Some(r) if r <= bytes as u64 => Ok(()),
        Some(r) => Err(refuse(
            TensorMapRule::FitsBuffer,
            format!("the map reaches {r} bytes, but its buffer holds {bytes}"),
        )),
        None => Err(refuse(
            TensorMapRule::FitsBuffer,
            "the map's reach overflows 64 bits".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(e: &Error) -> TensorMapRule {
        assert_eq!(e.kind(), ErrorKind::TensorMapRefused, "{e}");
        TensorMapError::of(e).expect("a tensor-map error").rule()
    }

    /// A 64 × 32 matrix of f32, rows 256 bytes apart, boxes of 16 × 8: 8 KiB.
    fn matrix() -> Tiled {
        Tiled::new(&[64, 32], &[256], &[16, 8])
    }

    #[test]
    fn a_matrix_that_fits_passes_and_reaches_exactly_its_bytes() {
        matrix().check::<f32>(0x1000, 64 * 32 * 4).unwrap();
        assert_eq!(reach::<f32>(&matrix().layout), Some(64 * 32 * 4));
    }

    #[test]
    #[allow(
        clippy::too_many_lines,
        reason = "one case per rule, read top to bottom"
    )]
    fn each_tiled_rule_refuses_with_its_name() {
        let bytes = 1 << 20;
        let cases: Vec<(Tiled, u64, TensorMapRule)> = vec![
            (Tiled::new(&[], &[], &[]), 0, TensorMapRule::Rank),
            (
                Tiled::new(&[1; 6], &[16; 5], &[1; 6]),
                0,
                TensorMapRule::Rank,
            ),
            (
                Tiled::new(&[64, 32], &[256], &[4, 1]).interleave(Interleave::B16),
                0,
                TensorMapRule::Rank,
            ),
            (
                Tiled::new(&[64, 32], &[], &[16, 8]),
                0,
                TensorMapRule::Lengths,
            ),
            (
                Tiled::new(&[64, 32], &[256], &[16]),
                0,
                TensorMapRule::Lengths,
            ),
            (matrix().element_strides(&[1]), 0, TensorMapRule::Lengths),
            (matrix(), 0x1008, TensorMapRule::BaseAlignment),
            // 16-byte aligned, but the 32-byte interleave needs 32 (and strides of 32).
            (
                Tiled::new(&[8, 4, 4], &[32, 128], &[8, 1, 1])
                    .interleave(Interleave::B32)
                    .swizzle(Swizzle::B32),
                0x1010,
                TensorMapRule::BaseAlignment,
            ),
            (
                Tiled::new(&[8, 4, 4], &[48, 192], &[8, 1, 1])
                    .interleave(Interleave::B32)
                    .swizzle(Swizzle::B32),
                0,
                TensorMapRule::Stride,
            ),
            (
                Tiled::new(&[0, 32], &[256], &[16, 8]),
                0,
                TensorMapRule::Extent,
            ),
            (
                Tiled::new(&[(1 << 32) + 1, 1], &[1 << 36], &[16, 1]),
                0,
                TensorMapRule::Extent,
            ),
            (
                Tiled::new(&[64, 32], &[260], &[16, 8]),
                0,
                TensorMapRule::Stride,
            ),
            (
                Tiled::new(&[64, 32], &[1 << 40], &[16, 8]),
                0,
                TensorMapRule::Stride,
            ),
            (
                Tiled::new(&[64, 32], &[256], &[16, 0]),
                0,
                TensorMapRule::BoxSize,
            ),
            (
                Tiled::new(&[64, 32], &[256], &[16, 257]),
                0,
                TensorMapRule::BoxSize,
            ),
            (
                Tiled::new(&[64, 32], &[256], &[6, 8]),
                0,
                TensorMapRule::BoxInnerBytes,
            ),
            (
                matrix().element_strides(&[1, 9]),
                0,
                TensorMapRule::ElementStride,
            ),
            (
                matrix().element_strides(&[0, 1]),
                0,
                TensorMapRule::ElementStride,
            ),
            (
                Tiled::new(&[64, 32], &[256], &[16, 8]).swizzle(Swizzle::B32),
                0,
                TensorMapRule::SwizzleSpan,
            ),
            (
                Tiled::new(&[8, 4, 4], &[32, 128], &[8, 1, 1])
                    .interleave(Interleave::B32)
                    .swizzle(Swizzle::B64),
                0,
                TensorMapRule::InterleaveSwizzle,
            ),
            (
                Tiled::new(&[64, 32], &[256], &[16, 8]),
                0,
                TensorMapRule::FitsBuffer,
            ),
        ];
        for (i, (t, base, want)) in cases.into_iter().enumerate() {
            // The last case alone is checked against a buffer one byte short.
            let bytes = if want == TensorMapRule::FitsBuffer {
                64 * 32 * 4 - 1
            } else {
                bytes
            };
            let e = t.check::<f32>(base, bytes).unwrap_err();
            assert_eq!(rule(&e), want, "case {i}: {e}");
        }
    }

    #[test]
    fn an_interleaved_map_aligned_to_32_passes() {
        Tiled::new(&[8, 4, 4], &[32, 128], &[8, 1, 1])
            .interleave(Interleave::B32)
            .swizzle(Swizzle::B32)
            .check::<f32>(0x1020, 1 << 20)
            .unwrap();
    }

    #[test]
    fn the_nan_fill_needs_a_float() {
        let t = Tiled::new(&[64, 32], &[256], &[16, 8]).oob_fill(OobFill::NanRequestZeroFma);
        t.check::<f32>(0, 1 << 20).unwrap();
        let e = t.check::<u32>(0, 1 << 20).unwrap_err();
        assert_eq!(rule(&e), TensorMapRule::OobFillType);
    }

    #[test]
    fn a_swizzle_wide_enough_passes() {
        // 32 f32 = 128 bytes: the 128-byte swizzle's span exactly.
        Tiled::new(&[64, 32], &[256], &[32, 8])
            .swizzle(Swizzle::B128)
            .check::<f32>(0, 1 << 20)
            .unwrap();
    }

    #[test]
    fn the_reach_counts_every_strided_dimension_and_the_rounded_row() {
        // 3 f32 in a row (12 bytes, rounded to 16), 2 rows 32 bytes apart: 32 + 16 = 48.
        let t = Tiled::new(&[3, 2], &[32], &[4, 2]);
        assert_eq!(reach::<f32>(&t.layout), Some(48));
        t.check::<f32>(0, 48).unwrap();
        let e = t.check::<f32>(0, 47).unwrap_err();
        assert_eq!(rule(&e), TensorMapRule::FitsBuffer);
        // Overflow is a refusal, not a wrap.
        let huge = Tiled::new(&[1 << 32, 1 << 32], &[(1 << 40) - 16], &[16, 1]);
        let e = huge.check::<u8>(0, usize::MAX).unwrap_err();
        assert_eq!(rule(&e), TensorMapRule::FitsBuffer);
    }

    /// NHWC 16 channels of f32, 8 × 8 pixels, batch 2; 1-pixel padding either side.
    fn nhwc() -> Im2col {
        Im2col::new(&[16, 8, 8, 2], &[64, 512, 4096], &[-1, -1], &[1, 1], 16, 64)
    }

    #[test]
    fn each_im2col_rule_refuses_with_its_name() {
        nhwc().check::<f32>(0, 8192).unwrap();
        let cases: Vec<(Im2col, TensorMapRule)> = vec![
            (
                Im2col::new(&[16, 8], &[64], &[], &[], 16, 8),
                TensorMapRule::Rank,
            ),
            (
                Im2col::new(&[16, 8, 8, 2], &[64, 512, 4096], &[-1], &[1, 1], 16, 64),
                TensorMapRule::Lengths,
            ),
            (
                Im2col::new(
                    &[16, 8, 8, 2],
                    &[64, 512, 4096],
                    &[-129, 0],
                    &[0, 0],
                    16,
                    64,
                ),
                TensorMapRule::CornerRange,
            ),
            (
                Im2col::new(&[16, 8, 8, 2], &[64, 512, 4096], &[0, 0], &[128, 0], 16, 64),
                TensorMapRule::CornerRange,
            ),
            (
                Im2col::new(&[16, 8, 8, 2], &[64, 512, 4096], &[0, 8], &[0, 0], 16, 64),
                TensorMapRule::CornerBox,
            ),
            (
                Im2col::new(&[16, 8, 8, 2], &[64, 512, 4096], &[0, 0], &[0, 0], 0, 64),
                TensorMapRule::ChannelsPerPixel,
            ),
            (
                Im2col::new(&[16, 8, 8, 2], &[64, 512, 4096], &[0, 0], &[0, 0], 257, 64),
                TensorMapRule::ChannelsPerPixel,
            ),
            (
                Im2col::new(&[16, 8, 8, 2], &[64, 512, 4096], &[0, 0], &[0, 0], 16, 1025),
                TensorMapRule::PixelsPerColumn,
            ),
            (nhwc().swizzle(Swizzle::B32), TensorMapRule::SwizzleSpan),
        ];
        for (i, (m, want)) in cases.into_iter().enumerate() {
            let e = m.check::<f32>(0, 8192).unwrap_err();
            assert_eq!(rule(&e), want, "case {i}: {e}");
        }
        // Rank 3 takes offsets up to ±2^15, rank 5 only ±2^4.
        Im2col::new(&[16, 8, 2], &[64, 512], &[-32768], &[32767], 16, 8)
            .check::<f32>(0, 1024)
            .unwrap();
        let e = Im2col::new(
            &[16, 4, 4, 4, 1],
            &[64, 256, 1024, 4096],
            &[-17, 0, 0],
            &[0, 0, 0],
            16,
            8,
        )
        .check::<f32>(0, 4096)
        .unwrap_err();
        assert_eq!(rule(&e), TensorMapRule::CornerRange);
        let e = nhwc().check::<f32>(0, 8191).unwrap_err();
        assert_eq!(rule(&e), TensorMapRule::FitsBuffer);
    }
}
