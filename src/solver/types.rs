//! What the plans are made of: the element types ([`Scalar`], `f32` and `f64`, with their raw
//! calls), a column-major [`Matrix`]'s shape, the triangle a symmetric matrix is read from
//! ([`Fill`]), [`Transpose`] and whether a decomposition computes [`Vectors`].

use crate::ffi;
use crate::ffi::cusolver::{
    cublasFillMode_t, cublasOperation_t, cublasSideMode_t, cusolverDnHandle_t, cusolverEigMode_t,
    cusolverStatus_t,
};
use crate::vocabulary::plain::DeviceCopy;
use core::ffi::{c_char, c_int};

/// The shape of a column-major matrix in device memory: `rows × cols`, column `j` starting
/// `ld·j` elements after the first (`ld ≥ rows`, cuSOLVER's and LAPACK's leading dimension).
///
/// A buffer holding it must reach its last element: at least
/// [`ld·(cols − 1) + rows`](Self::reach) elements. Every plan and call checks that, and that
/// each number fits the C `int` cuSOLVER takes, before cuSOLVER sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Matrix {
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) ld: usize,
}

impl Matrix {
    /// A `rows × cols` matrix whose columns follow each other (`ld = rows`).
    pub const fn new(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            ld: rows,
        }
    }

    /// An `n × n` matrix (`ld = n`).
    pub const fn square(n: usize) -> Self {
        Self {
            rows: n,
            cols: n,
            ld: n,
        }
    }

    /// The same matrix with leading dimension `ld` (checked when used: at least `rows`).
    #[must_use]
    pub const fn ld(self, ld: usize) -> Self {
        Self { ld, ..self }
    }

    /// The rows.
    pub const fn rows(&self) -> usize {
        self.rows
    }

    /// The columns.
    pub const fn cols(&self) -> usize {
        self.cols
    }

    /// The leading dimension.
    pub const fn leading_dimension(&self) -> usize {
        self.ld
    }

    /// The elements a buffer must hold: `ld·(cols − 1) + rows` (0 for no columns), `None` if
    /// that overflows `usize`.
    pub const fn reach(&self) -> Option<usize> {
        if self.cols == 0 {
            return Some(0);
        }
        match self.ld.checked_mul(self.cols - 1) {
            Some(x) => x.checked_add(self.rows),
            None => None,
        }
    }
}

/// Which triangle of a symmetric (or positive-definite) matrix cuSOLVER reads and writes; the
/// other is neither read nor written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(alias = "cublasFillMode_t")]
pub enum Fill {
    /// The lower triangle (`CUBLAS_FILL_MODE_LOWER`).
    Lower,
    /// The upper triangle (`CUBLAS_FILL_MODE_UPPER`).
    Upper,
}

impl Fill {
    pub(crate) fn raw(self) -> cublasFillMode_t {
        match self {
            Self::Lower => cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
            Self::Upper => cublasFillMode_t::CUBLAS_FILL_MODE_UPPER,
        }
    }
}

/// A matrix as it is or transposed (real matrices: the conjugate transpose is the transpose).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(alias = "cublasOperation_t")]
pub enum Transpose {
    /// `CUBLAS_OP_N`.
    No,
    /// `CUBLAS_OP_T`.
    Yes,
}

impl Transpose {
    pub(crate) fn raw(self) -> cublasOperation_t {
        match self {
            Self::No => cublasOperation_t::CUBLAS_OP_N,
            Self::Yes => cublasOperation_t::CUBLAS_OP_T,
        }
    }
}

/// Whether a decomposition computes vectors too (`syevd`'s eigenvectors, in place of the
/// matrix), or values only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(alias = "cusolverEigMode_t")]
pub enum Vectors {
    /// Values only (`CUSOLVER_EIG_MODE_NOVECTOR`).
    No,
    /// Values and vectors (`CUSOLVER_EIG_MODE_VECTOR`).
    Yes,
}

