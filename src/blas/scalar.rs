//! The element types of the calls, sealed: [`BlasScalar`] (`f32`, `f64`: the typed
//! `cublasS…`/`cublasD…` entry points of each), [`HalfFloat`] and [`GemmExOutput`] (the
//! storage types of [`Blas::gemm_ex`] and their `cudaDataType`s).
//!
//! [`Blas::gemm_ex`]: crate::blas::handle::Blas::gemm_ex

use crate::blas::half::{Bf16, F16};
use crate::ffi;
use crate::vocabulary::plain::DeviceCopy;

mod sealed {
    use crate::ffi::cublas::{cublasHandle_t, cublasOperation_t, cublasStatus_t};
    use core::ffi::{c_int, c_longlong};

    /// `cublas?axpy_v2` for elements `T`.
    pub(crate) type Axpy<T> = unsafe extern "C" fn(
        h: cublasHandle_t,
        n: c_int,
        alpha: *const T,
        x: *const T,
        incx: c_int,
        y: *mut T,
        incy: c_int,
    ) -> cublasStatus_t;
    /// `cublas?dot_v2` for elements `T`.
    pub(crate) type Dot<T> = unsafe extern "C" fn(
        h: cublasHandle_t,
        n: c_int,
        x: *const T,
        incx: c_int,
        y: *const T,
        incy: c_int,
        result: *mut T,
    ) -> cublasStatus_t;
    /// `cublas?nrm2_v2` for elements `T`.
    pub(crate) type Nrm2<T> = unsafe extern "C" fn(
        h: cublasHandle_t,
        n: c_int,
        x: *const T,
        incx: c_int,
        result: *mut T,
    ) -> cublasStatus_t;
    /// `cublas?gemv_v2` for elements `T`.
    pub(crate) type Gemv<T> = unsafe extern "C" fn(
        h: cublasHandle_t,
        trans: cublasOperation_t,
        m: c_int,
        n: c_int,
        alpha: *const T,
        a: *const T,
        lda: c_int,
        x: *const T,
        incx: c_int,
        beta: *const T,
        y: *mut T,
        incy: c_int,
    ) -> cublasStatus_t;
    /// `cublas?gemm_v2` for elements `T`.
    pub(crate) type Gemm<T> = unsafe extern "C" fn(
        h: cublasHandle_t,
        transa: cublasOperation_t,
        transb: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: *const T,
        a: *const T,
        lda: c_int,
        b: *const T,
        ldb: c_int,
        beta: *const T,
        c: *mut T,
        ldc: c_int,
    ) -> cublasStatus_t;
    /// `cublas?gemmStridedBatched` for elements `T`.
    pub(crate) type GemmStridedBatched<T> = unsafe extern "C" fn(
        h: cublasHandle_t,
        transa: cublasOperation_t,
        transb: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: *const T,
        a: *const T,
        lda: c_int,
        stride_a: c_longlong,
        b: *const T,
        ldb: c_int,
        stride_b: c_longlong,
        beta: *const T,
        c: *mut T,
        ldc: c_int,
        stride_c: c_longlong,
        count: c_int,
    ) -> cublasStatus_t;

    /// The typed cuBLAS entry points of an element type, each with its name: the cuBLAS
    /// function itself (`cublasSaxpy_v2` for `f32`), called under its own safety contract.
    pub trait Sealed: Sized {
        const AXPY: &'static str;
        const DOT: &'static str;
        const NRM2: &'static str;
        const GEMV: &'static str;
        const GEMM: &'static str;
        const GEMM_STRIDED_BATCHED: &'static str;
        const AXPY_FN: Axpy<Self>;
        const DOT_FN: Dot<Self>;
        const NRM2_FN: Nrm2<Self>;
        const GEMV_FN: Gemv<Self>;
        const GEMM_FN: Gemm<Self>;
        const GEMM_STRIDED_BATCHED_FN: GemmStridedBatched<Self>;
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
            const AXPY_FN: sealed::Axpy<Self> = ffi::cublas::$axpy;
            const DOT_FN: sealed::Dot<Self> = ffi::cublas::$dot;
            const NRM2_FN: sealed::Nrm2<Self> = ffi::cublas::$nrm2;
            const GEMV_FN: sealed::Gemv<Self> = ffi::cublas::$gemv;
            const GEMM_FN: sealed::Gemm<Self> = ffi::cublas::$gemm;
            const GEMM_STRIDED_BATCHED_FN: sealed::GemmStridedBatched<Self> = ffi::cublas::$sb;
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
