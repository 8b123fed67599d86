//! Mirrors cuSOLVER's dense API, `cusolverDn.h` (cuSOLVER 11.5 of CUDA 12.2 and 12.0 of CUDA 13
//! alike): the handle, the status, the enums the safe layer passes, and the entry points
//! `custack::solver` calls, `f32` then `f64`, each in header order (the version functions of
//! `cusolver_common.h` first).
//!
//! Only symbols exported by both `libcusolver.so.11` of CUDA 12.2 and `libcusolver.so.12` of
//! CUDA 13 are declared (the legacy 32-bit-`int` dense API, which both keep). No `#[link]`: with
//! the cargo feature `cusolver`, `build.rs` links the library into the crate. Where it found
//! none (`cfg(custack_no_cusolver)`), the same names are functions that return
//! `CUSOLVER_STATUS_NOT_INITIALIZED` without touching their arguments, so the crate builds and
//! `custack::solver` says at run time what to install.
//!
//! `cudaStream_t` is `CUstream`: the runtime and driver APIs share stream handles. The three
//! cuBLAS enums cuSOLVER takes (`cublasFillMode_t`, `cublasOperation_t`, `cublasSideMode_t`)
//! are mirrored here under their C names, so that the feature needs no `cublas`.

use super::types::CUstream;
use core::ffi::{c_char, c_int};
use core::marker::{PhantomData, PhantomPinned};

