//! Sparse structures whose validity custack has checked: [`CsrPattern`] (row offsets and
//! column indices) and [`CooPattern`] (row and column indices), owned device arrays that
//! nothing can write once checked, so every matrix made over one reads in bounds.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::Result;
use crate::memory::{DeviceBuffer, DeviceMemory};
use crate::sparse::check;
use crate::sparse::types::SparseIndex;

/// A CSR structure checked on the host and owned on the device: `rows + 1` row offsets,
/// starting at 0 and never decreasing, and `nnz` column indices, each in `0..cols`. The
/// values are not part of it: a [`SparseMatrix`](crate::sparse::SparseMatrix) pairs a pattern
/// with values bound to a scope, so one pattern serves many value arrays.
///
/// Its arrays are private and never written after the check, so the structure cuSPARSE reads
/// is the one checked (cuSPARSE does not check it: see the [module docs](crate::sparse)).
#[doc(alias = "cusparseCreateCsr")]
#[derive(Debug)]
pub struct CsrPattern<'g, I: SparseIndex = i32> {
    rows: usize,
    cols: usize,
    nnz: usize,
    row_offsets: DeviceBuffer<'g, I>,
    col_indices: DeviceBuffer<'g, I>,
}

/// A COO structure checked on the host and owned on the device: `nnz` row indices, each in
/// `0..rows` and sorted (none smaller than the one before, as cuSPARSE's COO format is), and
/// `nnz` column indices, each in `0..cols`.
#[doc(alias = "cusparseCreateCoo")]
#[derive(Debug)]
pub struct CooPattern<'g, I: SparseIndex = i32> {
    rows: usize,
    cols: usize,
    row_indices: DeviceBuffer<'g, I>,
    col_indices: DeviceBuffer<'g, I>,
}

// A pattern owns device arrays of its guard's context: neither sent nor shared across threads.
static_assertions::assert_not_impl_any!(CsrPattern<'static, i32>: Send, Sync);
static_assertions::assert_not_impl_any!(CooPattern<'static, i64>: Send, Sync);

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// Checks a CSR structure on the host and copies it to this guard's context
    /// (`cuMemAlloc`, `cuMemcpyHtoD`): `row_offsets` holds `rows + 1` offsets, the first 0,
    /// none smaller than the one before, the last (`nnz`, at least 1) at most
    /// `col_indices.len()`; each of the first `nnz` column indices is in `0..cols`; `rows`,
    /// `cols` and `nnz` fit `I`. Only the first `nnz` column indices are copied.
    ///
    /// # Errors
    ///
    /// Before anything is allocated: [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue)
    /// naming the offset or index that breaks the structure,
    /// [`ErrorKind::BufferTooShort`](crate::ErrorKind::BufferTooShort) (fewer column indices
    /// than `nnz`), [`ErrorKind::SizeOverflow`](crate::ErrorKind::SizeOverflow) (beyond `I`).
    /// Then driver errors of the allocation and copy.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// // [[1, 0, 2], [0, 0, 3]]: row 0 holds columns 0 and 2, row 1 column 2.
    /// let pattern = guard.csr_pattern(2, 3, &[0i32, 2, 3], &[0, 2, 2])?;
    /// assert_eq!(pattern.nnz(), 3);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#compressed-sparse-row-csr>
    #[doc(alias = "cusparseCreateCsr")]
    pub fn csr_pattern<I: SparseIndex>(
        &self,
        rows: usize,
        cols: usize,
        row_offsets: &[I],
        col_indices: &[I],
    ) -> Result<CsrPattern<'_, I>> {
        let nnz = check::csr("cusparseCreateCsr", rows, cols, row_offsets, col_indices)?;
        // `check::csr` found `nnz ≤ col_indices.len()`; `get` keeps that from being a panic.
        let structure = col_indices.get(..nnz).unwrap_or(col_indices);
        Ok(CsrPattern {
            rows,
            cols,
            nnz,
            row_offsets: self.alloc_from(row_offsets)?,
            col_indices: self.alloc_from(structure)?,
        })
    }

    /// Checks a COO structure on the host and copies it to this guard's context: as many row
    /// indices as column indices (`nnz`, at least 1), each row index in `0..rows` and none
    /// smaller than the one before, each column index in `0..cols`; `rows`, `cols` and `nnz`
    /// fit `I`.
    ///
    /// # Errors
    ///
    /// As [`csr_pattern`](Self::csr_pattern).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let pattern = guard.coo_pattern(2, 3, &[0i32, 0, 1], &[0, 2, 2])?;
    /// assert_eq!(pattern.nnz(), 3);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#coordinate-coo>
    #[doc(alias = "cusparseCreateCoo")]
    pub fn coo_pattern<I: SparseIndex>(
        &self,
        rows: usize,
        cols: usize,
        row_indices: &[I],
        col_indices: &[I],
    ) -> Result<CooPattern<'_, I>> {
        check::coo("cusparseCreateCoo", rows, cols, row_indices, col_indices)?;
        Ok(CooPattern {
            rows,
            cols,
            row_indices: self.alloc_from(row_indices)?,
            col_indices: self.alloc_from(col_indices)?,
        })
    }
}

impl<'g, I: SparseIndex> CsrPattern<'g, I> {
    /// Takes a CSR structure that lives on the device, copies it back (`cuMemcpyDtoH`, which
    /// waits) and checks it as [`PushedGuard::csr_pattern`] does; the buffers are then owned
    /// by the pattern, so nothing can change them after the check.
    ///
    /// # Errors
    ///
    /// As [`PushedGuard::csr_pattern`]; driver errors of the copies.
    pub fn from_device(
        rows: usize,
        cols: usize,
        row_offsets: DeviceBuffer<'g, I>,
        col_indices: DeviceBuffer<'g, I>,
    ) -> Result<Self> {
        let nnz = check::csr(
            "cusparseCreateCsr",
            rows,
            cols,
            &row_offsets.to_vec()?,
            &col_indices.to_vec()?,
        )?;
        Ok(Self {
            rows,
            cols,
            nnz,
            row_offsets,
            col_indices,
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
    /// Stored elements: a matrix over the pattern needs this many values.
    pub fn nnz(&self) -> usize {
        self.nnz
    }
    pub(crate) fn row_offsets(&self) -> &DeviceBuffer<'g, I> {
        &self.row_offsets
    }
    pub(crate) fn col_indices(&self) -> &DeviceBuffer<'g, I> {
        &self.col_indices
    }
}

impl<'g, I: SparseIndex> CooPattern<'g, I> {
    /// Takes a COO structure that lives on the device, copies it back (`cuMemcpyDtoH`, which
    /// waits) and checks it as [`PushedGuard::coo_pattern`] does; the buffers are then owned
    /// by the pattern.
    ///
    /// # Errors
    ///
    /// As [`PushedGuard::coo_pattern`]; driver errors of the copies.
    pub fn from_device(
        rows: usize,
        cols: usize,
        row_indices: DeviceBuffer<'g, I>,
        col_indices: DeviceBuffer<'g, I>,
    ) -> Result<Self> {
        check::coo(
            "cusparseCreateCoo",
            rows,
            cols,
            &row_indices.to_vec()?,
            &col_indices.to_vec()?,
        )?;
        Ok(Self {
            rows,
            cols,
            row_indices,
            col_indices,
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
        self.row_indices.len()
    }
    pub(crate) fn row_indices(&self) -> &DeviceBuffer<'g, I> {
        &self.row_indices
    }
    pub(crate) fn col_indices(&self) -> &DeviceBuffer<'g, I> {
        &self.col_indices
    }
}
