//! [`SparseMatrix`]: a cuSPARSE sparse matrix descriptor over arrays bound to a scope, which it
//! borrows for the scope, so it can neither outlive them nor be used in another scope.

use crate::asynchronous::scope::StreamScope;
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::ffi::cusparse as raw;
use crate::sparse::check;
use crate::sparse::pattern::{CooPattern, CsrPattern};
use crate::sparse::status::status;
use crate::sparse::types::{SparseIndex, SparseScalar};
use crate::vocabulary::binding::{Invariant, ScopedRead, ScopedSlice};
use core::ffi::c_void;
use core::marker::PhantomData;

/// The storage format of a [`SparseMatrix`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(alias = "cusparseFormat_t")]
pub enum Format {
    /// `CUSPARSE_FORMAT_CSR`: compressed sparse rows.
    Csr,
    /// `CUSPARSE_FORMAT_COO`: coordinates, sorted by row.
    Coo,
}

/// A sparse matrix descriptor (`cusparseSpMatDescr_t`, made read-only:
/// `cusparseCreateConstCsr`, `cusparseCreateConstCoo`) over a structure and values bound to
/// the scope `'scope`; see the [module docs](crate::sparse).
///
/// It borrows what it describes for the whole scope (the pattern shared, the values as a
/// [`ScopedSlice`] of that scope), so the compiler refuses (C35) a descriptor that outlives its
/// arrays, one made of memory bound to another scope, and any write to its arrays while it
/// exists. Destroyed when dropped (`cusparseDestroySpMat`, a host-only call; errors recorded,
/// see [`take_drop_errors`](crate::take_drop_errors)). `!Send`, `!Sync`.
#[doc(alias = "cusparseSpMatDescr_t")]
pub struct SparseMatrix<'scope, T: SparseScalar, I: SparseIndex = i32> {
    raw: raw::cusparseConstSpMatDescr_t,
    rows: usize,
    cols: usize,
    nnz: usize,
    format: Format,
    _marker: PhantomData<(Invariant<'scope>, *const T, I)>,
}

static_assertions::assert_not_impl_any!(SparseMatrix<'static, f32>: Send, Sync);

impl<T: SparseScalar, I: SparseIndex> core::fmt::Debug for SparseMatrix<'_, T, I> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SparseMatrix")
            .field("format", &self.format)
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .field("nnz", &self.nnz)
            .finish_non_exhaustive()
    }
}

fn ptr(p: ffi::CUdeviceptr) -> *const c_void {
    p as usize as *const c_void
}

impl<'scope, T: SparseScalar, I: SparseIndex> SparseMatrix<'scope, T, I> {
    /// `cusparseCreateConstCsr`—A CSR matrix of a checked [`CsrPattern`] and its values, bound
    /// to the scope `s` (`s.bind(&values)`; at least `pattern.nnz()` of them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::BufferTooShort`](crate::ErrorKind::BufferTooShort) for fewer values than
    /// the pattern stores, before cuSPARSE is called; cuSPARSE's status
    /// ([`ErrorKind::LibraryNotLinked`](crate::ErrorKind::LibraryNotLinked) in a build without
    /// it).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// use custack::sparse::SparseMatrix;
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let pattern = guard.csr_pattern(2, 3, &[0i32, 2, 3], &[0, 2, 2])?;
    /// let values = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
    /// guard.stream()?.scope(|s| -> custack::Result<()> {
    ///     let a = SparseMatrix::csr(s, &pattern, s.bind(&values))?;
    ///     assert_eq!((a.rows(), a.cols(), a.nnz()), (2, 3, 3));
    ///     Ok(())
    /// })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreatecsr>
    #[doc(alias = "cusparseCreateCsr")]
    #[doc(alias = "cusparseCreateConstCsr")]
    pub fn csr(
        s: &StreamScope<'scope, '_>,
        pattern: &'scope CsrPattern<'_, I>,
        values: ScopedSlice<'scope, T>,
    ) -> Result<Self> {
        let (offsets, _) = s.bind(pattern.row_offsets()).raw_parts();
        let (indices, _) = s.bind(pattern.col_indices()).raw_parts();
        let (values, len) = values.raw_parts();
        check::holds("cusparseCreateConstCsr", "values", len, pattern.nnz())?;
        // SAFETY: the pattern was checked (`check::csr`) and its arrays are private to it and
        // never written after the check, borrowed for 'scope; the values hold nnz elements
        // (checked above), bound to the scope for reading. So cuSPARSE reads in bounds.
        unsafe {
            Self::make_csr(
                [pattern.rows(), pattern.cols(), pattern.nnz()],
                [offsets, indices, values],
            )
        }
    }

