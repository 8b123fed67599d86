//! What a plan transforms: the complex element types ([`Complex32`], [`Complex64`]), the
//! precisions ([`Precision`]), the three kinds of transform ([`C2c`], [`R2c`], [`C2r`], through the
//! sealed [`Transform`]) and the direction of a complex one ([`Direction`]).

use crate::ffi;
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// A single-precision complex number as cuFFT stores it (`cufftComplex`, CUDA's `float2`):
/// the real part, then the imaginary part, 8-byte aligned.
#[repr(C, align(8))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Complex32 {
    /// The real part.
    pub re: f32,
    /// The imaginary part.
    pub im: f32,
}

/// A double-precision complex number as cuFFT stores it (`cufftDoubleComplex`, CUDA's
/// `double2`): the real part, then the imaginary part, 16-byte aligned.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Complex64 {
    /// The real part.
    pub re: f64,
    /// The imaginary part.
    pub im: f64,
}

// The safe types are the C types field for field, so pointers to them are passed as is.
const _: () = assert!(
    size_of::<Complex32>() == size_of::<ffi::cufft::cufftComplex>()
        && align_of::<Complex32>() == align_of::<ffi::cufft::cufftComplex>()
        && core::mem::offset_of!(Complex32, im)
            == core::mem::offset_of!(ffi::cufft::cufftComplex, y)
);
const _: () = assert!(
    size_of::<Complex64>() == size_of::<ffi::cufft::cufftDoubleComplex>()
        && align_of::<Complex64>() == align_of::<ffi::cufft::cufftDoubleComplex>()
        && core::mem::offset_of!(Complex64, im)
            == core::mem::offset_of!(ffi::cufft::cufftDoubleComplex, y)
);

// SAFETY: two floats of one type in `repr(C)`, whose size (8, 16) equals their alignment: no
// padding, every bit pattern a valid value, no pointer.
unsafe impl DeviceCopy for Complex32 {}
// SAFETY: as for `Complex32`, with two `f64`.
unsafe impl DeviceCopy for Complex64 {}

impl Complex32 {
    /// `re + im·i`.
    pub const fn new(re: f32, im: f32) -> Self {
        Self { re, im }
    }
}

impl Complex64 {
    /// `re + im·i`.
    pub const fn new(re: f64, im: f64) -> Self {
        Self { re, im }
    }
}

/// The direction of a complex-to-complex transform: the sign of the exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `CUFFT_FORWARD` (−1): `X[k] = Σ x[j]·e^(−2πi·jk/n)`.
    Forward,
    /// `CUFFT_INVERSE` (+1): `x[j] = Σ X[k]·e^(+2πi·jk/n)`, not normalized: a forward then an
    /// inverse transform multiplies by `n` (the product of the sizes).
    Inverse,
}

