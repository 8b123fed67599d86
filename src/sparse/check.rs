//! The checks `custack::sparse` makes before cuSPARSE sees anything: a sparse structure taken
//! from the host (CSR row offsets and column indices, COO row and column indices), every
//! dimension and count against the index type, and each call's operands against the lengths
//! of the bound buffers, in checked `usize` arithmetic.
//!
//! Pure functions of numbers and host slices, so they are tested without a GPU. Each error's
//! detail names the cuSPARSE call and the argument (`cusparseCreateCsr: row_offsets[2] = 1 <
//! row_offsets[1] = 3, the offsets must not decrease; nothing was enqueued`).

use crate::error::{Error, ErrorKind, Result};
use crate::sparse::types::{Dense, Operation, Order, SparseIndex};

#[cold]
#[inline(never)]
pub(crate) fn refused(call: &str, kind: ErrorKind, what: &str) -> Error {
    Error::custack(kind, format!("{call}: {what}; nothing was enqueued"))
}

/// `value` fits the index type `I` (and so cuSPARSE's `int64_t`): [`ErrorKind::SizeOverflow`]
/// naming it otherwise.
pub(crate) fn fits<I: SparseIndex>(call: &str, name: &str, value: usize) -> Result<i64> {
    if value > I::MAX {
        return Err(refused(
            call,
            ErrorKind::SizeOverflow,
            &format!(
                "{name} {value} exceeds the index type's largest value {}",
                I::MAX
            ),
        ));
    }
    i64::try_from(value).map_err(|_| {
        refused(
            call,
            ErrorKind::SizeOverflow,
            &format!("{name} {value} exceeds int64_t"),
        )
    })
}

/// A buffer of `len` elements holds the `need` the call reads or writes.
pub(crate) fn holds(call: &str, name: &str, len: usize, need: usize) -> Result<()> {
    if len < need {
        return Err(refused(
            call,
            ErrorKind::BufferTooShort,
            &format!("{name} holds {len} elements, the call needs {need}"),
        ));
    }
    Ok(())
}

/// The dimensions of a sparse matrix: each fits `I`, and at least one element is stored (CUDA
/// has no empty allocations to hold an empty structure in).
pub(crate) fn dims<I: SparseIndex>(
    call: &str,
    rows: usize,
    cols: usize,
    nnz: usize,
) -> Result<[i64; 3]> {
    let d = [
        fits::<I>(call, "rows", rows)?,
        fits::<I>(call, "cols", cols)?,
        fits::<I>(call, "nnz", nnz)?,
    ];
    if nnz == 0 {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            "nnz is 0: a sparse matrix stores at least one element",
        ));
    }
    Ok(d)
}

/// An index of the structure, in `0..bound`: [`ErrorKind::InvalidValue`] naming its array and
/// position otherwise.
fn in_range<I: SparseIndex>(
    call: &str,
    name: &str,
    at: usize,
    value: I,
    bound: usize,
    bound_name: &str,
) -> Result<usize> {
    match usize::try_from(value.to_i64()) {
        Ok(v) if v < bound => Ok(v),
        _ => Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!("{name}[{at}] = {value:?} is outside 0..{bound_name} {bound}"),
        )),
    }
}

/// A CSR structure on the host: `row_offsets` holds `rows + 1` offsets, the first 0, none
/// smaller than the one before, the last (`nnz`) at most the length of `col_indices`, and each
/// of the first `nnz` column indices in `0..cols`. Returns `nnz`.
pub(crate) fn csr<I: SparseIndex>(
    call: &str,
    rows: usize,
    cols: usize,
    row_offsets: &[I],
    col_indices: &[I],
) -> Result<usize> {
    fits::<I>(call, "rows", rows)?;
    fits::<I>(call, "cols", cols)?;
    let (Some(&first), Some(&last), true) = (
        row_offsets.first(),
        row_offsets.last(),
        row_offsets.len() == rows + 1,
    ) else {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!(
                "row_offsets holds {} elements, a CSR matrix of {rows} rows has rows + 1 = {}",
                row_offsets.len(),
                rows + 1
            ),
        ));
    };
    if first.to_i64() != 0 {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!("row_offsets[0] = {first:?}, not 0"),
        ));
    }
    for (i, (before, after)) in row_offsets
        .iter()
        .zip(row_offsets.iter().skip(1))
        .enumerate()
    {
        if after.to_i64() < before.to_i64() {
            return Err(refused(
                call,
                ErrorKind::InvalidValue,
                &format!(
                    "row_offsets[{}] = {after:?} < row_offsets[{i}] = {before:?}, the offsets must not decrease",
                    i + 1,
                ),
            ));
        }
    }
    // Non-negative: the first is 0 and none decreases.
    let nnz = usize::try_from(last.to_i64()).map_err(|_| {
        refused(
            call,
            ErrorKind::SizeOverflow,
            "row_offsets[rows] exceeds usize",
        )
    })?;
    let Some(structure) = col_indices.get(..nnz) else {
        return Err(refused(
            call,
            ErrorKind::BufferTooShort,
            &format!(
                "col_indices holds {} elements, row_offsets[rows] = nnz is {nnz}",
                col_indices.len()
            ),
        ));
    };
    dims::<I>(call, rows, cols, nnz)?;
    for (j, &c) in structure.iter().enumerate() {
        in_range(call, "col_indices", j, c, cols, "cols")?;
    }
    Ok(nnz)
}

