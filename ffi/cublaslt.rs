//! Mirrors cuBLASLt's `cublasLt.h` (cuBLAS 12.2 and 13 alike): the handle, the descriptors, the
//! algorithm and heuristic result, the enums the safe layer passes, and the entry points
//! `custack::blaslt` calls, in header order.
//!
//! Only symbols exported by both `libcublasLt.so.12` (CUDA 12.2) and `libcublasLt.so.13`
//! (CUDA 13) are declared (checked with `nm -D`), and only attribute and epilogue values both
//! headers give the same meaning. No `#[link]`: with the cargo feature `cublaslt`, `build.rs`
//! links the library into the crate. Where it found none (`cfg(custack_no_cublaslt)`), the same
//! names are functions that return `CUBLAS_STATUS_NOT_INITIALIZED` without touching their
//! arguments (and a version of 0), so the crate builds and `custack::blaslt` says at run time
//! what to install.
//!
//! cuBLASLt shares cuBLAS's `cublasStatus_t`, `cublasComputeType_t`, `cublasOperation_t` and
//! `cudaDataType` (`super::cublas`). `cudaStream_t` is `CUstream`.

use super::cublas::{cublasComputeType_t, cublasStatus_t, cudaDataType};
use super::types::CUstream;
use core::ffi::{c_int, c_void};
use core::marker::{PhantomData, PhantomPinned};

