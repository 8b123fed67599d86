//! 16-bit floating-point storage types for [`Blas::gemm_ex`]: IEEE half ([`F16`]) and bfloat16
//! ([`Bf16`]), as their bits, with conversions to and from `f32`.
//!
//! custack does no arithmetic on them: they are what device memory holds. The conversions from
//! `f32` round to nearest, ties to even, as the GPU's own conversions do.
//!
//! [`Blas::gemm_ex`]: crate::blas::handle::Blas::gemm_ex

use crate::vocabulary::plain::DeviceCopy;

/// An IEEE 754 half-precision float (binary16, CUDA's `__half`, `CUDA_R_16F`), as its bits.
///
/// # Examples
///
/// ```
/// use custack::blas::F16;
/// assert_eq!(F16::from_f32(1.5).0, 0x3e00);
/// assert_eq!(F16(0x3e00).to_f32(), 1.5);
/// ```
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[doc(alias = "__half")]
#[doc(alias = "CUDA_R_16F")]
pub struct F16(pub u16);

/// A bfloat16 float (CUDA's `__nv_bfloat16`, `CUDA_R_16BF`): the upper half of an `f32`, as
/// its bits.
///
/// # Examples
///
/// ```
/// use custack::blas::Bf16;
/// assert_eq!(Bf16::from_f32(1.5).0, 0x3fc0);
/// assert_eq!(Bf16(0x3fc0).to_f32(), 1.5);
/// ```
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[doc(alias = "__nv_bfloat16")]
#[doc(alias = "CUDA_R_16BF")]
pub struct Bf16(pub u16);

// SAFETY: `#[repr(transparent)]` over `u16`: no padding, and every bit pattern is a valid value.
unsafe impl DeviceCopy for F16 {}
// SAFETY: as for `F16`.
unsafe impl DeviceCopy for Bf16 {}

static_assertions::assert_eq_size!(F16, u16);
static_assertions::assert_eq_size!(Bf16, u16);

impl F16 {
    /// The nearest half to `x` (ties to even); beyond ±65504 it is ±infinity, a NaN stays a
    /// (quiet) NaN.
    #[must_use]
    pub fn from_f32(x: f32) -> Self {
        let bits = x.to_bits();
        let sign = ((bits >> 16) & 0x8000) as u16;
        let exp = ((bits >> 23) & 0xff) as i32;
        let mant = bits & 0x007f_ffff;
        if exp == 0xff {
            // Infinity, or a NaN (kept a NaN: quiet bit set).
            return Self(sign | 0x7c00 | if mant == 0 { 0 } else { 0x0200 });
        }
        let e = exp - 127 + 15;
        if e >= 31 {
            return Self(sign | 0x7c00);
        }
        if e <= 0 {
            // A half subnormal (unit 2^-24) or zero. `x` is `m · 2^(exp-150)` with the implicit
            // bit in `m`, so `x / 2^-24 = m >> (14 - e)` (plus the rounded remainder).
            if e < -10 {
                return Self(sign); // below half the smallest subnormal: rounds to zero
            }
            let m = mant | 0x0080_0000;
            let shift = (14 - e) as u32; // 14..=24
            let half = m >> shift;
            let rem = m & ((1 << shift) - 1);
            let halfway = 1 << (shift - 1);
            let round = u32::from(rem > halfway || (rem == halfway && half & 1 == 1));
            // A carry out of the subnormal range gives the smallest normal: still correct.
            return Self(sign | (half + round) as u16);
        }
        let half = (u32::from(sign) | ((e as u32) << 10)) | (mant >> 13);
        let rem = mant & 0x1fff;
        let round = u32::from(rem > 0x1000 || (rem == 0x1000 && half & 1 == 1));
        // A carry into the exponent is the correct rounding (up to infinity at the top).
        Self((half + round) as u16)
    }

    /// The exact `f32` value.
    #[must_use]
    pub fn to_f32(self) -> f32 {
        let sign = u32::from(self.0 & 0x8000) << 16;
        let exp = u32::from((self.0 >> 10) & 0x1f);
        let mant = u32::from(self.0 & 0x03ff);
        let magnitude = match exp {
            0 => {
                // Subnormal: mant · 2^-24, exact in f32.
                let v = f32::from(self.0 & 0x03ff) * f32::from_bits(0x3380_0000); // 2^-24
                return if sign == 0 { v } else { -v };
            }
            0x1f => 0x7f80_0000 | (mant << 13),
            _ => ((exp + 127 - 15) << 23) | (mant << 13),
        };
        f32::from_bits(sign | magnitude)
    }
}

