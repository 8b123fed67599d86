//! The element types of a matmul, sealed: its inputs ([`MatmulInput`]: `f32`, [`F16`],
//! [`Bf16`]) and, for each, the outputs cuBLASLt computes in `f32` arithmetic
//! ([`MatmulOutput`]: `f32` for every input, or the input's own 16-bit type).
//!
//! These are the combinations of cuBLASLt's table for `CUBLAS_COMPUTE_32F` with an `f32` scale
//! type; any other fails to compile.

use crate::blas::half::{Bf16, F16};
use crate::ffi;
use crate::vocabulary::plain::DeviceCopy;

mod sealed {
    pub trait Input {}
    pub trait Output<A> {}
}

/// The element type of `A` and `B`: `f32`, [`F16`] or [`Bf16`]. Sealed.
pub trait MatmulInput: DeviceCopy + sealed::Input {
    /// Its `cudaDataType`.
    #[doc(hidden)]
    const DATA_TYPE: ffi::cublas::cudaDataType;
}

/// The element type of `C`, `D`, the bias and the auxiliary output of a matmul whose inputs are
/// `A`: `f32`, or `A` itself. Sealed.
pub trait MatmulOutput<A: MatmulInput>: DeviceCopy + sealed::Output<A> {
    /// Its `cudaDataType`.
    #[doc(hidden)]
    const DATA_TYPE: ffi::cublas::cudaDataType;
}

macro_rules! input {
    ($t:ty, $c:ident) => {
        impl sealed::Input for $t {}
        impl MatmulInput for $t {
            const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::$c;
        }
        impl sealed::Output<$t> for $t {}
        impl MatmulOutput<$t> for $t {
            const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::$c;
        }
    };
}
input!(f32, CUDA_R_32F);
input!(F16, CUDA_R_16F);
input!(Bf16, CUDA_R_16BF);

impl sealed::Output<F16> for f32 {}
impl MatmulOutput<F16> for f32 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_32F;
}
impl sealed::Output<Bf16> for f32 {}
impl MatmulOutput<Bf16> for f32 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_32F;
}
