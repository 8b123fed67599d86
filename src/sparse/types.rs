//! The element types ([`SparseScalar`]: `f32`, `f64`), the index types ([`SparseIndex`]:
//! `i32`, `i64`), the operations ([`Operation`]), the dense layouts ([`Order`], [`Dense`]) and
//! the algorithms ([`SpMvAlg`], [`SpMmAlg`]) of `custack::sparse`.

use crate::ffi::cusparse as raw;
use crate::vocabulary::plain::DeviceCopy;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

/// The value types of a sparse matrix and of the dense operands: `f32` (`CUDA_R_32F`) and
/// `f64` (`CUDA_R_64F`); the computation runs in the same type. Sealed.
pub trait SparseScalar: DeviceCopy + sealed::Sealed + Copy + core::fmt::Debug {
    /// The `cudaDataType` of the values and of the computation.
    #[doc(hidden)]
    const DATA_TYPE: raw::cudaDataType;
}

impl SparseScalar for f32 {
    const DATA_TYPE: raw::cudaDataType = raw::cudaDataType::CUDA_R_32F;
}

impl SparseScalar for f64 {
    const DATA_TYPE: raw::cudaDataType = raw::cudaDataType::CUDA_R_64F;
}

/// The integer type of a sparse matrix's row offsets and indices: `i32`
/// (`CUSPARSE_INDEX_32I`) or `i64` (`CUSPARSE_INDEX_64I`). Every dimension and the number of
/// stored elements must fit it (checked). Sealed.
pub trait SparseIndex: DeviceCopy + sealed::Sealed + Copy + core::fmt::Debug {
    /// The `cusparseIndexType_t` of the arrays.
    #[doc(hidden)]
    const INDEX_TYPE: raw::cusparseIndexType_t;
    /// The largest value, as a `usize` saturated (`i64::MAX` fits a 64-bit `usize`).
    #[doc(hidden)]
    const MAX: usize;
    /// The value, widened.
    #[doc(hidden)]
    fn to_i64(self) -> i64;
}

impl SparseIndex for i32 {
    const INDEX_TYPE: raw::cusparseIndexType_t = raw::cusparseIndexType_t::CUSPARSE_INDEX_32I;
    const MAX: usize = i32::MAX as usize;
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
}

impl SparseIndex for i64 {
    const INDEX_TYPE: raw::cusparseIndexType_t = raw::cusparseIndexType_t::CUSPARSE_INDEX_64I;
    const MAX: usize = if usize::BITS >= 64 {
        i64::MAX as usize
    } else {
        usize::MAX
    };
    fn to_i64(self) -> i64 {
        self
    }
}

/// The operation applied to an operand (`cusparseOperation_t`); for real values the conjugate
/// transpose is the transpose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[doc(alias = "cusparseOperation_t")]
pub enum Operation {
    /// `CUSPARSE_OPERATION_NON_TRANSPOSE`: the operand as stored.
    #[default]
    NonTranspose,
    /// `CUSPARSE_OPERATION_TRANSPOSE`: its transpose.
    Transpose,
}

impl Operation {
    pub(crate) fn raw(self) -> raw::cusparseOperation_t {
        match self {
            Self::NonTranspose => raw::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
            Self::Transpose => raw::cusparseOperation_t::CUSPARSE_OPERATION_TRANSPOSE,
        }
    }

    /// The shape an operand stored as `rows × cols` has under the operation.
    pub(crate) fn apply(self, rows: usize, cols: usize) -> (usize, usize) {
        match self {
            Self::NonTranspose => (rows, cols),
            Self::Transpose => (cols, rows),
        }
    }
}

/// The layout of a dense matrix (`cusparseOrder_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[doc(alias = "cusparseOrder_t")]
pub enum Order {
    /// `CUSPARSE_ORDER_COL`: column-major, element `(i, j)` at `i + j·ld`.
    #[default]
    ColMajor,
    /// `CUSPARSE_ORDER_ROW`: row-major, element `(i, j)` at `i·ld + j`.
    RowMajor,
}