impl Direction {
    pub(crate) fn raw(self) -> core::ffi::c_int {
        match self {
            Self::Forward => ffi::cufft::CUFFT_FORWARD,
            Self::Inverse => ffi::cufft::CUFFT_INVERSE,
        }
    }
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// The precisions cuFFT transforms: `f32` (with [`Complex32`]) and `f64` (with
/// [`Complex64`]). Sealed.
pub trait Precision: DeviceCopy + sealed::Sealed {
    /// The complex type of this precision.
    type Complex: DeviceCopy;
    /// The complex-to-complex plan type and its call.
    #[doc(hidden)]
    const C2C: (ffi::cufft::cufftType, &'static str);
    /// The real-to-complex plan type and its call.
    #[doc(hidden)]
    const R2C: (ffi::cufft::cufftType, &'static str);
    /// The complex-to-real plan type and its call.
    #[doc(hidden)]
    const C2R: (ffi::cufft::cufftType, &'static str);

    /// # Safety
    ///
    /// cuFFT's: a live plan of the complex-to-complex type of this precision whose stream and
    /// work area are set, `input` and `output` device memory of its context holding the plan's
    /// extents, aligned to the complex type, used by nothing else until the work is complete.
    #[doc(hidden)]
    unsafe fn c2c(
        plan: ffi::cufft::cufftHandle,
        input: *mut Self::Complex,
        output: *mut Self::Complex,
        direction: core::ffi::c_int,
    ) -> ffi::cufft::cufftResult;

    /// # Safety
    ///
    /// As [`c2c`](Self::c2c), for the real-to-complex plan type.
    #[doc(hidden)]
    unsafe fn r2c(
        plan: ffi::cufft::cufftHandle,
        input: *mut Self,
        output: *mut Self::Complex,
    ) -> ffi::cufft::cufftResult;

    /// # Safety
    ///
    /// As [`c2c`](Self::c2c), for the complex-to-real plan type (which may write its input).
    #[doc(hidden)]
    unsafe fn c2r(
        plan: ffi::cufft::cufftHandle,
        input: *mut Self::Complex,
        output: *mut Self,
    ) -> ffi::cufft::cufftResult;
}

macro_rules! real {
    ($t:ty, $c:ty, $raw:ty, [$c2c_t:ident, $r2c_t:ident, $c2r_t:ident], [$c2c:ident, $r2c:ident, $c2r:ident]) => {
        impl sealed::Sealed for $t {}
        impl Precision for $t {
            type Complex = $c;
            const C2C: (ffi::cufft::cufftType, &'static str) =
                (ffi::cufft::cufftType::$c2c_t, stringify!($c2c));
            const R2C: (ffi::cufft::cufftType, &'static str) =
                (ffi::cufft::cufftType::$r2c_t, stringify!($r2c));
            const C2R: (ffi::cufft::cufftType, &'static str) =
                (ffi::cufft::cufftType::$c2r_t, stringify!($c2r));
            #[inline]
            unsafe fn c2c(
                plan: ffi::cufft::cufftHandle,
                input: *mut $c,
                output: *mut $c,
                direction: core::ffi::c_int,
            ) -> ffi::cufft::cufftResult {
                // SAFETY: the caller's; the complex type is the C one field for field.
                unsafe {
                    ffi::cufft::$c2c(plan, input.cast::<$raw>(), output.cast::<$raw>(), direction)
                }
            }
            #[inline]
            unsafe fn r2c(
                plan: ffi::cufft::cufftHandle,
                input: *mut $t,
                output: *mut $c,
            ) -> ffi::cufft::cufftResult {
                // SAFETY: the caller's; the complex type is the C one field for field.
                unsafe { ffi::cufft::$r2c(plan, input, output.cast::<$raw>()) }
            }
            #[inline]
            unsafe fn c2r(
                plan: ffi::cufft::cufftHandle,
                input: *mut $c,
                output: *mut $t,
            ) -> ffi::cufft::cufftResult {
                // SAFETY: the caller's; the complex type is the C one field for field.
                unsafe { ffi::cufft::$c2r(plan, input.cast::<$raw>(), output) }
            }
        }
    };
}
real!(
    f32,
    Complex32,
    ffi::cufft::cufftComplex,
    [CUFFT_C2C, CUFFT_R2C, CUFFT_C2R],
    [cufftExecC2C, cufftExecR2C, cufftExecC2R]
);
real!(
    f64,
    Complex64,
    ffi::cufft::cufftDoubleComplex,
    [CUFFT_Z2Z, CUFFT_D2Z, CUFFT_Z2D],
    [cufftExecZ2Z, cufftExecD2Z, cufftExecZ2D]
);

/// Which way a transform goes between real and complex data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Sides {
    /// Complex in, complex out, of the same sizes.
    C2c,
    /// Real in; complex out, `n/2 + 1` in the last dimension (the rest is Hermitian-redundant).
    R2c,
    /// Complex in, `n/2 + 1` in the last dimension; real out.
    C2r,
}

/// A kind of transform and its precision, as a plan's type parameter: [`C2c<T>`], [`R2c<T>`]
/// or [`C2r<T>`] of `f32` or `f64`. Sealed.
pub trait Transform: sealed::Sealed {
    /// The element type of the input.
    type Input: DeviceCopy;
    /// The element type of the output.
    type Output: DeviceCopy;
    /// Which way it goes.
    #[doc(hidden)]
    const SIDES: Sides;
    /// cuFFT's plan type.
    #[doc(hidden)]
    const TYPE: ffi::cufft::cufftType;
    /// The name of its execution call.
    #[doc(hidden)]
    const EXEC: &'static str;
}

/// A complex-to-complex transform of precision `T` (`cufftExecC2C`, `cufftExecZ2Z`).
#[derive(Debug)]
pub struct C2c<T>(PhantomData<T>);
/// A real-to-complex (forward) transform of precision `T` (`cufftExecR2C`, `cufftExecD2Z`).
#[derive(Debug)]
pub struct R2c<T>(PhantomData<T>);
/// A complex-to-real (inverse) transform of precision `T` (`cufftExecC2R`, `cufftExecZ2D`).
#[derive(Debug)]
pub struct C2r<T>(PhantomData<T>);

macro_rules! transform {
    ($name:ident, $sides:ident, $which:ident, $input:ty, $output:ty) => {
        impl<T: Precision> sealed::Sealed for $name<T> {}
        impl<T: Precision> Transform for $name<T> {
            type Input = $input;
            type Output = $output;
            const SIDES: Sides = Sides::$sides;
            const TYPE: ffi::cufft::cufftType = T::$which.0;
            const EXEC: &'static str = T::$which.1;
        }
    };
}
transform!(C2c, C2c, C2C, T::Complex, T::Complex);
transform!(R2c, R2c, R2C, T, T::Complex);
transform!(C2r, C2r, C2R, T::Complex, T);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_transform_has_its_type_and_call() {
        assert_eq!(<C2c<f32>>::TYPE, ffi::cufft::cufftType::CUFFT_C2C);
        assert_eq!(<R2c<f32>>::TYPE, ffi::cufft::cufftType::CUFFT_R2C);
        assert_eq!(<C2r<f32>>::TYPE, ffi::cufft::cufftType::CUFFT_C2R);
        assert_eq!(<C2c<f64>>::TYPE, ffi::cufft::cufftType::CUFFT_Z2Z);
        assert_eq!(<R2c<f64>>::TYPE, ffi::cufft::cufftType::CUFFT_D2Z);
        assert_eq!(<C2r<f64>>::TYPE, ffi::cufft::cufftType::CUFFT_Z2D);
        assert_eq!(<C2c<f32>>::EXEC, "cufftExecC2C");
        assert_eq!(<R2c<f64>>::EXEC, "cufftExecD2Z");
        assert_eq!(<C2r<f64>>::EXEC, "cufftExecZ2D");
        assert_eq!(Direction::Forward.raw(), -1);
        assert_eq!(Direction::Inverse.raw(), 1);
    }
}