    /// `cusparseCreateConstCoo`—A COO matrix of a checked [`CooPattern`] and its values, bound
    /// to the scope `s` (at least `pattern.nnz()` of them).
    ///
    /// # Errors
    ///
    /// As [`csr`](Self::csr).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreatecoo>
    #[doc(alias = "cusparseCreateCoo")]
    #[doc(alias = "cusparseCreateConstCoo")]
    pub fn coo(
        s: &StreamScope<'scope, '_>,
        pattern: &'scope CooPattern<'_, I>,
        values: ScopedSlice<'scope, T>,
    ) -> Result<Self> {
        let (rows_at, _) = s.bind(pattern.row_indices()).raw_parts();
        let (cols_at, _) = s.bind(pattern.col_indices()).raw_parts();
        let (values, len) = values.raw_parts();
        check::holds("cusparseCreateConstCoo", "values", len, pattern.nnz())?;
        // SAFETY: as for `csr`: a checked pattern, never written since, and nnz values.
        unsafe {
            Self::make_coo(
                [pattern.rows(), pattern.cols(), pattern.nnz()],
                [rows_at, cols_at, values],
            )
        }
    }

    /// `cusparseCreateConstCsr`—A CSR matrix over arrays that live only on the device, bound
    /// to the scope, **without checking the structure**.
    ///
    /// Checked: `rows`, `cols` and `nnz` fit `I` (and `nnz ≥ 1`); `row_offsets` holds at least
    /// `rows + 1` elements, `col_indices` and `values` at least `nnz`. Not checked: that the
    /// offsets start at 0, never decrease and end at `nnz`, and that each column index is in
    /// `0..cols`; cuSPARSE does not check them either, and its kernels index the arrays and
    /// the dense operands with them. [`CsrPattern::from_device`] checks them (it copies the
    /// arrays back).
    ///
    /// # Safety
    ///
    /// The first `rows + 1` elements of `row_offsets` start at 0, never decrease and end at
    /// `nnz`; the first `nnz` elements of `col_indices` are in `0..cols`; and they stay so
    /// while the scope's work may run (a binding for reading already keeps safe code from
    /// writing them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::BufferTooShort`](crate::ErrorKind::BufferTooShort),
    /// [`ErrorKind::SizeOverflow`](crate::ErrorKind::SizeOverflow),
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (`nnz` 0) before cuSPARSE is
    /// called; cuSPARSE's status.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreatecsr>
    #[doc(alias = "cusparseCreateCsr")]
    pub unsafe fn csr_unchecked(
        rows: usize,
        cols: usize,
        nnz: usize,
        row_offsets: ScopedSlice<'scope, I>,
        col_indices: ScopedSlice<'scope, I>,
        values: ScopedSlice<'scope, T>,
    ) -> Result<Self> {
        let call = "cusparseCreateConstCsr";
        check::dims::<I>(call, rows, cols, nnz)?;
        let (offsets, offsets_len) = row_offsets.raw_parts();
        let (indices, indices_len) = col_indices.raw_parts();
        let (values, values_len) = values.raw_parts();
        // `rows ≤ I::MAX < usize::MAX`, so `rows + 1` does not overflow.
        check::holds(call, "row_offsets", offsets_len, rows + 1)?;
        check::holds(call, "col_indices", indices_len, nnz)?;
        check::holds(call, "values", values_len, nnz)?;
        // SAFETY: the lengths are checked above, the structure is the caller's guarantee.
        unsafe { Self::make_csr([rows, cols, nnz], [offsets, indices, values]) }
    }