/// A COO structure on the host: as many row indices as column indices (`nnz`), each row index
/// in `0..rows` and none smaller than the one before (cuSPARSE's COO format is sorted by row),
/// each column index in `0..cols`. Returns `nnz`.
pub(crate) fn coo<I: SparseIndex>(
    call: &str,
    rows: usize,
    cols: usize,
    row_indices: &[I],
    col_indices: &[I],
) -> Result<usize> {
    if row_indices.len() != col_indices.len() {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!(
                "row_indices holds {} elements, col_indices {}: one of each per stored element",
                row_indices.len(),
                col_indices.len()
            ),
        ));
    }
    let nnz = row_indices.len();
    dims::<I>(call, rows, cols, nnz)?;
    let mut previous = 0;
    for (j, (&r, &c)) in row_indices.iter().zip(col_indices).enumerate() {
        let r = in_range(call, "row_indices", j, r, rows, "rows")?;
        if r < previous {
            return Err(refused(
                call,
                ErrorKind::InvalidValue,
                &format!(
                    "row_indices[{j}] = {r} < row_indices[{}] = {previous}: COO elements are sorted by row",
                    j - 1
                ),
            ));
        }
        previous = r;
        in_range(call, "col_indices", j, c, cols, "cols")?;
    }
    Ok(nnz)
}

/// An `SpMV`'s vectors against `op(A)`, `m × k` for `A` stored `rows × cols`: `x` holds `k`
/// elements, `y` holds `m`. Returns `(k, m)`, the sizes given to cuSPARSE.
pub(crate) fn spmv(
    call: &str,
    op: Operation,
    (rows, cols): (usize, usize),
    x_len: usize,
    y_len: usize,
) -> Result<(i64, i64)> {
    let (m, k) = op.apply(rows, cols);
    holds(call, "x", x_len, k)?;
    holds(call, "y", y_len, m)?;
    // `rows` and `cols` were checked against the index type when the matrix was made.
    Ok((fits::<i64>(call, "k", k)?, fits::<i64>(call, "m", m)?))
}

/// A dense matrix operand: its leading dimension at least `max(1, rows)` column-major or
/// `max(1, cols)` row-major ([`ErrorKind::InvalidValue`]), everything `int64_t`, and the bound
/// buffer holding what the layout spans (`ld·(cols-1) + rows` column-major).
pub(crate) fn dense(call: &str, name: &str, d: Dense, len: usize) -> Result<[i64; 3]> {
    let (lines, along, min_name) = match d.order {
        Order::ColMajor => (d.cols, d.rows, "rows"),
        Order::RowMajor => (d.rows, d.cols, "cols"),
    };
    if d.ld < along.max(1) {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!("{name}'s ld {} < max(1, {min_name} {along})", d.ld),
        ));
    }
    let extent = if lines == 0 || along == 0 {
        0
    } else {
        d.ld.checked_mul(lines - 1)
            .and_then(|x| x.checked_add(along))
            .ok_or_else(|| {
                refused(
                    call,
                    ErrorKind::SizeOverflow,
                    &format!(
                        "the extent of {name} ({} × ({lines} - 1) + {along}) overflows",
                        d.ld
                    ),
                )
            })?
    };
    holds(call, name, len, extent)?;
    Ok([
        fits::<i64>(call, &format!("{name}'s rows"), d.rows)?,
        fits::<i64>(call, &format!("{name}'s cols"), d.cols)?,
        fits::<i64>(call, &format!("{name}'s ld"), d.ld)?,
    ])
}