/// `struct cublasLtContext`: opaque.
#[repr(C)]
pub struct cublasLtContext {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `cublasLtHandle_t`: a cuBLASLt library context, bound to the CUDA context current at
/// creation.
pub type cublasLtHandle_t = *mut cublasLtContext;

/// `cublasLtMatmulDescOpaque_t`: opaque (cuBLASLt allocates it).
#[repr(C)]
pub struct cublasLtMatmulDescOpaque_t {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `cublasLtMatmulDesc_t`: what a matmul computes (types, transposes, epilogue, pointers).
pub type cublasLtMatmulDesc_t = *mut cublasLtMatmulDescOpaque_t;

/// `cublasLtMatrixLayoutOpaque_t`: opaque.
#[repr(C)]
pub struct cublasLtMatrixLayoutOpaque_t {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `cublasLtMatrixLayout_t`: a matrix's type, shape, leading dimension and batch.
pub type cublasLtMatrixLayout_t = *mut cublasLtMatrixLayoutOpaque_t;

/// `cublasLtMatmulPreferenceOpaque_t`: opaque.
#[repr(C)]
pub struct cublasLtMatmulPreferenceOpaque_t {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `cublasLtMatmulPreference_t`: what the heuristic may choose (the workspace it may use).
pub type cublasLtMatmulPreference_t = *mut cublasLtMatmulPreferenceOpaque_t;

/// `cublasLtMatmulAlgo_t`: an algorithm, plain data cuBLASLt fills and reads.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cublasLtMatmulAlgo_t {
    /// `data`: opaque.
    pub data: [u64; 8],
}

/// `cublasLtMatmulHeuristicResult_t`: one algorithm the heuristic proposes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct cublasLtMatmulHeuristicResult_t {
    /// `algo`: the algorithm, to pass to `cublasLtMatmul`.
    pub algo: cublasLtMatmulAlgo_t,
    /// `workspaceSize`: the workspace it needs, in bytes.
    pub workspaceSize: usize,
    /// `state`: `CUBLAS_STATUS_SUCCESS` if the algorithm can run.
    pub state: cublasStatus_t,
    /// `wavesCount`: how many waves of the device it fills.
    pub wavesCount: f32,
    /// `reserved`.
    pub reserved: [c_int; 4],
}

const _: () =
    assert!(size_of::<cublasLtMatmulAlgo_t>() == 64 && align_of::<cublasLtMatmulAlgo_t>() == 8);
const _: () = assert!(
    size_of::<cublasLtMatmulHeuristicResult_t>() == 96
        && align_of::<cublasLtMatmulHeuristicResult_t>() == 8
        && core::mem::offset_of!(cublasLtMatmulHeuristicResult_t, workspaceSize) == 64
        && core::mem::offset_of!(cublasLtMatmulHeuristicResult_t, state) == 72
);

/// `cublasLtMatmulDescAttributes_t`: the attributes of a matmul descriptor custack sets.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasLtMatmulDescAttributes_t(pub c_int);

impl cublasLtMatmulDescAttributes_t {
    /// `CUBLASLT_MATMUL_DESC_TRANSA` (3): `cublasOperation_t` of A.
    pub const CUBLASLT_MATMUL_DESC_TRANSA: Self = Self(3);
    /// `CUBLASLT_MATMUL_DESC_TRANSB` (4): `cublasOperation_t` of B.
    pub const CUBLASLT_MATMUL_DESC_TRANSB: Self = Self(4);
    /// `CUBLASLT_MATMUL_DESC_EPILOGUE` (7): `cublasLtEpilogue_t`.
    pub const CUBLASLT_MATMUL_DESC_EPILOGUE: Self = Self(7);
    /// `CUBLASLT_MATMUL_DESC_BIAS_POINTER` (8): the bias vector's device address.
    pub const CUBLASLT_MATMUL_DESC_BIAS_POINTER: Self = Self(8);
    /// `CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER` (11): the auxiliary buffer's device address.
    pub const CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER: Self = Self(11);
    /// `CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD` (12): the auxiliary buffer's leading dimension
    /// (`int64_t`).
    pub const CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: Self = Self(12);
    /// `CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE` (13): elements between two batches'
    /// auxiliary matrices (`int64_t`).
    pub const CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE: Self = Self(13);
}

/// `cublasLtEpilogue_t`: what is applied to the product before it is stored.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasLtEpilogue_t(pub c_int);

impl cublasLtEpilogue_t {
    /// `CUBLASLT_EPILOGUE_DEFAULT` (1): nothing.
    pub const CUBLASLT_EPILOGUE_DEFAULT: Self = Self(1);
    /// `CUBLASLT_EPILOGUE_RELU` (2): `max(x, 0)`.
    pub const CUBLASLT_EPILOGUE_RELU: Self = Self(2);
    /// `CUBLASLT_EPILOGUE_BIAS` (4): plus a bias per row.
    pub const CUBLASLT_EPILOGUE_BIAS: Self = Self(4);
    /// `CUBLASLT_EPILOGUE_RELU_BIAS` (6): the bias, then ReLU.
    pub const CUBLASLT_EPILOGUE_RELU_BIAS: Self = Self(6);
    /// `CUBLASLT_EPILOGUE_GELU` (32): GELU (tanh approximation).
    pub const CUBLASLT_EPILOGUE_GELU: Self = Self(32);
    /// `CUBLASLT_EPILOGUE_GELU_BIAS` (36): the bias, then GELU.
    pub const CUBLASLT_EPILOGUE_GELU_BIAS: Self = Self(36);
    /// `CUBLASLT_EPILOGUE_GELU_AUX` (160): GELU, its input also stored in the aux buffer.
    pub const CUBLASLT_EPILOGUE_GELU_AUX: Self = Self(160);
    /// `CUBLASLT_EPILOGUE_GELU_AUX_BIAS` (164): the bias, then GELU, its input also stored.
    pub const CUBLASLT_EPILOGUE_GELU_AUX_BIAS: Self = Self(164);
}

/// `cublasLtMatrixLayoutAttribute_t`: the attributes of a matrix layout custack sets.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasLtMatrixLayoutAttribute_t(pub c_int);

impl cublasLtMatrixLayoutAttribute_t {
    /// `CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT` (5): the number of matrices (`int32_t`).
    pub const CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: Self = Self(5);
    /// `CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET` (6): elements between two matrices
    /// (`int64_t`).
    pub const CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: Self = Self(6);
}

/// `cublasLtMatmulPreferenceAttributes_t`: the preferences custack sets.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasLtMatmulPreferenceAttributes_t(pub c_int);

impl cublasLtMatmulPreferenceAttributes_t {
    /// `CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES` (1): the most workspace an algorithm may
    /// use (`uint64_t`).
    pub const CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: Self = Self(1);
}

/// What the stand-in of a build without cuBLASLt reports as its version.
#[cfg(custack_no_cublaslt)]
const NO_VERSION: usize = 0;

link_or_stub! {
    missing: custack_no_cublaslt => cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED;
    /// Creates a cuBLASLt handle bound to the current context.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltcreate>
    pub fn cublasLtCreate(lightHandle: *mut cublasLtHandle_t) -> cublasStatus_t;
    /// Destroys a cuBLASLt handle.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltdestroy>
    pub fn cublasLtDestroy(lightHandle: cublasLtHandle_t) -> cublasStatus_t;
    /// The cuBLASLt version (major·10000 + minor·100 + patch).
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltgetversion>
    pub fn cublasLtGetVersion() -> usize = NO_VERSION;
    /// Enqueues `D = alpha·op(A)·op(B) + beta·C`, then the epilogue, on `stream`.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmul>
    pub fn cublasLtMatmul(
        lightHandle: cublasLtHandle_t,
        computeDesc: cublasLtMatmulDesc_t,
        alpha: *const c_void,
        A: *const c_void,
        Adesc: cublasLtMatrixLayout_t,
        B: *const c_void,
        Bdesc: cublasLtMatrixLayout_t,
        beta: *const c_void,
        C: *const c_void,
        Cdesc: cublasLtMatrixLayout_t,
        D: *mut c_void,
        Ddesc: cublasLtMatrixLayout_t,
        algo: *const cublasLtMatmulAlgo_t,
        workspace: *mut c_void,
        workspaceSizeInBytes: usize,
        stream: CUstream,
    ) -> cublasStatus_t;
    /// Creates a matrix layout: its type, rows, columns and leading dimension (column-major).
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatrixlayoutcreate>
    pub fn cublasLtMatrixLayoutCreate(
        matLayout: *mut cublasLtMatrixLayout_t,
        type_: cudaDataType,
        rows: u64,
        cols: u64,
        ld: i64,
    ) -> cublasStatus_t;
    /// Destroys a matrix layout.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatrixlayoutdestroy>
    pub fn cublasLtMatrixLayoutDestroy(matLayout: cublasLtMatrixLayout_t) -> cublasStatus_t;
    /// Sets an attribute of a matrix layout from `sizeInBytes` bytes at `buf`.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatrixlayoutsetattribute>
    pub fn cublasLtMatrixLayoutSetAttribute(
        matLayout: cublasLtMatrixLayout_t,
        attr: cublasLtMatrixLayoutAttribute_t,
        buf: *const c_void,
        sizeInBytes: usize,
    ) -> cublasStatus_t;
    /// Creates a matmul descriptor of a compute type and a scale type.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmuldesccreate>
    pub fn cublasLtMatmulDescCreate(
        matmulDesc: *mut cublasLtMatmulDesc_t,
        computeType: cublasComputeType_t,
        scaleType: cudaDataType,
    ) -> cublasStatus_t;
    /// Destroys a matmul descriptor.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmuldescdestroy>
    pub fn cublasLtMatmulDescDestroy(matmulDesc: cublasLtMatmulDesc_t) -> cublasStatus_t;
    /// Sets an attribute of a matmul descriptor from `sizeInBytes` bytes at `buf`.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmuldescsetattribute>
    pub fn cublasLtMatmulDescSetAttribute(
        matmulDesc: cublasLtMatmulDesc_t,
        attr: cublasLtMatmulDescAttributes_t,
        buf: *const c_void,
        sizeInBytes: usize,
    ) -> cublasStatus_t;
    /// Creates a matmul preference.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmulpreferencecreate>
    pub fn cublasLtMatmulPreferenceCreate(pref: *mut cublasLtMatmulPreference_t) -> cublasStatus_t;
    /// Destroys a matmul preference.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmulpreferencedestroy>
    pub fn cublasLtMatmulPreferenceDestroy(pref: cublasLtMatmulPreference_t) -> cublasStatus_t;
    /// Sets a preference from `sizeInBytes` bytes at `buf`.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmulpreferencesetattribute>
    pub fn cublasLtMatmulPreferenceSetAttribute(
        pref: cublasLtMatmulPreference_t,
        attr: cublasLtMatmulPreferenceAttributes_t,
        buf: *const c_void,
        sizeInBytes: usize,
    ) -> cublasStatus_t;
    /// Asks the heuristic for up to `requestedAlgoCount` algorithms for a matmul.
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmulalgogetheuristic>
    pub fn cublasLtMatmulAlgoGetHeuristic(
        lightHandle: cublasLtHandle_t,
        operationDesc: cublasLtMatmulDesc_t,
        Adesc: cublasLtMatrixLayout_t,
        Bdesc: cublasLtMatrixLayout_t,
        Cdesc: cublasLtMatrixLayout_t,
        Ddesc: cublasLtMatrixLayout_t,
        preference: cublasLtMatmulPreference_t,
        requestedAlgoCount: c_int,
        heuristicResultsArray: *mut cublasLtMatmulHeuristicResult_t,
        returnAlgoCount: *mut c_int,
    ) -> cublasStatus_t;
}