    /// `cusparseCreateConstCoo`—A COO matrix over arrays that live only on the device, bound
    /// to the scope, **without checking the structure**.
    ///
    /// Checked: the dimensions fit `I`, `nnz ≥ 1`, and each array holds at least `nnz`
    /// elements. Not checked: that each row index is in `0..rows` and sorted, each column
    /// index in `0..cols` ([`CooPattern::from_device`] checks them).
    ///
    /// # Safety
    ///
    /// The first `nnz` row indices are in `0..rows` and sorted, the first `nnz` column indices
    /// in `0..cols`, and they stay so while the scope's work may run.
    ///
    /// # Errors
    ///
    /// As [`csr_unchecked`](Self::csr_unchecked).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsecreatecoo>
    #[doc(alias = "cusparseCreateCoo")]
    pub unsafe fn coo_unchecked(
        rows: usize,
        cols: usize,
        nnz: usize,
        row_indices: ScopedSlice<'scope, I>,
        col_indices: ScopedSlice<'scope, I>,
        values: ScopedSlice<'scope, T>,
    ) -> Result<Self> {
        let call = "cusparseCreateConstCoo";
        check::dims::<I>(call, rows, cols, nnz)?;
        let (rows_at, rows_len) = row_indices.raw_parts();
        let (cols_at, cols_len) = col_indices.raw_parts();
        let (values, values_len) = values.raw_parts();
        check::holds(call, "row_indices", rows_len, nnz)?;
        check::holds(call, "col_indices", cols_len, nnz)?;
        check::holds(call, "values", values_len, nnz)?;
        // SAFETY: the lengths are checked above, the structure is the caller's guarantee.
        unsafe { Self::make_coo([rows, cols, nnz], [rows_at, cols_at, values]) }
    }

    /// # Safety
    ///
    /// The arrays are device memory of the current context bound to the scope for reading,
    /// holding a valid CSR structure of `[rows, cols, nnz]` and `nnz` values.
    unsafe fn make_csr(
        [rows, cols, nnz]: [usize; 3],
        [offsets, indices, values]: [ffi::CUdeviceptr; 3],
    ) -> Result<Self> {
        crate::sparse::status::not_linked()?;
        let call = "cusparseCreateConstCsr";
        let [r, c, n] = check::dims::<I>(call, rows, cols, nnz)?;
        let mut raw = core::ptr::null();
        // SAFETY: `cusparseCreateConstCsr` writes a descriptor through a valid out-pointer (a
        // live local) and stores the array pointers and sizes; it reads no device memory
        // (a host-only call). The arrays are the caller's guarantee.
        status(call, unsafe {
            raw::cusparseCreateConstCsr(
                &raw mut raw,
                r,
                c,
                n,
                ptr(offsets),
                ptr(indices),
                ptr(values),
                I::INDEX_TYPE,
                I::INDEX_TYPE,
                raw::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                T::DATA_TYPE,
            )
        })?;
        Ok(Self {
            raw,
            rows,
            cols,
            nnz,
            format: Format::Csr,
            _marker: PhantomData,
        })
    }

    /// # Safety
    ///
    /// As [`make_csr`](Self::make_csr), for a valid COO structure.
    unsafe fn make_coo(
        [rows, cols, nnz]: [usize; 3],
        [rows_at, cols_at, values]: [ffi::CUdeviceptr; 3],
    ) -> Result<Self> {
        crate::sparse::status::not_linked()?;
        let call = "cusparseCreateConstCoo";
        let [r, c, n] = check::dims::<I>(call, rows, cols, nnz)?;
        let mut raw = core::ptr::null();
        // SAFETY: as in `make_csr`: a host-only call writing through a live local.
        status(call, unsafe {
            raw::cusparseCreateConstCoo(
                &raw mut raw,
                r,
                c,
                n,
                ptr(rows_at),
                ptr(cols_at),
                ptr(values),
                I::INDEX_TYPE,
                raw::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                T::DATA_TYPE,
            )
        })?;
        Ok(Self {
            raw,
            rows,
            cols,
            nnz,
            format: Format::Coo,
            _marker: PhantomData,
        })
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Stored elements.
    pub fn nnz(&self) -> usize {
        self.nnz
    }
    /// The storage format.
    pub fn format(&self) -> Format {
        self.format
    }
    /// The descriptor, for cuSPARSE functions this module does not wrap; it stays owned by
    /// `self`.
    pub fn as_raw(&self) -> raw::cusparseConstSpMatDescr_t {
        self.raw
    }
}

impl<T: SparseScalar, I: SparseIndex> Drop for SparseMatrix<'_, T, I> {
    fn drop(&mut self) {
        // SAFETY: a live descriptor, destroyed once; a host-only call that frees the
        // descriptor, not the arrays (cuSPARSE's calls take the array pointers when enqueued).
        if let Err(e) = status("cusparseDestroySpMat", unsafe {
            raw::cusparseDestroySpMat(self.raw)
        }) {
            record_drop_error(e);
        }
    }
}
