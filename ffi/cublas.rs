//! Mirrors cuBLAS's `cublas_api.h` (CUDA 12.2 and 13.1 alike): the handle, the enums the safe
//! layer passes, and the entry points `custack::blas` calls, in header order.
//!
//! Only symbols exported by both `libcublas.so.12` and `libcublas.so.13` are declared (checked
//! with `nm -D`); `cublas_v2.h` `#define`s the unversioned names (`cublasSgemm`) to these. No
//! `#[link]`: with the cargo feature `cublas`, `build.rs` links the library into the crate.
//! Where it found none (`cfg(custack_no_cublas)`), the same names are functions that return
//! `CUBLAS_STATUS_NOT_INITIALIZED` without touching their arguments, so the crate builds and
//! `custack::blas` says at run time what to install.
//!
//! `cudaStream_t` is `CUstream`: the runtime and driver APIs share stream handles.

use super::types::CUstream;
use core::ffi::{c_char, c_int, c_longlong, c_void};
use core::marker::{PhantomData, PhantomPinned};

/// `struct cublasContext`: opaque.
#[repr(C)]
pub struct cublasContext {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `cublasHandle_t`: a cuBLAS library context, bound to the CUDA context current at creation.
pub type cublasHandle_t = *mut cublasContext;

/// `libraryPropertyType` (`library_types.h`): which part of a library's version
/// `cublasGetProperty` reports.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct libraryPropertyType(pub c_int);

impl libraryPropertyType {
    /// `MAJOR_VERSION` (0).
    pub const MAJOR_VERSION: Self = Self(0);
    /// `MINOR_VERSION` (1).
    pub const MINOR_VERSION: Self = Self(1);
    /// `PATCH_LEVEL` (2).
    pub const PATCH_LEVEL: Self = Self(2);
}

/// `cublasStatus_t`: the status every cuBLAS entry point returns.
///
/// A newtype, not an enum: a newer cuBLAS may return values this list lacks.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[must_use]
pub struct cublasStatus_t(pub c_int);

impl cublasStatus_t {
    /// `CUBLAS_STATUS_SUCCESS` (0).
    pub const CUBLAS_STATUS_SUCCESS: Self = Self(0);
    /// `CUBLAS_STATUS_NOT_INITIALIZED` (1).
    pub const CUBLAS_STATUS_NOT_INITIALIZED: Self = Self(1);
    /// `CUBLAS_STATUS_ALLOC_FAILED` (3).
    pub const CUBLAS_STATUS_ALLOC_FAILED: Self = Self(3);
    /// `CUBLAS_STATUS_INVALID_VALUE` (7).
    pub const CUBLAS_STATUS_INVALID_VALUE: Self = Self(7);
    /// `CUBLAS_STATUS_ARCH_MISMATCH` (8).
    pub const CUBLAS_STATUS_ARCH_MISMATCH: Self = Self(8);
    /// `CUBLAS_STATUS_MAPPING_ERROR` (11).
    pub const CUBLAS_STATUS_MAPPING_ERROR: Self = Self(11);
    /// `CUBLAS_STATUS_EXECUTION_FAILED` (13).
    pub const CUBLAS_STATUS_EXECUTION_FAILED: Self = Self(13);
    /// `CUBLAS_STATUS_INTERNAL_ERROR` (14).
    pub const CUBLAS_STATUS_INTERNAL_ERROR: Self = Self(14);
    /// `CUBLAS_STATUS_NOT_SUPPORTED` (15).
    pub const CUBLAS_STATUS_NOT_SUPPORTED: Self = Self(15);
    /// `CUBLAS_STATUS_LICENSE_ERROR` (16).
    pub const CUBLAS_STATUS_LICENSE_ERROR: Self = Self(16);
}

/// `cublasOperation_t`: how an operand is read.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasOperation_t(pub c_int);

impl cublasOperation_t {
    /// `CUBLAS_OP_N` (0): as stored.
    pub const CUBLAS_OP_N: Self = Self(0);
    /// `CUBLAS_OP_T` (1): transposed.
    pub const CUBLAS_OP_T: Self = Self(1);
    /// `CUBLAS_OP_C` (2): conjugate-transposed.
    pub const CUBLAS_OP_C: Self = Self(2);
}

/// `cublasPointerMode_t`: where scalar arguments and results live.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasPointerMode_t(pub c_int);

impl cublasPointerMode_t {
    /// `CUBLAS_POINTER_MODE_HOST` (0): host memory, read (or written) before the call returns.
    pub const CUBLAS_POINTER_MODE_HOST: Self = Self(0);
    /// `CUBLAS_POINTER_MODE_DEVICE` (1): device memory, read (or written) in stream order.
    pub const CUBLAS_POINTER_MODE_DEVICE: Self = Self(1);
}

/// `cudaDataType` (`library_types.h`): the element type of a `cublasGemmEx` operand.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudaDataType(pub c_int);

impl cudaDataType {
    /// `CUDA_R_32F` (0): `float`.
    pub const CUDA_R_32F: Self = Self(0);
    /// `CUDA_R_64F` (1): `double`.
    pub const CUDA_R_64F: Self = Self(1);
    /// `CUDA_R_16F` (2): IEEE half.
    pub const CUDA_R_16F: Self = Self(2);
    /// `CUDA_R_16BF` (14): bfloat16.
    pub const CUDA_R_16BF: Self = Self(14);
}

/// `cublasComputeType_t`: the arithmetic of `cublasGemmEx`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasComputeType_t(pub c_int);

impl cublasComputeType_t {
    /// `CUBLAS_COMPUTE_32F` (68): float arithmetic, the default.
    pub const CUBLAS_COMPUTE_32F: Self = Self(68);
    /// `CUBLAS_COMPUTE_32F_PEDANTIC` (69): float arithmetic, no reduced-precision shortcuts.
    pub const CUBLAS_COMPUTE_32F_PEDANTIC: Self = Self(69);
    /// `CUBLAS_COMPUTE_64F` (70): double arithmetic.
    pub const CUBLAS_COMPUTE_64F: Self = Self(70);
    /// `CUBLAS_COMPUTE_32F_FAST_TF32` (77): float inputs and accumulation, the products on
    /// TF32 tensor cores (10 bits of mantissa).
    pub const CUBLAS_COMPUTE_32F_FAST_TF32: Self = Self(77);
}

/// `cublasGemmAlgo_t`: the algorithm of `cublasGemmEx`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasGemmAlgo_t(pub c_int);

impl cublasGemmAlgo_t {
    /// `CUBLAS_GEMM_DEFAULT` (-1): cuBLAS's heuristics choose.
    pub const CUBLAS_GEMM_DEFAULT: Self = Self(-1);
}

/// What the stand-ins of a build without cuBLAS return for the status names.
#[cfg(custack_no_cublas)]
const NOT_LINKED: *const c_char = c"cuBLAS was not found when custack was built".as_ptr();

link_or_stub! {
    missing: custack_no_cublas => cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED;
    /// Creates a cuBLAS handle bound to the current context.
    /// <https://docs.nvidia.com/cuda/cublas/#cublascreate>
    pub fn cublasCreate_v2(handle: *mut cublasHandle_t) -> cublasStatus_t;
    /// Destroys a cuBLAS handle (synchronizes the device first).
    /// <https://docs.nvidia.com/cuda/cublas/#cublasdestroy>
    pub fn cublasDestroy_v2(handle: cublasHandle_t) -> cublasStatus_t;
    /// The cuBLAS version (major·10000 + minor·100 + patch).
    /// <https://docs.nvidia.com/cuda/cublas/#cublasgetversion>
    pub fn cublasGetVersion_v2(handle: cublasHandle_t, version: *mut c_int) -> cublasStatus_t;
    /// One part of the cuBLAS version (`MAJOR_VERSION`, `MINOR_VERSION`, `PATCH_LEVEL`), without
    /// a handle.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasgetproperty>
    pub fn cublasGetProperty(type_: libraryPropertyType, value: *mut c_int) -> cublasStatus_t;
    /// Sets the workspace the handle's later calls use on its current stream.
    /// <https://docs.nvidia.com/cuda/cublas/#cublassetworkspace>
    pub fn cublasSetWorkspace_v2(
        handle: cublasHandle_t,
        workspace: *mut c_void,
        workspaceSizeInBytes: usize,
    ) -> cublasStatus_t;
    /// Sets the stream of the handle's later calls (and resets its workspace to the default).
    /// <https://docs.nvidia.com/cuda/cublas/#cublassetstream>
    pub fn cublasSetStream_v2(handle: cublasHandle_t, streamId: CUstream) -> cublasStatus_t;
    /// Sets where scalars and results live.
    /// <https://docs.nvidia.com/cuda/cublas/#cublassetpointermode>
    pub fn cublasSetPointerMode_v2(
        handle: cublasHandle_t,
        mode: cublasPointerMode_t,
    ) -> cublasStatus_t;
    /// The C name of a status (a static string; a generic one for unknown values).
    /// <https://docs.nvidia.com/cuda/cublas/#cublasgetstatusname>
    pub fn cublasGetStatusName(status: cublasStatus_t) -> *const c_char = NOT_LINKED;
    /// The description of a status (a static string).
    /// <https://docs.nvidia.com/cuda/cublas/#cublasgetstatusstring>
    pub fn cublasGetStatusString(status: cublasStatus_t) -> *const c_char = NOT_LINKED;
    /// Euclidean norm of a float vector.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-nrm2>
    pub fn cublasSnrm2_v2(
        handle: cublasHandle_t,
        n: c_int,
        x: *const f32,
        incx: c_int,
        result: *mut f32,
    ) -> cublasStatus_t;
    /// Euclidean norm of a double vector.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-nrm2>
    pub fn cublasDnrm2_v2(
        handle: cublasHandle_t,
        n: c_int,
        x: *const f64,
        incx: c_int,
        result: *mut f64,
    ) -> cublasStatus_t;
    /// Dot product of float vectors.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-dot>
    pub fn cublasSdot_v2(
        handle: cublasHandle_t,
        n: c_int,
        x: *const f32,
        incx: c_int,
        y: *const f32,
        incy: c_int,
        result: *mut f32,
    ) -> cublasStatus_t;
    /// Dot product of double vectors.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-dot>
    pub fn cublasDdot_v2(
        handle: cublasHandle_t,
        n: c_int,
        x: *const f64,
        incx: c_int,
        y: *const f64,
        incy: c_int,
        result: *mut f64,
    ) -> cublasStatus_t;
    /// `y = alpha·x + y`, floats.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-axpy>
    pub fn cublasSaxpy_v2(
        handle: cublasHandle_t,
        n: c_int,
        alpha: *const f32,
        x: *const f32,
        incx: c_int,
        y: *mut f32,
        incy: c_int,
    ) -> cublasStatus_t;
    /// `y = alpha·x + y`, doubles.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-axpy>
    pub fn cublasDaxpy_v2(
        handle: cublasHandle_t,
        n: c_int,
        alpha: *const f64,
        x: *const f64,
        incx: c_int,
        y: *mut f64,
        incy: c_int,
    ) -> cublasStatus_t;
    /// `y = alpha·op(A)·x + beta·y`, floats.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-gemv>
    pub fn cublasSgemv_v2(
        handle: cublasHandle_t,
        trans: cublasOperation_t,
        m: c_int,
        n: c_int,
        alpha: *const f32,
        A: *const f32,
        lda: c_int,
        x: *const f32,
        incx: c_int,
        beta: *const f32,
        y: *mut f32,
        incy: c_int,
    ) -> cublasStatus_t;
    /// `y = alpha·op(A)·x + beta·y`, doubles.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-gemv>
    pub fn cublasDgemv_v2(
        handle: cublasHandle_t,
        trans: cublasOperation_t,
        m: c_int,
        n: c_int,
        alpha: *const f64,
        A: *const f64,
        lda: c_int,
        x: *const f64,
        incx: c_int,
        beta: *const f64,
        y: *mut f64,
        incy: c_int,
    ) -> cublasStatus_t;
    /// `C = alpha·op(A)·op(B) + beta·C`, floats.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-gemm>
    pub fn cublasSgemm_v2(
        handle: cublasHandle_t,
        transa: cublasOperation_t,
        transb: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: *const f32,
        A: *const f32,
        lda: c_int,
        B: *const f32,
        ldb: c_int,
        beta: *const f32,
        C: *mut f32,
        ldc: c_int,
    ) -> cublasStatus_t;
    /// `C = alpha·op(A)·op(B) + beta·C`, doubles.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-gemm>
    pub fn cublasDgemm_v2(
        handle: cublasHandle_t,
        transa: cublasOperation_t,
        transb: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: *const f64,
        A: *const f64,
        lda: c_int,
        B: *const f64,
        ldb: c_int,
        beta: *const f64,
        C: *mut f64,
        ldc: c_int,
    ) -> cublasStatus_t;
    /// GEMM with operand types and compute type given at run time.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasgemmex>
    pub fn cublasGemmEx(
        handle: cublasHandle_t,
        transa: cublasOperation_t,
        transb: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: *const c_void,
        A: *const c_void,
        Atype: cudaDataType,
        lda: c_int,
        B: *const c_void,
        Btype: cudaDataType,
        ldb: c_int,
        beta: *const c_void,
        C: *mut c_void,
        Ctype: cudaDataType,
        ldc: c_int,
        computeType: cublasComputeType_t,
        algo: cublasGemmAlgo_t,
    ) -> cublasStatus_t;
    /// A batch of float GEMMs whose matrices lie at fixed strides.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-gemmstridedbatched>
    pub fn cublasSgemmStridedBatched(
        handle: cublasHandle_t,
        transa: cublasOperation_t,
        transb: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: *const f32,
        A: *const f32,
        lda: c_int,
        strideA: c_longlong,
        B: *const f32,
        ldb: c_int,
        strideB: c_longlong,
        beta: *const f32,
        C: *mut f32,
        ldc: c_int,
        strideC: c_longlong,
        batchCount: c_int,
    ) -> cublasStatus_t;
    /// A batch of double GEMMs whose matrices lie at fixed strides.
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-gemmstridedbatched>
    pub fn cublasDgemmStridedBatched(
        handle: cublasHandle_t,
        transa: cublasOperation_t,
        transb: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: *const f64,
        A: *const f64,
        lda: c_int,
        strideA: c_longlong,
        B: *const f64,
        ldb: c_int,
        strideB: c_longlong,
        beta: *const f64,
        C: *mut f64,
        ldc: c_int,
        strideC: c_longlong,
        batchCount: c_int,
    ) -> cublasStatus_t;
}
