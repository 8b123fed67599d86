//! Mirrors cuSPARSE's `cusparse.h`, the generic API only (cuSPARSE 12.1 of CUDA 12.2 and 12.6 of
//! CUDA 13 alike): the handle and descriptor types, the enums the safe layer passes, and the
//! entry points `custack::sparse` calls, in header order.
//!
//! Only symbols exported by both `libcusparse.so.12` builds are declared (checked with
//! `nm -D`). No `#[link]`: with the cargo feature `cusparse`, `build.rs` links the library into
//! the crate. Where it found none (`cfg(custack_no_cusparse)`), the same names are functions
//! that return `CUSPARSE_STATUS_NOT_INITIALIZED` without touching their arguments, so the crate
//! builds and `custack::sparse` says at run time what to install.
//!
//! `cudaStream_t` is `CUstream`: the runtime and driver APIs share stream handles. The input
//! descriptors are the `Const` ones (`cusparseCreateConstCsr`, ...), which cuSPARSE's
//! documentation guarantees it never writes through; they are the same opaque pointers.

use super::types::CUstream;
use core::ffi::{c_char, c_int, c_void};
use core::marker::{PhantomData, PhantomPinned};

/// `cusparseContext`: cuSPARSE's opaque library context.
#[repr(C)]
pub struct cusparseContext {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}
/// `cusparseHandle_t`: a cuSPARSE handle, bound to the context current at its creation.
pub type cusparseHandle_t = *mut cusparseContext;

/// `cusparseSpMatDescr`: a sparse matrix descriptor (opaque).
#[repr(C)]
pub struct cusparseSpMatDescr {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}
/// `cusparseSpMatDescr_t`.
pub type cusparseSpMatDescr_t = *mut cusparseSpMatDescr;
/// `cusparseConstSpMatDescr_t`: a descriptor cuSPARSE only reads through.
pub type cusparseConstSpMatDescr_t = *const cusparseSpMatDescr;

/// `cusparseDnVecDescr`: a dense vector descriptor (opaque).
#[repr(C)]
pub struct cusparseDnVecDescr {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}
/// `cusparseDnVecDescr_t`.
pub type cusparseDnVecDescr_t = *mut cusparseDnVecDescr;
/// `cusparseConstDnVecDescr_t`.
pub type cusparseConstDnVecDescr_t = *const cusparseDnVecDescr;

/// `cusparseDnMatDescr`: a dense matrix descriptor (opaque).
#[repr(C)]
pub struct cusparseDnMatDescr {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}
/// `cusparseDnMatDescr_t`.
pub type cusparseDnMatDescr_t = *mut cusparseDnMatDescr;
/// `cusparseConstDnMatDescr_t`.
pub type cusparseConstDnMatDescr_t = *const cusparseDnMatDescr;

/// `cusparseStatus_t`: the status every cuSPARSE entry point returns.
///
/// A newtype, not an enum: a newer cuSPARSE may return values this list lacks.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[must_use]
pub struct cusparseStatus_t(pub c_int);

impl cusparseStatus_t {
    /// `CUSPARSE_STATUS_SUCCESS` (0).
    pub const CUSPARSE_STATUS_SUCCESS: Self = Self(0);
    /// `CUSPARSE_STATUS_NOT_INITIALIZED` (1).
    pub const CUSPARSE_STATUS_NOT_INITIALIZED: Self = Self(1);
    /// `CUSPARSE_STATUS_ALLOC_FAILED` (2).
    pub const CUSPARSE_STATUS_ALLOC_FAILED: Self = Self(2);
    /// `CUSPARSE_STATUS_INVALID_VALUE` (3).
    pub const CUSPARSE_STATUS_INVALID_VALUE: Self = Self(3);
    /// `CUSPARSE_STATUS_ARCH_MISMATCH` (4).
    pub const CUSPARSE_STATUS_ARCH_MISMATCH: Self = Self(4);
    /// `CUSPARSE_STATUS_MAPPING_ERROR` (5).
    pub const CUSPARSE_STATUS_MAPPING_ERROR: Self = Self(5);
    /// `CUSPARSE_STATUS_EXECUTION_FAILED` (6).
    pub const CUSPARSE_STATUS_EXECUTION_FAILED: Self = Self(6);
    /// `CUSPARSE_STATUS_INTERNAL_ERROR` (7).
    pub const CUSPARSE_STATUS_INTERNAL_ERROR: Self = Self(7);
    /// `CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED` (8).
    pub const CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: Self = Self(8);
    /// `CUSPARSE_STATUS_ZERO_PIVOT` (9).
    pub const CUSPARSE_STATUS_ZERO_PIVOT: Self = Self(9);
    /// `CUSPARSE_STATUS_NOT_SUPPORTED` (10).
    pub const CUSPARSE_STATUS_NOT_SUPPORTED: Self = Self(10);
    /// `CUSPARSE_STATUS_INSUFFICIENT_RESOURCES` (11).
    pub const CUSPARSE_STATUS_INSUFFICIENT_RESOURCES: Self = Self(11);
}