/// `struct cusolverDnContext`: opaque.
#[repr(C)]
pub struct cusolverDnContext {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `cusolverDnHandle_t`: a dense cuSOLVER handle, bound to the CUDA context current at
/// creation.
pub type cusolverDnHandle_t = *mut cusolverDnContext;

/// `cusolverStatus_t`: the status every cuSOLVER entry point returns.
///
/// A newtype, not an enum: a newer cuSOLVER may return values this list lacks.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[must_use]
pub struct cusolverStatus_t(pub c_int);

impl cusolverStatus_t {
    /// `CUSOLVER_STATUS_SUCCESS` (0).
    pub const CUSOLVER_STATUS_SUCCESS: Self = Self(0);
    /// `CUSOLVER_STATUS_NOT_INITIALIZED` (1).
    pub const CUSOLVER_STATUS_NOT_INITIALIZED: Self = Self(1);
    /// `CUSOLVER_STATUS_ALLOC_FAILED` (2).
    pub const CUSOLVER_STATUS_ALLOC_FAILED: Self = Self(2);
    /// `CUSOLVER_STATUS_INVALID_VALUE` (3).
    pub const CUSOLVER_STATUS_INVALID_VALUE: Self = Self(3);
    /// `CUSOLVER_STATUS_ARCH_MISMATCH` (4).
    pub const CUSOLVER_STATUS_ARCH_MISMATCH: Self = Self(4);
    /// `CUSOLVER_STATUS_MAPPING_ERROR` (5).
    pub const CUSOLVER_STATUS_MAPPING_ERROR: Self = Self(5);
    /// `CUSOLVER_STATUS_EXECUTION_FAILED` (6).
    pub const CUSOLVER_STATUS_EXECUTION_FAILED: Self = Self(6);
    /// `CUSOLVER_STATUS_INTERNAL_ERROR` (7).
    pub const CUSOLVER_STATUS_INTERNAL_ERROR: Self = Self(7);
    /// `CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED` (8).
    pub const CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: Self = Self(8);
    /// `CUSOLVER_STATUS_NOT_SUPPORTED` (9).
    pub const CUSOLVER_STATUS_NOT_SUPPORTED: Self = Self(9);
    /// `CUSOLVER_STATUS_ZERO_PIVOT` (10).
    pub const CUSOLVER_STATUS_ZERO_PIVOT: Self = Self(10);
    /// `CUSOLVER_STATUS_INVALID_LICENSE` (11).
    pub const CUSOLVER_STATUS_INVALID_LICENSE: Self = Self(11);
    /// `CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED` (12).
    pub const CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED: Self = Self(12);
    /// `CUSOLVER_STATUS_IRS_PARAMS_INVALID` (13).
    pub const CUSOLVER_STATUS_IRS_PARAMS_INVALID: Self = Self(13);
    /// `CUSOLVER_STATUS_IRS_PARAMS_INVALID_PREC` (14).
    pub const CUSOLVER_STATUS_IRS_PARAMS_INVALID_PREC: Self = Self(14);
    /// `CUSOLVER_STATUS_IRS_PARAMS_INVALID_REFINE` (15).
    pub const CUSOLVER_STATUS_IRS_PARAMS_INVALID_REFINE: Self = Self(15);
    /// `CUSOLVER_STATUS_IRS_PARAMS_INVALID_MAXITER` (16).
    pub const CUSOLVER_STATUS_IRS_PARAMS_INVALID_MAXITER: Self = Self(16);
    /// `CUSOLVER_STATUS_IRS_INTERNAL_ERROR` (20).
    pub const CUSOLVER_STATUS_IRS_INTERNAL_ERROR: Self = Self(20);
    /// `CUSOLVER_STATUS_IRS_NOT_SUPPORTED` (21).
    pub const CUSOLVER_STATUS_IRS_NOT_SUPPORTED: Self = Self(21);
    /// `CUSOLVER_STATUS_IRS_OUT_OF_RANGE` (22).
    pub const CUSOLVER_STATUS_IRS_OUT_OF_RANGE: Self = Self(22);
    /// `CUSOLVER_STATUS_IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES` (23).
    pub const CUSOLVER_STATUS_IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES: Self = Self(23);
    /// `CUSOLVER_STATUS_IRS_INFOS_NOT_INITIALIZED` (25).
    pub const CUSOLVER_STATUS_IRS_INFOS_NOT_INITIALIZED: Self = Self(25);
    /// `CUSOLVER_STATUS_IRS_INFOS_NOT_DESTROYED` (26).
    pub const CUSOLVER_STATUS_IRS_INFOS_NOT_DESTROYED: Self = Self(26);
    /// `CUSOLVER_STATUS_IRS_MATRIX_SINGULAR` (30).
    pub const CUSOLVER_STATUS_IRS_MATRIX_SINGULAR: Self = Self(30);
    /// `CUSOLVER_STATUS_INVALID_WORKSPACE` (31).
    pub const CUSOLVER_STATUS_INVALID_WORKSPACE: Self = Self(31);
}

/// `cublasFillMode_t`: which triangle of a symmetric matrix is read.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasFillMode_t(pub c_int);

impl cublasFillMode_t {
    /// `CUBLAS_FILL_MODE_LOWER` (0).
    pub const CUBLAS_FILL_MODE_LOWER: Self = Self(0);
    /// `CUBLAS_FILL_MODE_UPPER` (1).
    pub const CUBLAS_FILL_MODE_UPPER: Self = Self(1);
}

/// `cublasOperation_t`: a matrix as it is, transposed, or conjugate-transposed.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasOperation_t(pub c_int);

impl cublasOperation_t {
    /// `CUBLAS_OP_N` (0).
    pub const CUBLAS_OP_N: Self = Self(0);
    /// `CUBLAS_OP_T` (1).
    pub const CUBLAS_OP_T: Self = Self(1);
    /// `CUBLAS_OP_C` (2).
    pub const CUBLAS_OP_C: Self = Self(2);
}

/// `cublasSideMode_t`: the side a matrix multiplies from.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cublasSideMode_t(pub c_int);

impl cublasSideMode_t {
    /// `CUBLAS_SIDE_LEFT` (0).
    pub const CUBLAS_SIDE_LEFT: Self = Self(0);
    /// `CUBLAS_SIDE_RIGHT` (1).
    pub const CUBLAS_SIDE_RIGHT: Self = Self(1);
}

/// `cusolverEigMode_t`: eigenvalues only, or eigenvectors too.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cusolverEigMode_t(pub c_int);

impl cusolverEigMode_t {
    /// `CUSOLVER_EIG_MODE_NOVECTOR` (0).
    pub const CUSOLVER_EIG_MODE_NOVECTOR: Self = Self(0);
    /// `CUSOLVER_EIG_MODE_VECTOR` (1).
    pub const CUSOLVER_EIG_MODE_VECTOR: Self = Self(1);
}

/// `libraryPropertyType` (`library_types.h`): which part of the version to ask for.
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

link_or_stub! {
    missing: custack_no_cusolver => cusolverStatus_t::CUSOLVER_STATUS_NOT_INITIALIZED;
    /// The cuSOLVER version (major·1000 + minor·100 + patch).
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolvergetversion>
    pub fn cusolverGetVersion(version: *mut c_int) -> cusolverStatus_t;
    /// One part of the cuSOLVER version.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolvergetproperty>
    pub fn cusolverGetProperty(kind: libraryPropertyType, value: *mut c_int) -> cusolverStatus_t;
    /// Creates a dense handle in the current context.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdncreate>
    pub fn cusolverDnCreate(handle: *mut cusolverDnHandle_t) -> cusolverStatus_t;
    /// Destroys a dense handle and frees what cuSOLVER allocated for it.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdndestroy>
    pub fn cusolverDnDestroy(handle: cusolverDnHandle_t) -> cusolverStatus_t;
    /// Sets the stream the handle's later calls run on.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdnsetstream>
    pub fn cusolverDnSetStream(handle: cusolverDnHandle_t, stream: CUstream) -> cusolverStatus_t;
    /// The workspace of `cusolverDnSpotrf`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-potrf>
    pub fn cusolverDnSpotrf_bufferSize(
        handle: cusolverDnHandle_t,
        uplo: cublasFillMode_t,
        n: c_int,
        A: *mut f32,
        lda: c_int,
        Lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// Cholesky factorization of a symmetric positive-definite matrix, in place.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-potrf>
    pub fn cusolverDnSpotrf(
        handle: cusolverDnHandle_t,
        uplo: cublasFillMode_t,
        n: c_int,
        A: *mut f32,
        lda: c_int,
        Workspace: *mut f32,
        Lwork: c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// Solves `A·X = B` with `potrf`'s factor, overwriting `B`.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-potrs>
    pub fn cusolverDnSpotrs(
        handle: cusolverDnHandle_t,
        uplo: cublasFillMode_t,
        n: c_int,
        nrhs: c_int,
        A: *const f32,
        lda: c_int,
        B: *mut f32,
        ldb: c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnSgetrf`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrf>
    pub fn cusolverDnSgetrf_bufferSize(
        handle: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        A: *mut f32,
        lda: c_int,
        Lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// LU factorization with partial pivoting, in place.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrf>
    pub fn cusolverDnSgetrf(
        handle: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        A: *mut f32,
        lda: c_int,
        Workspace: *mut f32,
        devIpiv: *mut c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// Solves `op(A)·X = B` with `getrf`'s factors and pivots, overwriting `B`.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrs>
    pub fn cusolverDnSgetrs(
        handle: cusolverDnHandle_t,
        trans: cublasOperation_t,
        n: c_int,
        nrhs: c_int,
        A: *const f32,
        lda: c_int,
        devIpiv: *const c_int,
        B: *mut f32,
        ldb: c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnSgeqrf`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-geqrf>
    pub fn cusolverDnSgeqrf_bufferSize(
        handle: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        A: *mut f32,
        lda: c_int,
        Lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// QR factorization, in place: `R` above the diagonal, the reflectors below and in `TAU`.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-geqrf>
    pub fn cusolverDnSgeqrf(
        handle: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        A: *mut f32,
        lda: c_int,
        TAU: *mut f32,
        Workspace: *mut f32,
        Lwork: c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnSormqr`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-ormqr>
    pub fn cusolverDnSormqr_bufferSize(
        handle: cusolverDnHandle_t,
        side: cublasSideMode_t,
        trans: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        A: *const f32,
        lda: c_int,
        tau: *const f32,
        C: *const f32,
        ldc: c_int,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// Multiplies `C` by `geqrf`'s `Q` (or its transpose), overwriting `C`.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-ormqr>
    pub fn cusolverDnSormqr(
        handle: cusolverDnHandle_t,
        side: cublasSideMode_t,
        trans: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        A: *const f32,
        lda: c_int,
        tau: *const f32,
        C: *mut f32,
        ldc: c_int,
        work: *mut f32,
        lwork: c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnSgesvd`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-gesvd>
    pub fn cusolverDnSgesvd_bufferSize(
        handle: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// Singular value decomposition (`m ≥ n`), destroying `A`.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-gesvd>
    pub fn cusolverDnSgesvd(
        handle: cusolverDnHandle_t,
        jobu: c_char,
        jobvt: c_char,
        m: c_int,
        n: c_int,
        A: *mut f32,
        lda: c_int,
        S: *mut f32,
        U: *mut f32,
        ldu: c_int,
        VT: *mut f32,
        ldvt: c_int,
        work: *mut f32,
        lwork: c_int,
        rwork: *mut f32,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnSsyevd`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-syevd>
    pub fn cusolverDnSsyevd_bufferSize(
        handle: cusolverDnHandle_t,
        jobz: cusolverEigMode_t,
        uplo: cublasFillMode_t,
        n: c_int,
        A: *const f32,
        lda: c_int,
        W: *const f32,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// Eigenvalues (ascending) and, with `jobz`, eigenvectors of a symmetric matrix.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-syevd>
    pub fn cusolverDnSsyevd(
        handle: cusolverDnHandle_t,
        jobz: cusolverEigMode_t,
        uplo: cublasFillMode_t,
        n: c_int,
        A: *mut f32,
        lda: c_int,
        W: *mut f32,
        work: *mut f32,
        lwork: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnDpotrf`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-potrf>
    pub fn cusolverDnDpotrf_bufferSize(
        handle: cusolverDnHandle_t,
        uplo: cublasFillMode_t,
        n: c_int,
        A: *mut f64,
        lda: c_int,
        Lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// Cholesky factorization of a symmetric positive-definite matrix, in place.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-potrf>
    pub fn cusolverDnDpotrf(
        handle: cusolverDnHandle_t,
        uplo: cublasFillMode_t,
        n: c_int,
        A: *mut f64,
        lda: c_int,
        Workspace: *mut f64,
        Lwork: c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// Solves `A·X = B` with `potrf`'s factor, overwriting `B`.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-potrs>
    pub fn cusolverDnDpotrs(
        handle: cusolverDnHandle_t,
        uplo: cublasFillMode_t,
        n: c_int,
        nrhs: c_int,
        A: *const f64,
        lda: c_int,
        B: *mut f64,
        ldb: c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnDgetrf`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrf>
    pub fn cusolverDnDgetrf_bufferSize(
        handle: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        A: *mut f64,
        lda: c_int,
        Lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// LU factorization with partial pivoting, in place.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrf>
    pub fn cusolverDnDgetrf(
        handle: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        A: *mut f64,
        lda: c_int,
        Workspace: *mut f64,
        devIpiv: *mut c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// Solves `op(A)·X = B` with `getrf`'s factors and pivots, overwriting `B`.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrs>
    pub fn cusolverDnDgetrs(
        handle: cusolverDnHandle_t,
        trans: cublasOperation_t,
        n: c_int,
        nrhs: c_int,
        A: *const f64,
        lda: c_int,
        devIpiv: *const c_int,
        B: *mut f64,
        ldb: c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnDgeqrf`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-geqrf>
    pub fn cusolverDnDgeqrf_bufferSize(
        handle: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        A: *mut f64,
        lda: c_int,
        Lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// QR factorization, in place: `R` above the diagonal, the reflectors below and in `TAU`.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-geqrf>
    pub fn cusolverDnDgeqrf(
        handle: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        A: *mut f64,
        lda: c_int,
        TAU: *mut f64,
        Workspace: *mut f64,
        Lwork: c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnDormqr`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-ormqr>
    pub fn cusolverDnDormqr_bufferSize(
        handle: cusolverDnHandle_t,
        side: cublasSideMode_t,
        trans: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        A: *const f64,
        lda: c_int,
        tau: *const f64,
        C: *const f64,
        ldc: c_int,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// Multiplies `C` by `geqrf`'s `Q` (or its transpose), overwriting `C`.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-ormqr>
    pub fn cusolverDnDormqr(
        handle: cusolverDnHandle_t,
        side: cublasSideMode_t,
        trans: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        A: *const f64,
        lda: c_int,
        tau: *const f64,
        C: *mut f64,
        ldc: c_int,
        work: *mut f64,
        lwork: c_int,
        devInfo: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnDgesvd`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-gesvd>
    pub fn cusolverDnDgesvd_bufferSize(
        handle: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// Singular value decomposition (`m ≥ n`), destroying `A`.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-gesvd>
    pub fn cusolverDnDgesvd(
        handle: cusolverDnHandle_t,
        jobu: c_char,
        jobvt: c_char,
        m: c_int,
        n: c_int,
        A: *mut f64,
        lda: c_int,
        S: *mut f64,
        U: *mut f64,
        ldu: c_int,
        VT: *mut f64,
        ldvt: c_int,
        work: *mut f64,
        lwork: c_int,
        rwork: *mut f64,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    /// The workspace of `cusolverDnDsyevd`, in elements.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-syevd>
    pub fn cusolverDnDsyevd_bufferSize(
        handle: cusolverDnHandle_t,
        jobz: cusolverEigMode_t,
        uplo: cublasFillMode_t,
        n: c_int,
        A: *const f64,
        lda: c_int,
        W: *const f64,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    /// Eigenvalues (ascending) and, with `jobz`, eigenvectors of a symmetric matrix.
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-syevd>
    pub fn cusolverDnDsyevd(
        handle: cusolverDnHandle_t,
        jobz: cusolverEigMode_t,
        uplo: cublasFillMode_t,
        n: c_int,
        A: *mut f64,
        lda: c_int,
        W: *mut f64,
        work: *mut f64,
        lwork: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
}