impl Order {
    pub(crate) fn raw(self) -> raw::cusparseOrder_t {
        match self {
            Self::ColMajor => raw::cusparseOrder_t::CUSPARSE_ORDER_COL,
            Self::RowMajor => raw::cusparseOrder_t::CUSPARSE_ORDER_ROW,
        }
    }
}

/// The shape of a dense matrix operand of [`SpMm`](crate::sparse::SpMm): `rows × cols` as
/// stored, its [`Order`] and leading dimension (at least `rows` column-major, `cols`
/// row-major; checked against the bound buffer before anything is enqueued).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(alias = "cusparseDnMatDescr_t")]
pub struct Dense {
    /// Rows as stored.
    pub rows: usize,
    /// Columns as stored.
    pub cols: usize,
    /// The leading dimension: elements between the starts of two columns (column-major) or
    /// rows (row-major).
    pub ld: usize,
    /// The layout.
    pub order: Order,
}

impl Dense {
    /// A packed column-major `rows × cols` matrix (`ld = rows`).
    pub fn col_major(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            ld: rows,
            order: Order::ColMajor,
        }
    }

    /// A packed row-major `rows × cols` matrix (`ld = cols`).
    pub fn row_major(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            ld: cols,
            order: Order::RowMajor,
        }
    }

    /// The same matrix with leading dimension `ld`.
    #[must_use]
    pub fn ld(self, ld: usize) -> Self {
        Self { ld, ..self }
    }
}

/// The algorithm of an `SpMV` (`cusparseSpMVAlg_t`); cuSPARSE refuses one that does not fit the
/// matrix's format (`CusparseInvalidValue` or `CusparseNotSupported`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[doc(alias = "cusparseSpMVAlg_t")]
pub enum SpMvAlg {
    /// `CUSPARSE_SPMV_ALG_DEFAULT`.
    #[default]
    Default,
    /// `CUSPARSE_SPMV_CSR_ALG1`: CSR, deterministic.
    CsrAlg1,
    /// `CUSPARSE_SPMV_CSR_ALG2`: CSR, deterministic, for irregular rows.
    CsrAlg2,
    /// `CUSPARSE_SPMV_COO_ALG1`: COO.
    CooAlg1,
    /// `CUSPARSE_SPMV_COO_ALG2`: COO, deterministic.
    CooAlg2,
}

impl SpMvAlg {
    pub(crate) fn raw(self) -> raw::cusparseSpMVAlg_t {
        use raw::cusparseSpMVAlg_t as A;
        match self {
            Self::Default => A::CUSPARSE_SPMV_ALG_DEFAULT,
            Self::CsrAlg1 => A::CUSPARSE_SPMV_CSR_ALG1,
            Self::CsrAlg2 => A::CUSPARSE_SPMV_CSR_ALG2,
            Self::CooAlg1 => A::CUSPARSE_SPMV_COO_ALG1,
            Self::CooAlg2 => A::CUSPARSE_SPMV_COO_ALG2,
        }
    }
}

/// The algorithm of an `SpMM` (`cusparseSpMMAlg_t`); only those that need no preprocessing step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[doc(alias = "cusparseSpMMAlg_t")]
pub enum SpMmAlg {
    /// `CUSPARSE_SPMM_ALG_DEFAULT`.
    #[default]
    Default,
    /// `CUSPARSE_SPMM_CSR_ALG1`.
    CsrAlg1,
    /// `CUSPARSE_SPMM_CSR_ALG2`.
    CsrAlg2,
    /// `CUSPARSE_SPMM_COO_ALG1`.
    CooAlg1,
    /// `CUSPARSE_SPMM_COO_ALG2`.
    CooAlg2,
}

impl SpMmAlg {
    pub(crate) fn raw(self) -> raw::cusparseSpMMAlg_t {
        use raw::cusparseSpMMAlg_t as A;
        match self {
            Self::Default => A::CUSPARSE_SPMM_ALG_DEFAULT,
            Self::CsrAlg1 => A::CUSPARSE_SPMM_CSR_ALG1,
            Self::CsrAlg2 => A::CUSPARSE_SPMM_CSR_ALG2,
            Self::CooAlg1 => A::CUSPARSE_SPMM_COO_ALG1,
            Self::CooAlg2 => A::CUSPARSE_SPMM_COO_ALG2,
        }
    }
}