#[allow(
    clippy::many_single_char_names,
    reason = "the product's own names: b, c, m, n, k"
)]
/// An `SpMM`'s shapes: `op(A)` is `m × k`, `op(B)` must be `k × n` and `C` `m × n`
/// ([`ErrorKind::InvalidValue`] naming the mismatch), then each dense operand against its
/// buffer ([`dense`]).
pub(crate) fn spmm(
    call: &str,
    (op_a, op_b): (Operation, Operation),
    (rows, cols): (usize, usize),
    (b, b_len): (Dense, usize),
    (c, c_len): (Dense, usize),
) -> Result<([i64; 3], [i64; 3])> {
    let (m, k) = op_a.apply(rows, cols);
    let (b_rows, n) = op_b.apply(b.rows, b.cols);
    if b_rows != k {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!("op(B) has {b_rows} rows, op(A) has k = {k} columns"),
        ));
    }
    if (c.rows, c.cols) != (m, n) {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!(
                "C is {} × {}, op(A)·op(B) is m × n = {m} × {n}",
                c.rows, c.cols
            ),
        ));
    }
    Ok((dense(call, "b", b, b_len)?, dense(call, "c", c, c_len)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALL: &str = "cusparseCreateCsr";

    #[track_caller]
    fn refused_with(r: Result<impl core::fmt::Debug>, kind: ErrorKind, words: &str) {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), kind, "{e}");
        let detail = e.detail().unwrap();
        assert!(detail.contains(words), "{detail}");
        assert!(detail.ends_with("; nothing was enqueued"), "{detail}");
    }

    // A 3 × 4 matrix: row 0 holds (0,1) and (0,3), row 1 nothing, row 2 (2,0).
    const OFFSETS: [i32; 4] = [0, 2, 2, 3];
    const COLS: [i32; 3] = [1, 3, 0];

    #[test]
    fn a_valid_csr_structure_passes_and_gives_nnz() {
        assert_eq!(csr(CALL, 3, 4, &OFFSETS, &COLS).unwrap(), 3);
        // Longer column indices are allowed: only the first nnz are the structure's.
        assert_eq!(csr(CALL, 3, 4, &OFFSETS, &[1, 3, 0, 99]).unwrap(), 3);
        assert_eq!(
            csr::<i64>(CALL, 3, 4, &[0, 2, 2, 3], &[1, 3, 0]).unwrap(),
            3
        );
    }

    #[test]
    fn csr_row_offsets_of_the_wrong_length_are_refused() {
        refused_with(
            csr(CALL, 3, 4, &OFFSETS[..3], &COLS),
            ErrorKind::InvalidValue,
            "row_offsets holds 3 elements, a CSR matrix of 3 rows has rows + 1 = 4",
        );
        refused_with(
            csr(CALL, 2, 4, &OFFSETS, &COLS),
            ErrorKind::InvalidValue,
            "row_offsets holds 4 elements",
        );
    }

    #[test]
    fn csr_row_offsets_not_starting_at_zero_are_refused() {
        refused_with(
            csr(CALL, 3, 4, &[1, 2, 2, 3], &COLS),
            ErrorKind::InvalidValue,
            "row_offsets[0] = 1, not 0",
        );
    }

    #[test]
    fn decreasing_csr_row_offsets_are_refused() {
        // Decreasing in the middle: a row of length -1 would make cuSPARSE read before the
        // row's start (or loop out of bounds).
        refused_with(
            csr(CALL, 3, 4, &[0, 3, 1, 3], &COLS),
            ErrorKind::InvalidValue,
            "row_offsets[2] = 1 < row_offsets[1] = 3",
        );
        // Negative.
        refused_with(
            csr(CALL, 3, 4, &[0, -1, 2, 3], &COLS),
            ErrorKind::InvalidValue,
            "row_offsets[1] = -1 < row_offsets[0] = 0",
        );
    }

    #[test]
    fn a_csr_nnz_beyond_the_column_indices_is_refused() {
        refused_with(
            csr(CALL, 3, 4, &[0, 2, 2, 4], &COLS),
            ErrorKind::BufferTooShort,
            "col_indices holds 3 elements, row_offsets[rows] = nnz is 4",
        );
    }

    #[test]
    fn csr_column_indices_out_of_range_are_refused() {
        refused_with(
            csr(CALL, 3, 4, &OFFSETS, &[1, 4, 0]),
            ErrorKind::InvalidValue,
            "col_indices[1] = 4 is outside 0..cols 4",
        );
        refused_with(
            csr(CALL, 3, 4, &OFFSETS, &[1, 3, -1]),
            ErrorKind::InvalidValue,
            "col_indices[2] = -1 is outside 0..cols 4",
        );
        // Only the first nnz are checked (the rest are not the structure's), but those are.
        assert!(csr(CALL, 3, 4, &OFFSETS, &[1, 3, 0, -7]).is_ok());
    }

    #[test]
    fn an_empty_structure_is_refused() {
        refused_with(
            csr::<i32>(CALL, 2, 2, &[0, 0, 0], &[]),
            ErrorKind::InvalidValue,
            "nnz is 0",
        );
        refused_with(
            coo::<i32>(CALL, 2, 2, &[], &[]),
            ErrorKind::InvalidValue,
            "nnz is 0",
        );
    }

    #[test]
    fn dimensions_beyond_the_index_type_are_refused() {
        let big = i32::MAX as usize + 1;
        refused_with(
            dims::<i32>(CALL, big, 1, 1),
            ErrorKind::SizeOverflow,
            "rows 2147483648 exceeds the index type's largest value 2147483647",
        );
        refused_with(
            dims::<i32>(CALL, 1, big, 1),
            ErrorKind::SizeOverflow,
            "cols 2147483648",
        );
        refused_with(
            dims::<i32>(CALL, 1, 1, big),
            ErrorKind::SizeOverflow,
            "nnz 2147483648",
        );
        assert_eq!(dims::<i64>(CALL, big, big, big).unwrap(), [big as i64; 3]);
        // The CSR check refuses rows beyond the type before it reads the offsets.
        refused_with(
            csr::<i32>(CALL, big, 1, &[0], &[0]),
            ErrorKind::SizeOverflow,
            "rows 2147483648",
        );
    }

    #[test]
    fn a_valid_coo_structure_passes_and_gives_nnz() {
        assert_eq!(coo(CALL, 3, 4, &[0, 0, 2], &COLS).unwrap(), 3);
    }

    #[test]
    fn coo_arrays_of_different_lengths_are_refused() {
        refused_with(
            coo(CALL, 3, 4, &[0, 0], &COLS),
            ErrorKind::InvalidValue,
            "row_indices holds 2 elements, col_indices 3",
        );
    }

    #[test]
    fn coo_indices_out_of_range_are_refused() {
        refused_with(
            coo(CALL, 3, 4, &[0, 0, 3], &COLS),
            ErrorKind::InvalidValue,
            "row_indices[2] = 3 is outside 0..rows 3",
        );
        refused_with(
            coo(CALL, 3, 4, &[-1, 0, 2], &COLS),
            ErrorKind::InvalidValue,
            "row_indices[0] = -1",
        );
        refused_with(
            coo(CALL, 3, 4, &[0, 0, 2], &[1, 4, 0]),
            ErrorKind::InvalidValue,
            "col_indices[1] = 4 is outside 0..cols 4",
        );
    }

    #[test]
    fn coo_rows_out_of_order_are_refused() {
        refused_with(
            coo(CALL, 3, 4, &[0, 2, 0], &COLS),
            ErrorKind::InvalidValue,
            "row_indices[2] = 0 < row_indices[1] = 2",
        );
    }

    #[test]
    fn spmv_vectors_must_hold_op_a() {
        let call = "cusparseSpMV";
        // A is 3 × 4: x holds 4, y 3; transposed, x holds 3, y 4.
        assert_eq!(
            spmv(call, Operation::NonTranspose, (3, 4), 4, 3).unwrap(),
            (4, 3)
        );
        assert_eq!(
            spmv(call, Operation::Transpose, (3, 4), 3, 4).unwrap(),
            (3, 4)
        );
        refused_with(
            spmv(call, Operation::NonTranspose, (3, 4), 3, 3),
            ErrorKind::BufferTooShort,
            "x holds 3 elements, the call needs 4",
        );
        refused_with(
            spmv(call, Operation::NonTranspose, (3, 4), 4, 2),
            ErrorKind::BufferTooShort,
            "y holds 2 elements, the call needs 3",
        );
        refused_with(
            spmv(call, Operation::Transpose, (3, 4), 3, 3),
            ErrorKind::BufferTooShort,
            "y holds 3 elements, the call needs 4",
        );
    }

    #[test]
    fn dense_leading_dimensions_and_extents_are_checked() {
        let call = "cusparseSpMM";
        // Column-major 3 × 2 with ld 5 spans 5 + 3 = 8.
        let d = Dense::col_major(3, 2).ld(5);
        assert_eq!(dense(call, "b", d, 8).unwrap(), [3, 2, 5]);
        refused_with(
            dense(call, "b", d, 7),
            ErrorKind::BufferTooShort,
            "b holds 7 elements, the call needs 8",
        );
        refused_with(
            dense(call, "b", Dense::col_major(3, 2).ld(2), 100),
            ErrorKind::InvalidValue,
            "b's ld 2 < max(1, rows 3)",
        );
        // Row-major 3 × 2 with ld 4 spans 4·2 + 2 = 10; its ld is at least cols.
        let r = Dense::row_major(3, 2).ld(4);
        assert!(dense(call, "c", r, 10).is_ok());
        refused_with(
            dense(call, "c", r, 9),
            ErrorKind::BufferTooShort,
            "c holds 9 elements",
        );
        refused_with(
            dense(call, "c", Dense::row_major(3, 2).ld(1), 100),
            ErrorKind::InvalidValue,
            "c's ld 1 < max(1, cols 2)",
        );
        refused_with(
            dense(call, "c", Dense::col_major(2, 0).ld(0), 100),
            ErrorKind::InvalidValue,
            "c's ld 0 < max(1, rows 2)",
        );
        refused_with(
            dense(
                call,
                "b",
                Dense::col_major(2, usize::MAX).ld(usize::MAX / 2),
                usize::MAX,
            ),
            ErrorKind::SizeOverflow,
            "the extent of b",
        );
    }

    #[test]
    fn spmm_shapes_must_agree() {
        let call = "cusparseSpMM";
        let n = (Operation::NonTranspose, Operation::NonTranspose);
        // A 3 × 4, B 4 × 2, C 3 × 2.
        assert!(
            spmm(
                call,
                n,
                (3, 4),
                (Dense::col_major(4, 2), 8),
                (Dense::col_major(3, 2), 6)
            )
            .is_ok()
        );
        refused_with(
            spmm(
                call,
                n,
                (3, 4),
                (Dense::col_major(3, 2), 8),
                (Dense::col_major(3, 2), 6),
            ),
            ErrorKind::InvalidValue,
            "op(B) has 3 rows, op(A) has k = 4 columns",
        );
        refused_with(
            spmm(
                call,
                n,
                (3, 4),
                (Dense::col_major(4, 2), 8),
                (Dense::col_major(3, 3), 9),
            ),
            ErrorKind::InvalidValue,
            "C is 3 × 3, op(A)·op(B) is m × n = 3 × 2",
        );
        // op(B) transposed: B stored 2 × 4.
        let t = (Operation::NonTranspose, Operation::Transpose);
        assert!(
            spmm(
                call,
                t,
                (3, 4),
                (Dense::col_major(2, 4), 8),
                (Dense::col_major(3, 2), 6)
            )
            .is_ok()
        );
        // op(A) transposed: 4 × 3, so B is 3 × n and C 4 × n.
        let ta = (Operation::Transpose, Operation::NonTranspose);
        assert!(
            spmm(
                call,
                ta,
                (3, 4),
                (Dense::col_major(3, 2), 6),
                (Dense::col_major(4, 2), 8)
            )
            .is_ok()
        );
        // The buffers are checked after the shapes.
        refused_with(
            spmm(
                call,
                n,
                (3, 4),
                (Dense::col_major(4, 2), 8),
                (Dense::col_major(3, 2), 5),
            ),
            ErrorKind::BufferTooShort,
            "c holds 5 elements, the call needs 6",
        );
        refused_with(
            spmm(
                call,
                n,
                (3, 4),
                (Dense::col_major(4, 2), 7),
                (Dense::col_major(3, 2), 6),
            ),
            ErrorKind::BufferTooShort,
            "b holds 7 elements, the call needs 8",
        );
    }
}
