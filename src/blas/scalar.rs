//! The element types of the calls, sealed: [`BlasScalar`] (`f32`, `f64`: the typed
//! `cublasS…`/`cublasD…` entry points of each), [`HalfFloat`] and [`GemmExOutput`] (the
//! storage types of [`Blas::gemm_ex`] and their `cudaDataType`s).
//!
//! [`Blas::gemm_ex`]: crate::blas::handle::Blas::gemm_ex

use crate::blas::half::{Bf16, F16};
use crate::ffi;
use crate::vocabulary::plain::DeviceCopy;
use core::ffi::c_int;

mod sealed {
    use crate::ffi;
    use core::ffi::{c_int, c_longlong};

    /// The typed cuBLAS entry points of an element type. Each function is the cuBLAS function
    /// of the same name (`cublasSaxpy_v2` for `f32`); see it for the safety contract.
    #[allow(clippy::too_many_arguments, reason = "cuBLAS's own argument lists")]
    pub trait Sealed: Sized {
        const AXPY: &'static str;
        const DOT: &'static str;
        const NRM2: &'static str;
        const GEMV: &'static str;
        const GEMM: &'static str;
        const GEMM_STRIDED_BATCHED: &'static str;
        /// # Safety
        ///
        /// As `cublas?axpy_v2`.
        unsafe fn axpy(
            h: ffi::cublas::cublasHandle_t,
            n: c_int,
            alpha: *const Self,
            x: *const Self,
            incx: c_int,
            y: *mut Self,
            incy: c_int,
        ) -> ffi::cublas::cublasStatus_t;
        /// # Safety
        ///
        /// As `cublas?dot_v2`.
        unsafe fn dot(
            h: ffi::cublas::cublasHandle_t,
            n: c_int,
            x: *const Self,
            incx: c_int,
            y: *const Self,
            incy: c_int,
            result: *mut Self,
        ) -> ffi::cublas::cublasStatus_t;
        /// # Safety
        ///
        /// As `cublas?nrm2_v2`.
        unsafe fn nrm2(
            h: ffi::cublas::cublasHandle_t,
            n: c_int,
            x: *const Self,
            incx: c_int,
            result: *mut Self,
        ) -> ffi::cublas::cublasStatus_t;
        /// # Safety
        ///
        /// As `cublas?gemv_v2`.
        unsafe fn gemv(
            h: ffi::cublas::cublasHandle_t,
            trans: ffi::cublas::cublasOperation_t,
            m: c_int,
            n: c_int,
            alpha: *const Self,
            a: *const Self,
            lda: c_int,
            x: *const Self,
            incx: c_int,
            beta: *const Self,
            y: *mut Self,
            incy: c_int,
        ) -> ffi::cublas::cublasStatus_t;
        /// # Safety
        ///
        /// As `cublas?gemm_v2`.
        unsafe fn gemm(
            h: ffi::cublas::cublasHandle_t,
            transa: ffi::cublas::cublasOperation_t,
            transb: ffi::cublas::cublasOperation_t,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: *const Self,
            a: *const Self,
            lda: c_int,
            b: *const Self,
            ldb: c_int,
            beta: *const Self,
            c: *mut Self,
            ldc: c_int,
        ) -> ffi::cublas::cublasStatus_t;
        /// # Safety
        ///
        /// As `cublas?gemmStridedBatched`.
        unsafe fn gemm_strided_batched(
            h: ffi::cublas::cublasHandle_t,
            transa: ffi::cublas::cublasOperation_t,
            transb: ffi::cublas::cublasOperation_t,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: *const Self,
            a: *const Self,
            lda: c_int,
            stride_a: c_longlong,
            b: *const Self,
            ldb: c_int,
            stride_b: c_longlong,
            beta: *const Self,
            c: *mut Self,
            ldc: c_int,
            stride_c: c_longlong,
            count: c_int,
        ) -> ffi::cublas::cublasStatus_t;
    }

    /// The storage types of `cublasGemmEx` with `f32` compute.
    pub trait HalfSealed {}
    /// The output types of `cublasGemmEx` for the input `A`.
    pub trait OutputSealed<A> {}
}