/// `libraryPropertyType` (`library_types.h`): which part of the version `cusparseGetProperty`
/// reports.
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

/// `cudaDataType` (`library_types.h`): the element type of values and of the computation.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudaDataType(pub c_int);

impl cudaDataType {
    /// `CUDA_R_32F` (0): `float`.
    pub const CUDA_R_32F: Self = Self(0);
    /// `CUDA_R_64F` (1): `double`.
    pub const CUDA_R_64F: Self = Self(1);
}

/// `cusparseOperation_t`: the operation applied to an operand.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cusparseOperation_t(pub c_int);

impl cusparseOperation_t {
    /// `CUSPARSE_OPERATION_NON_TRANSPOSE` (0).
    pub const CUSPARSE_OPERATION_NON_TRANSPOSE: Self = Self(0);
    /// `CUSPARSE_OPERATION_TRANSPOSE` (1).
    pub const CUSPARSE_OPERATION_TRANSPOSE: Self = Self(1);
}

/// `cusparseIndexBase_t`: whether indices count from 0 or 1.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cusparseIndexBase_t(pub c_int);

impl cusparseIndexBase_t {
    /// `CUSPARSE_INDEX_BASE_ZERO` (0).
    pub const CUSPARSE_INDEX_BASE_ZERO: Self = Self(0);
}

/// `cusparseIndexType_t`: the integer type of a sparse matrix's offsets and indices.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cusparseIndexType_t(pub c_int);

impl cusparseIndexType_t {
    /// `CUSPARSE_INDEX_32I` (2): `int32_t`.
    pub const CUSPARSE_INDEX_32I: Self = Self(2);
    /// `CUSPARSE_INDEX_64I` (3): `int64_t`.
    pub const CUSPARSE_INDEX_64I: Self = Self(3);
}

/// `cusparseOrder_t`: the layout of a dense matrix.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cusparseOrder_t(pub c_int);

impl cusparseOrder_t {
    /// `CUSPARSE_ORDER_COL` (1): column-major.
    pub const CUSPARSE_ORDER_COL: Self = Self(1);
    /// `CUSPARSE_ORDER_ROW` (2): row-major.
    pub const CUSPARSE_ORDER_ROW: Self = Self(2);
}

/// `cusparseSpMVAlg_t`: the algorithm of `cusparseSpMV`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cusparseSpMVAlg_t(pub c_int);

impl cusparseSpMVAlg_t {
    /// `CUSPARSE_SPMV_ALG_DEFAULT` (0).
    pub const CUSPARSE_SPMV_ALG_DEFAULT: Self = Self(0);
    /// `CUSPARSE_SPMV_COO_ALG1` (1).
    pub const CUSPARSE_SPMV_COO_ALG1: Self = Self(1);
    /// `CUSPARSE_SPMV_CSR_ALG1` (2).
    pub const CUSPARSE_SPMV_CSR_ALG1: Self = Self(2);
    /// `CUSPARSE_SPMV_CSR_ALG2` (3).
    pub const CUSPARSE_SPMV_CSR_ALG2: Self = Self(3);
    /// `CUSPARSE_SPMV_COO_ALG2` (4).
    pub const CUSPARSE_SPMV_COO_ALG2: Self = Self(4);
}