impl Bf16 {
    /// The nearest bfloat16 to `x` (ties to even); a NaN stays a (quiet) NaN.
    #[must_use]
    pub fn from_f32(x: f32) -> Self {
        let bits = x.to_bits();
        if x.is_nan() {
            return Self(((bits >> 16) as u16) | 0x0040);
        }
        let lsb = (bits >> 16) & 1;
        // Cannot overflow: the largest finite f32 rounds up to infinity's bits at most.
        Self((bits.wrapping_add(0x7fff + lsb) >> 16) as u16)
    }

    /// The exact `f32` value.
    #[must_use]
    pub fn to_f32(self) -> f32 {
        f32::from_bits(u32::from(self.0) << 16)
    }
}

#[cfg(test)]
mod tests {
    use super::{Bf16, F16};

    #[test]
    fn f16_known_values() {
        for (x, bits) in [
            (0.0f32, 0x0000u16),
            (-0.0, 0x8000),
            (1.0, 0x3c00),
            (0.5, 0x3800),
            (-2.0, 0xc000),
            (0.125, 0x3000),
            (65504.0, 0x7bff),
            (6.103_515_6e-5, 0x0400), // 2^-14, the smallest normal
            (5.960_464_5e-8, 0x0001), // 2^-24, the smallest subnormal
            (f32::INFINITY, 0x7c00),
            (f32::NEG_INFINITY, 0xfc00),
        ] {
            assert_eq!(F16::from_f32(x).0, bits, "{x}");
            assert_eq!(F16(bits).to_f32().to_bits(), x.to_bits(), "{bits:#x}");
        }
    }

    #[test]
    fn f16_rounds_to_nearest_even() {
        let ulp = 2f32.powi(-10);
        // Halfway between 1 and 1 + ulp: ties to the even 1.0.
        assert_eq!(F16::from_f32(1.0 + ulp / 2.0).0, 0x3c00);
        // Halfway between 1 + ulp and 1 + 2ulp: ties to the even 1 + 2ulp.
        assert_eq!(F16::from_f32(1.0 + 1.5 * ulp).0, 0x3c02);
        // Just above halfway rounds up.
        assert_eq!(F16::from_f32(1.0 + ulp / 2.0 + ulp / 16.0).0, 0x3c01);
        // Beyond the largest half: infinity; 65519 still rounds down to 65504.
        assert_eq!(F16::from_f32(65520.0).0, 0x7c00);
        assert_eq!(F16::from_f32(65519.0).0, 0x7bff);
        // Subnormals: 1.5 · 2^-24 ties to the even 2 · 2^-24; 2^-25 ties to zero.
        assert_eq!(F16::from_f32(1.5 * 2f32.powi(-24)).0, 0x0002);
        assert_eq!(F16::from_f32(2f32.powi(-25)).0, 0x0000);
        assert_eq!(F16::from_f32(2f32.powi(-25) * 1.01).0, 0x0001);
        assert_eq!(F16::from_f32(1e-10).0, 0x0000);
        assert!(F16::from_f32(f32::NAN).to_f32().is_nan());
    }

    #[test]
    fn f16_round_trips_every_finite_half() {
        for bits in 0..=u16::MAX {
            let h = F16(bits);
            let x = h.to_f32();
            if x.is_nan() {
                assert!(F16::from_f32(x).to_f32().is_nan());
            } else {
                assert_eq!(F16::from_f32(x), h, "{bits:#x}");
            }
        }
    }

    #[test]
    fn bf16_values_and_rounding() {
        assert_eq!(Bf16::from_f32(1.0).0, 0x3f80);
        assert_eq!(Bf16::from_f32(-0.125).0, 0xbe00);
        assert_eq!(Bf16(0x3f80).to_f32().to_bits(), 1.0f32.to_bits());
        let ulp = 2f32.powi(-7);
        assert_eq!(Bf16::from_f32(1.0 + ulp / 2.0).0, 0x3f80); // tie to even
        assert_eq!(Bf16::from_f32(1.0 + 1.5 * ulp).0, 0x3f82); // tie to even
        assert_eq!(Bf16::from_f32(f32::MAX).0, 0x7f80); // rounds up to infinity
        assert!(Bf16::from_f32(f32::NAN).to_f32().is_nan());
        for bits in 0..=u16::MAX {
            let b = Bf16(bits);
            if !b.to_f32().is_nan() {
                assert_eq!(Bf16::from_f32(b.to_f32()), b, "{bits:#x}");
            }
        }
    }
}