macro_rules! blas_scalar {
    ($t:ty, $axpy:ident, $dot:ident, $nrm2:ident, $gemv:ident, $gemm:ident, $sb:ident) => {
        impl sealed::Sealed for $t {
            const AXPY: &'static str = stringify!($axpy);
            const DOT: &'static str = stringify!($dot);
            const NRM2: &'static str = stringify!($nrm2);
            const GEMV: &'static str = stringify!($gemv);
            const GEMM: &'static str = stringify!($gemm);
            const GEMM_STRIDED_BATCHED: &'static str = stringify!($sb);
            unsafe fn axpy(
                h: ffi::cublas::cublasHandle_t,
                n: c_int,
                alpha: *const Self,
                x: *const Self,
                incx: c_int,
                y: *mut Self,
                incy: c_int,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe { ffi::cublas::$axpy(h, n, alpha, x, incx, y, incy) }
            }
            unsafe fn dot(
                h: ffi::cublas::cublasHandle_t,
                n: c_int,
                x: *const Self,
                incx: c_int,
                y: *const Self,
                incy: c_int,
                result: *mut Self,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe { ffi::cublas::$dot(h, n, x, incx, y, incy, result) }
            }
            unsafe fn nrm2(
                h: ffi::cublas::cublasHandle_t,
                n: c_int,
                x: *const Self,
                incx: c_int,
                result: *mut Self,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe { ffi::cublas::$nrm2(h, n, x, incx, result) }
            }
            unsafe fn gemv(
                h: ffi::cublas::cublasHandle_t,
                trans: ffi::cublas::cublasOperation_t,
                m: c_int,
                n: c_int,
                alpha: *const Self,
                a: *const Self,
                lda: c_int,
                x: *const Self,
                incx: c_int,
                beta: *const Self,
                y: *mut Self,
                incy: c_int,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe { ffi::cublas::$gemv(h, trans, m, n, alpha, a, lda, x, incx, beta, y, incy) }
            }
            unsafe fn gemm(
                h: ffi::cublas::cublasHandle_t,
                transa: ffi::cublas::cublasOperation_t,
                transb: ffi::cublas::cublasOperation_t,
                m: c_int,
                n: c_int,
                k: c_int,
                alpha: *const Self,
                a: *const Self,
                lda: c_int,
                b: *const Self,
                ldb: c_int,
                beta: *const Self,
                c: *mut Self,
                ldc: c_int,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe {
                    ffi::cublas::$gemm(
                        h, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                    )
                }
            }
            unsafe fn gemm_strided_batched(
                h: ffi::cublas::cublasHandle_t,
                transa: ffi::cublas::cublasOperation_t,
                transb: ffi::cublas::cublasOperation_t,
                m: c_int,
                n: c_int,
                k: c_int,
                alpha: *const Self,
                a: *const Self,
                lda: c_int,
                stride_a: core::ffi::c_longlong,
                b: *const Self,
                ldb: c_int,
                stride_b: core::ffi::c_longlong,
                beta: *const Self,
                c: *mut Self,
                ldc: c_int,
                stride_c: core::ffi::c_longlong,
                count: c_int,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe {
                    ffi::cublas::$sb(
                        h, transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,
                        beta, c, ldc, stride_c, count,
                    )
                }
            }
        }
    };
}

blas_scalar!(
    f32,
    cublasSaxpy_v2,
    cublasSdot_v2,
    cublasSnrm2_v2,
    cublasSgemv_v2,
    cublasSgemm_v2,
    cublasSgemmStridedBatched
);
blas_scalar!(
    f64,
    cublasDaxpy_v2,
    cublasDdot_v2,
    cublasDnrm2_v2,
    cublasDgemv_v2,
    cublasDgemm_v2,
    cublasDgemmStridedBatched
);

/// The element types of the typed cuBLAS calls: `f32` (`cublasS…`) and `f64` (`cublasD…`).
/// Sealed.
pub trait BlasScalar: DeviceCopy + PartialEq + core::fmt::Debug + sealed::Sealed {
    /// 1.
    const ONE: Self;
    /// 0.
    const ZERO: Self;
}

impl BlasScalar for f32 {
    const ONE: Self = 1.0;
    const ZERO: Self = 0.0;
}

impl BlasScalar for f64 {
    const ONE: Self = 1.0;
    const ZERO: Self = 0.0;
}

/// The 16-bit storage types of [`Blas::gemm_ex`]: [`F16`] (`CUDA_R_16F`) and [`Bf16`]
/// (`CUDA_R_16BF`). Sealed.
///
/// [`Blas::gemm_ex`]: crate::blas::handle::Blas::gemm_ex
pub trait HalfFloat: DeviceCopy + sealed::HalfSealed {
    /// The `cudaDataType` of the storage.
    #[doc(hidden)]
    const DATA_TYPE: ffi::cublas::cudaDataType;
}

/// The output types of [`Blas::gemm_ex`] for inputs of type `A`: `A` itself or `f32`. Sealed.
///
/// [`Blas::gemm_ex`]: crate::blas::handle::Blas::gemm_ex
pub trait GemmExOutput<A: HalfFloat>: DeviceCopy + sealed::OutputSealed<A> {
    /// The `cudaDataType` of the output.
    #[doc(hidden)]
    const DATA_TYPE: ffi::cublas::cudaDataType;
}

impl sealed::HalfSealed for F16 {}
impl sealed::HalfSealed for Bf16 {}
impl HalfFloat for F16 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_16F;
}
impl HalfFloat for Bf16 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_16BF;
}
impl<A: HalfFloat> sealed::OutputSealed<A> for f32 {}
impl<A: HalfFloat> GemmExOutput<A> for f32 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_32F;
}
impl sealed::OutputSealed<F16> for F16 {}
impl GemmExOutput<F16> for F16 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_16F;
}
impl sealed::OutputSealed<Bf16> for Bf16 {}
impl GemmExOutput<Bf16> for Bf16 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_16BF;
}