/// `cusparseSpMMAlg_t`: the algorithm of `cusparseSpMM`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cusparseSpMMAlg_t(pub c_int);

impl cusparseSpMMAlg_t {
    /// `CUSPARSE_SPMM_ALG_DEFAULT` (0).
    pub const CUSPARSE_SPMM_ALG_DEFAULT: Self = Self(0);
    /// `CUSPARSE_SPMM_COO_ALG1` (1).
    pub const CUSPARSE_SPMM_COO_ALG1: Self = Self(1);
    /// `CUSPARSE_SPMM_COO_ALG2` (2).
    pub const CUSPARSE_SPMM_COO_ALG2: Self = Self(2);
    /// `CUSPARSE_SPMM_CSR_ALG1` (4).
    pub const CUSPARSE_SPMM_CSR_ALG1: Self = Self(4);
    /// `CUSPARSE_SPMM_CSR_ALG2` (6).
    pub const CUSPARSE_SPMM_CSR_ALG2: Self = Self(6);
}

/// The description `cusparseGetErrorString` stands in for where cuSPARSE was not linked.
#[cfg(custack_no_cusparse)]
const NOT_LINKED: *const c_char = c"cuSPARSE was not found when custack was built".as_ptr();

link_or_stub! {
    missing: custack_no_cusparse => cusparseStatus_t::CUSPARSE_STATUS_NOT_INITIALIZED;
    /// Creates a cuSPARSE handle bound to the current context.
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreate>
    pub fn cusparseCreate(handle: *mut cusparseHandle_t) -> cusparseStatus_t;
    /// Destroys a handle and releases what cuSPARSE allocated for it.
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsedestroy>
    pub fn cusparseDestroy(handle: cusparseHandle_t) -> cusparseStatus_t;
    /// The description of a status (a static string).
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsegeterrorstring>
    pub fn cusparseGetErrorString(status: cusparseStatus_t) -> *const c_char = NOT_LINKED;
    /// A part of the library's version; needs no handle.
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsegetproperty>
    pub fn cusparseGetProperty(type_: libraryPropertyType, value: *mut c_int) -> cusparseStatus_t;
    /// Sets the stream the handle's later calls run on.
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsesetstream>
    pub fn cusparseSetStream(handle: cusparseHandle_t, streamId: CUstream) -> cusparseStatus_t;
    /// A read-only CSR matrix descriptor over device arrays (a host-only call).
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreatecsr>
    pub fn cusparseCreateConstCsr(
        spMatDescr: *mut cusparseConstSpMatDescr_t,
        rows: i64,
        cols: i64,
        nnz: i64,
        csrRowOffsets: *const c_void,
        csrColInd: *const c_void,
        csrValues: *const c_void,
        csrRowOffsetsType: cusparseIndexType_t,
        csrColIndType: cusparseIndexType_t,
        idxBase: cusparseIndexBase_t,
        valueType: cudaDataType,
    ) -> cusparseStatus_t;
    /// A read-only COO matrix descriptor over device arrays (a host-only call).
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreatecoo>
    pub fn cusparseCreateConstCoo(
        spMatDescr: *mut cusparseConstSpMatDescr_t,
        rows: i64,
        cols: i64,
        nnz: i64,
        cooRowInd: *const c_void,
        cooColInd: *const c_void,
        cooValues: *const c_void,
        cooIdxType: cusparseIndexType_t,
        idxBase: cusparseIndexBase_t,
        valueType: cudaDataType,
    ) -> cusparseStatus_t;
    /// Destroys a sparse matrix descriptor (not the arrays it describes).
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsedestroyspmat>
    pub fn cusparseDestroySpMat(spMatDescr: cusparseConstSpMatDescr_t) -> cusparseStatus_t;
    /// A dense vector descriptor (a host-only call).
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreatednvec>
    pub fn cusparseCreateDnVec(
        dnVecDescr: *mut cusparseDnVecDescr_t,
        size: i64,
        values: *mut c_void,
        valueType: cudaDataType,
    ) -> cusparseStatus_t;
    /// A read-only dense vector descriptor (a host-only call).
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreatednvec>
    pub fn cusparseCreateConstDnVec(
        dnVecDescr: *mut cusparseConstDnVecDescr_t,
        size: i64,
        values: *const c_void,
        valueType: cudaDataType,
    ) -> cusparseStatus_t;
    /// Destroys a dense vector descriptor.
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsedestroydnvec>
    pub fn cusparseDestroyDnVec(dnVecDescr: cusparseConstDnVecDescr_t) -> cusparseStatus_t;
    /// A dense matrix descriptor (a host-only call).
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreatednmat>
    pub fn cusparseCreateDnMat(
        dnMatDescr: *mut cusparseDnMatDescr_t,
        rows: i64,
        cols: i64,
        ld: i64,
        values: *mut c_void,
        valueType: cudaDataType,
        order: cusparseOrder_t,
    ) -> cusparseStatus_t;
    /// A read-only dense matrix descriptor (a host-only call).
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreatednmat>
    pub fn cusparseCreateConstDnMat(
        dnMatDescr: *mut cusparseConstDnMatDescr_t,
        rows: i64,
        cols: i64,
        ld: i64,
        values: *const c_void,
        valueType: cudaDataType,
        order: cusparseOrder_t,
    ) -> cusparseStatus_t;
    /// Destroys a dense matrix descriptor.
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsedestroydnmat>
    pub fn cusparseDestroyDnMat(dnMatDescr: cusparseConstDnMatDescr_t) -> cusparseStatus_t;
    /// The workspace `cusparseSpMV` needs for these operands.
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsespmv>
    pub fn cusparseSpMV_bufferSize(
        handle: cusparseHandle_t,
        opA: cusparseOperation_t,
        alpha: *const c_void,
        matA: cusparseConstSpMatDescr_t,
        vecX: cusparseConstDnVecDescr_t,
        beta: *const c_void,
        vecY: cusparseDnVecDescr_t,
        computeType: cudaDataType,
        alg: cusparseSpMVAlg_t,
        bufferSize: *mut usize,
    ) -> cusparseStatus_t;
    /// `y = alpha·op(A)·x + beta·y`, enqueued on the handle's stream.
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsespmv>
    pub fn cusparseSpMV(
        handle: cusparseHandle_t,
        opA: cusparseOperation_t,
        alpha: *const c_void,
        matA: cusparseConstSpMatDescr_t,
        vecX: cusparseConstDnVecDescr_t,
        beta: *const c_void,
        vecY: cusparseDnVecDescr_t,
        computeType: cudaDataType,
        alg: cusparseSpMVAlg_t,
        externalBuffer: *mut c_void,
    ) -> cusparseStatus_t;
    /// The workspace `cusparseSpMM` needs for these operands.
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsespmm>
    pub fn cusparseSpMM_bufferSize(
        handle: cusparseHandle_t,
        opA: cusparseOperation_t,
        opB: cusparseOperation_t,
        alpha: *const c_void,
        matA: cusparseConstSpMatDescr_t,
        matB: cusparseConstDnMatDescr_t,
        beta: *const c_void,
        matC: cusparseDnMatDescr_t,
        computeType: cudaDataType,
        alg: cusparseSpMMAlg_t,
        bufferSize: *mut usize,
    ) -> cusparseStatus_t;
    /// `C = alpha·op(A)·op(B) + beta·C`, enqueued on the handle's stream.
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsespmm>
    pub fn cusparseSpMM(
        handle: cusparseHandle_t,
        opA: cusparseOperation_t,
        opB: cusparseOperation_t,
        alpha: *const c_void,
        matA: cusparseConstSpMatDescr_t,
        matB: cusparseConstDnMatDescr_t,
        beta: *const c_void,
        matC: cusparseDnMatDescr_t,
        computeType: cudaDataType,
        alg: cusparseSpMMAlg_t,
        externalBuffer: *mut c_void,
    ) -> cusparseStatus_t;
}