impl Vectors {
    pub(crate) fn raw(self) -> cusolverEigMode_t {
        match self {
            Self::No => cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR,
            Self::Yes => cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR,
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The element types cuSOLVER's dense calls take here: `f32` (the `S` calls) and `f64` (`D`).
/// Sealed.
///
/// Every method is one raw call; the safe layer calls them only with arguments it checked.
///
/// # Safety
///
/// Each (hidden) method is the cuSOLVER entry point of its name for `Self` (`getrf` is
/// `cusolverDnSgetrf` for `f32`), and calling it has exactly that call's preconditions: a live
/// handle of the current context; each device pointer addressing memory of that context, alive
/// until the call has run in stream order, holding what the dimensions and leading dimensions
/// reach, written memory aliasing nothing else in use; a workspace of at least the size its
/// `*_bufferSize` answered for the same arguments; every out-pointer valid for a write.
#[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
pub trait Scalar: DeviceCopy + sealed::Sealed {
    /// `"S"` or `"D"`, as in the C names.
    #[doc(hidden)]
    const PREFIX: &'static str;
    /// The C names of the calls (`"cusolverDnSgetrf"`, ...).
    #[doc(hidden)]
    const GETRF: &'static str;
    #[doc(hidden)]
    const GETRS: &'static str;
    #[doc(hidden)]
    const POTRF: &'static str;
    #[doc(hidden)]
    const POTRS: &'static str;
    #[doc(hidden)]
    const GEQRF: &'static str;
    #[doc(hidden)]
    const ORMQR: &'static str;
    #[doc(hidden)]
    const SYEVD: &'static str;
    #[doc(hidden)]
    const GESVD: &'static str;
    #[doc(hidden)]
    unsafe fn getrf_buffer_size(
        h: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn getrf(
        h: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        work: *mut Self,
        ipiv: *mut c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn getrs(
        h: cusolverDnHandle_t,
        trans: cublasOperation_t,
        n: c_int,
        nrhs: c_int,
        a: *const Self,
        lda: c_int,
        ipiv: *const c_int,
        b: *mut Self,
        ldb: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn potrf_buffer_size(
        h: cusolverDnHandle_t,
        uplo: cublasFillMode_t,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn potrf(
        h: cusolverDnHandle_t,
        uplo: cublasFillMode_t,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn potrs(
        h: cusolverDnHandle_t,
        uplo: cublasFillMode_t,
        n: c_int,
        nrhs: c_int,
        a: *const Self,
        lda: c_int,
        b: *mut Self,
        ldb: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn geqrf_buffer_size(
        h: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn geqrf(
        h: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        tau: *mut Self,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn ormqr_buffer_size(
        h: cusolverDnHandle_t,
        side: cublasSideMode_t,
        trans: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        a: *const Self,
        lda: c_int,
        tau: *const Self,
        c: *const Self,
        ldc: c_int,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn ormqr(
        h: cusolverDnHandle_t,
        side: cublasSideMode_t,
        trans: cublasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        a: *const Self,
        lda: c_int,
        tau: *const Self,
        c: *mut Self,
        ldc: c_int,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn syevd_buffer_size(
        h: cusolverDnHandle_t,
        jobz: cusolverEigMode_t,
        uplo: cublasFillMode_t,
        n: c_int,
        a: *const Self,
        lda: c_int,
        w: *const Self,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn syevd(
        h: cusolverDnHandle_t,
        jobz: cusolverEigMode_t,
        uplo: cublasFillMode_t,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        w: *mut Self,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn gesvd_buffer_size(
        h: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    #[doc(hidden)]
    unsafe fn gesvd(
        h: cusolverDnHandle_t,
        jobu: c_char,
        jobvt: c_char,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        s: *mut Self,
        u: *mut Self,
        ldu: c_int,
        vt: *mut Self,
        ldvt: c_int,
        work: *mut Self,
        lwork: c_int,
        rwork: *mut Self,
        info: *mut c_int,
    ) -> cusolverStatus_t;
}

macro_rules! scalar {
    ($t:ty, $p:literal, $getrfb:ident, $getrf:ident, $getrs:ident, $potrfb:ident, $potrf:ident,
     $potrs:ident, $geqrfb:ident, $geqrf:ident, $ormqrb:ident, $ormqr:ident, $syevdb:ident,
     $syevd:ident, $gesvdb:ident, $gesvd:ident) => {
        // SAFETY (every method): each forwards its arguments unchanged to the cuSOLVER entry
        // point of the same name, whose preconditions are the caller's (the trait's methods
        // are unsafe, and the safe layer calls them only with checked arguments).
        impl Scalar for $t {
            const PREFIX: &'static str = $p;
            const GETRF: &'static str = concat!("cusolverDn", $p, "getrf");
            const GETRS: &'static str = concat!("cusolverDn", $p, "getrs");
            const POTRF: &'static str = concat!("cusolverDn", $p, "potrf");
            const POTRS: &'static str = concat!("cusolverDn", $p, "potrs");
            const GEQRF: &'static str = concat!("cusolverDn", $p, "geqrf");
            const ORMQR: &'static str = concat!("cusolverDn", $p, "ormqr");
            const SYEVD: &'static str = concat!("cusolverDn", $p, "syevd");
            const GESVD: &'static str = concat!("cusolverDn", $p, "gesvd");
            unsafe fn getrf_buffer_size(
                h: cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                lwork: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$getrfb(h, m, n, a, lda, lwork) }
            }
            unsafe fn getrf(
                h: cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                work: *mut Self,
                ipiv: *mut c_int,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$getrf(h, m, n, a, lda, work, ipiv, info) }
            }
            unsafe fn getrs(
                h: cusolverDnHandle_t,
                trans: cublasOperation_t,
                n: c_int,
                nrhs: c_int,
                a: *const Self,
                lda: c_int,
                ipiv: *const c_int,
                b: *mut Self,
                ldb: c_int,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$getrs(h, trans, n, nrhs, a, lda, ipiv, b, ldb, info) }
            }
            unsafe fn potrf_buffer_size(
                h: cusolverDnHandle_t,
                uplo: cublasFillMode_t,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                lwork: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$potrfb(h, uplo, n, a, lda, lwork) }
            }
            unsafe fn potrf(
                h: cusolverDnHandle_t,
                uplo: cublasFillMode_t,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$potrf(h, uplo, n, a, lda, work, lwork, info) }
            }
            unsafe fn potrs(
                h: cusolverDnHandle_t,
                uplo: cublasFillMode_t,
                n: c_int,
                nrhs: c_int,
                a: *const Self,
                lda: c_int,
                b: *mut Self,
                ldb: c_int,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$potrs(h, uplo, n, nrhs, a, lda, b, ldb, info) }
            }
            unsafe fn geqrf_buffer_size(
                h: cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                lwork: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$geqrfb(h, m, n, a, lda, lwork) }
            }
            unsafe fn geqrf(
                h: cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                tau: *mut Self,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$geqrf(h, m, n, a, lda, tau, work, lwork, info) }
            }
            unsafe fn ormqr_buffer_size(
                h: cusolverDnHandle_t,
                side: cublasSideMode_t,
                trans: cublasOperation_t,
                m: c_int,
                n: c_int,
                k: c_int,
                a: *const Self,
                lda: c_int,
                tau: *const Self,
                c: *const Self,
                ldc: c_int,
                lwork: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe {
                    ffi::cusolver::$ormqrb(h, side, trans, m, n, k, a, lda, tau, c, ldc, lwork)
                }
            }
            unsafe fn ormqr(
                h: cusolverDnHandle_t,
                side: cublasSideMode_t,
                trans: cublasOperation_t,
                m: c_int,
                n: c_int,
                k: c_int,
                a: *const Self,
                lda: c_int,
                tau: *const Self,
                c: *mut Self,
                ldc: c_int,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe {
                    ffi::cusolver::$ormqr(
                        h, side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info,
                    )
                }
            }
            unsafe fn syevd_buffer_size(
                h: cusolverDnHandle_t,
                jobz: cusolverEigMode_t,
                uplo: cublasFillMode_t,
                n: c_int,
                a: *const Self,
                lda: c_int,
                w: *const Self,
                lwork: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$syevdb(h, jobz, uplo, n, a, lda, w, lwork) }
            }
            unsafe fn syevd(
                h: cusolverDnHandle_t,
                jobz: cusolverEigMode_t,
                uplo: cublasFillMode_t,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                w: *mut Self,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$syevd(h, jobz, uplo, n, a, lda, w, work, lwork, info) }
            }
            unsafe fn gesvd_buffer_size(
                h: cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                lwork: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe { ffi::cusolver::$gesvdb(h, m, n, lwork) }
            }
            unsafe fn gesvd(
                h: cusolverDnHandle_t,
                jobu: c_char,
                jobvt: c_char,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                s: *mut Self,
                u: *mut Self,
                ldu: c_int,
                vt: *mut Self,
                ldvt: c_int,
                work: *mut Self,
                lwork: c_int,
                rwork: *mut Self,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                // SAFETY: the caller's preconditions are the call's.
                unsafe {
                    ffi::cusolver::$gesvd(
                        h, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info,
                    )
                }
            }
        }
    };
}

scalar!(
    f32,
    "S",
    cusolverDnSgetrf_bufferSize,
    cusolverDnSgetrf,
    cusolverDnSgetrs,
    cusolverDnSpotrf_bufferSize,
    cusolverDnSpotrf,
    cusolverDnSpotrs,
    cusolverDnSgeqrf_bufferSize,
    cusolverDnSgeqrf,
    cusolverDnSormqr_bufferSize,
    cusolverDnSormqr,
    cusolverDnSsyevd_bufferSize,
    cusolverDnSsyevd,
    cusolverDnSgesvd_bufferSize,
    cusolverDnSgesvd
);
scalar!(
    f64,
    "D",
    cusolverDnDgetrf_bufferSize,
    cusolverDnDgetrf,
    cusolverDnDgetrs,
    cusolverDnDpotrf_bufferSize,
    cusolverDnDpotrf,
    cusolverDnDpotrs,
    cusolverDnDgeqrf_bufferSize,
    cusolverDnDgeqrf,
    cusolverDnDormqr_bufferSize,
    cusolverDnDormqr,
    cusolverDnDsyevd_bufferSize,
    cusolverDnDsyevd,
    cusolverDnDgesvd_bufferSize,
    cusolverDnDgesvd
);
