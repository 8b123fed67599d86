//! The checks every [`Blas`] call makes before it enqueues anything: dimensions, increments,
//! leading dimensions, strides and batch counts against the bound buffers' lengths, in checked
//! `usize` arithmetic, and that each value fits the C type cuBLAS takes.
//!
//! Pure functions of numbers, so they are tested without a GPU. Each error's detail names the
//! cuBLAS call and the argument (`cublasSgemm_v2: lda 3 < m 4; nothing was enqueued`).
//!
//! [`Blas`]: crate::blas::handle::Blas

use crate::blas::shape::{Batch, Gemm, Gemv, Transpose};
use crate::error::{Error, ErrorKind, Result};
use core::ffi::{c_int, c_longlong};

/// The arguments of a GEMM, checked and converted to cuBLAS's types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GemmArgs {
    pub(crate) m: c_int,
    pub(crate) n: c_int,
    pub(crate) k: c_int,
    pub(crate) lda: c_int,
    pub(crate) ldb: c_int,
    pub(crate) ldc: c_int,
}

/// The strides and count of a strided batch, checked and converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BatchArgs {
    pub(crate) stride_a: c_longlong,
    pub(crate) stride_b: c_longlong,
    pub(crate) stride_c: c_longlong,
    pub(crate) count: c_int,
}

/// The arguments of a GEMV, checked and converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GemvArgs {
    pub(crate) m: c_int,
    pub(crate) n: c_int,
    pub(crate) lda: c_int,
    pub(crate) incx: c_int,
    pub(crate) incy: c_int,
}

#[cold]
#[inline(never)]
fn refused(call: &str, kind: ErrorKind, what: &str) -> Error {
    Error::custack(kind, format!("{call}: {what}; nothing was enqueued"))
}

/// `value` as a C `int`, or [`ErrorKind::SizeOverflow`] naming it.
pub(crate) fn int(call: &str, name: &str, value: usize) -> Result<c_int> {
    c_int::try_from(value).map_err(|_| {
        refused(
            call,
            ErrorKind::SizeOverflow,
            &format!("{name} {value} exceeds a C int ({})", c_int::MAX),
        )
    })
}

/// A non-zero increment as a C `int`: zero is [`ErrorKind::InvalidValue`] (custack refuses it
/// everywhere: an output written with increment 0 would be a write race, and for inputs it is
/// never what is meant), one out of range [`ErrorKind::SizeOverflow`].
pub(crate) fn inc(call: &str, name: &str, value: isize) -> Result<c_int> {
    if value == 0 {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!("{name} is 0"),
        ));
    }
    c_int::try_from(value).map_err(|_| {
        refused(
            call,
            ErrorKind::SizeOverflow,
            &format!("{name} {value} exceeds a C int"),
        )
    })
}

/// The elements a vector of `n` elements `inc` apart spans: `1 + (n-1)·|inc|`, 0 for `n = 0`.
pub(crate) fn vector_extent(call: &str, name: &str, n: usize, inc: isize) -> Result<usize> {
    if n == 0 {
        return Ok(0);
    }
    (n - 1)
        .checked_mul(inc.unsigned_abs())
        .and_then(|x| x.checked_add(1))
        .ok_or_else(|| {
            refused(
                call,
                ErrorKind::SizeOverflow,
                &format!("the extent of {name} (1 + ({n} - 1) × |{inc}|) overflows"),
            )
        })
}

/// The elements a column-major `rows × cols` matrix with leading dimension `ld` spans:
/// `ld·(cols-1) + rows`, 0 when it has no element. `ld ≥ rows` is checked by [`ld`].
pub(crate) fn matrix_extent(
    call: &str,
    name: &str,
    rows: usize,
    cols: usize,
    ld: usize,
) -> Result<usize> {
    if rows == 0 || cols == 0 {
        return Ok(0);
    }
    ld.checked_mul(cols - 1)
        .and_then(|x| x.checked_add(rows))
        .ok_or_else(|| {
            refused(
                call,
                ErrorKind::SizeOverflow,
                &format!("the extent of {name} ({ld} × ({cols} - 1) + {rows}) overflows"),
            )
        })
}

/// A leading dimension: at least `max(1, rows)` ([`ErrorKind::InvalidValue`] naming both
/// otherwise), and a C `int`.
pub(crate) fn ld(
    call: &str,
    ld_name: &str,
    ld: usize,
    rows_name: &str,
    rows: usize,
) -> Result<c_int> {
    if ld < rows.max(1) {
        let what = if rows == 0 {
            format!("{ld_name} {ld} < 1")
        } else {
            format!("{ld_name} {ld} < {rows_name} {rows}")
        };
        return Err(refused(call, ErrorKind::InvalidValue, &what));
    }
    int(call, ld_name, ld)
}

/// A buffer of `len` elements holds the `need` the call reads or writes
/// ([`ErrorKind::BufferTooShort`] naming it otherwise).
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

/// The stored shape (rows, columns) of an operand that the call reads as `r × c`, and the
/// names of its rows' dimension, for messages.
fn stored(
    t: Transpose,
    (r, r_name): (usize, &'static str),
    (c, c_name): (usize, &'static str),
) -> ((usize, &'static str), usize) {
    match t {
        Transpose::No => ((r, r_name), c),
        Transpose::Yes => ((c, c_name), r),
    }
}

/// The extents of A, B and C of a GEMM, after checking its dimensions and leading dimensions.
pub(crate) fn gemm_extents<S>(call: &str, g: &Gemm<S>) -> Result<(GemmArgs, [usize; 3])> {
    let m = int(call, "m", g.m)?;
    let n = int(call, "n", g.n)?;
    let k = int(call, "k", g.k)?;
    // op(A) is m × k, op(B) is k × n, C is m × n.
    let ((a_rows, a_rows_name), a_cols) = stored(g.transa, (g.m, "m"), (g.k, "k"));
    let ((b_rows, b_rows_name), b_cols) = stored(g.transb, (g.k, "k"), (g.n, "n"));
    let lda = ld(call, "lda", g.lda, a_rows_name, a_rows)?;
    let ldb = ld(call, "ldb", g.ldb, b_rows_name, b_rows)?;
    let ldc = ld(call, "ldc", g.ldc, "m", g.m)?;
    let extents = [
        matrix_extent(call, "a", a_rows, a_cols, g.lda)?,
        matrix_extent(call, "b", b_rows, b_cols, g.ldb)?,
        matrix_extent(call, "c", g.m, g.n, g.ldc)?,
    ];
    Ok((
        GemmArgs {
            m,
            n,
            k,
            lda,
            ldb,
            ldc,
        },
        extents,
    ))
}

/// A GEMM against the lengths of A, B and C.
pub(crate) fn gemm<S>(call: &str, g: &Gemm<S>, lens: [usize; 3]) -> Result<GemmArgs> {
    let (args, extents) = gemm_extents(call, g)?;
    for ((name, len), need) in ["a", "b", "c"].into_iter().zip(lens).zip(extents) {
        holds(call, name, len, need)?;
    }
    Ok(args)
}

/// A strided batch of GEMMs against the lengths of A, B and C: operand `x` of batch `i` starts
/// `i · stride_x` elements in, so the buffer must hold `stride · (count-1) + extent`. No element
/// of C may be written by two batches (cuBLAS writes them concurrently): checked exactly, by
/// [`first_shared_output`]. A and B may overlap (a stride of 0 reuses one matrix for every
/// batch).
pub(crate) fn gemm_strided_batched<S>(
    call: &str,
    g: &Gemm<S>,
    batch: &Batch,
    lens: [usize; 3],
) -> Result<(GemmArgs, BatchArgs)> {
    let (args, extents) = gemm_extents(call, g)?;
    let count = int(call, "batch count", batch.count)?;
    let strides = [batch.stride_a, batch.stride_b, batch.stride_c];
    let names = [("a", "stride_a"), ("b", "stride_b"), ("c", "stride_c")];
    if let Some((later, element)) =
        first_shared_output(g.m, g.n, g.ldc, batch.stride_c, batch.count)
    {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!(
                "stride_c {} makes batches 0 and {later} both write element {element} of c \
                 (C is {} × {} with ldc {}); give the batches disjoint outputs, or make one \
                 call per batch",
                batch.stride_c, g.m, g.n, g.ldc
            ),
        ));
    }
    let mut converted = [0 as c_longlong; 3];
    for ((((name, stride_name), stride), extent), (len, out)) in names
        .into_iter()
        .zip(strides)
        .zip(extents)
        .zip(lens.into_iter().zip(converted.iter_mut()))
    {
        *out = c_longlong::try_from(stride).map_err(|_| {
            refused(
                call,
                ErrorKind::SizeOverflow,
                &format!("{stride_name} {stride} exceeds a C long long"),
            )
        })?;
        let need = if batch.count == 0 || extent == 0 {
            0
        } else {
            stride
                .checked_mul(batch.count - 1)
                .and_then(|x| x.checked_add(extent))
                .ok_or_else(|| {
                    refused(
                        call,
                        ErrorKind::SizeOverflow,
                        &format!(
                            "the extent of {name} ({stride_name} {stride} × (count {} - 1) + \
                             {extent}) overflows",
                            batch.count
                        ),
                    )
                })?
        };
        holds(call, name, len, need)?;
    }
    let [stride_a, stride_b, stride_c] = converted;
    Ok((
        args,
        BatchArgs {
            stride_a,
            stride_b,
            stride_c,
            count,
        },
    ))
}

/// Whether two batches of a strided batch write one element of C: `Some((t, e))` when batch
/// `t` (the first such, `1 ≤ t < count`) writes element `e` that batch 0 writes too. Batch `i`
/// writes `i·stride + r + j·ldc` for `r < m`, `j < n`; a shift is translation-invariant, so
/// comparing every batch with batch 0 covers every pair. Exact: interleaved outputs whose
/// elements are disjoint (`m = 2`, `ldc = 4`, `stride = 2`, two batches) are accepted.
///
/// Batch `t` meets batch 0 when `t·stride = b·ldc + a` for some `0 ≤ b < n`, `|a| < m`. Only
/// shifts below C's extent can (the largest difference of two of its elements is
/// `extent - 1`), so it tries the fewer of those shifts and of the columns `b`. `ldc ≥ m` is
/// checked before.
pub(crate) fn first_shared_output(
    m: usize,
    n: usize,
    ldc: usize,
    stride: usize,
    count: usize,
) -> Option<(usize, usize)> {
    if count < 2 || m == 0 || n == 0 {
        return None;
    }
    // In u128, where none of these products of C ints and sizes can overflow.
    let (m, n, ldc, stride, count) = (
        m as u128,
        n as u128,
        ldc as u128,
        stride as u128,
        count as u128,
    );
    let extent = ldc * (n - 1) + m;
    if stride == 0 {
        return Some((1, 0));
    }
    if stride >= extent {
        return None;
    }
    // Batch t (its first element at d = t·stride) meets column b of batch 0, which holds
    // b·ldc .. b·ldc + m, when |d - b·ldc| < m; the shared element is the later of the two
    // columns' first elements.
    let shared = |d: u128, b: u128| -> Option<u128> {
        (b < n && d.abs_diff(b * ldc) < m).then_some(d.max(b * ldc))
    };
    let last_shift = (count - 1).min((extent - 1) / stride);
    let found = if last_shift <= n {
        // Each shift, against the two columns of batch 0 around it.
        (1..=last_shift).find_map(|t| {
            let (d, b) = (t * stride, t * stride / ldc);
            shared(d, b).or_else(|| shared(d, b + 1)).map(|e| (t, e))
        })
    } else {
        // Each column of batch 0, against the first shift that reaches it.
        (0..n)
            .filter_map(|b| {
                let lo = (b * ldc).saturating_sub(m - 1).max(stride);
                let hi = (b * ldc + m - 1).min((count - 1) * stride);
                let t = lo.div_ceil(stride);
                (t * stride <= hi).then(|| (t, (t * stride).max(b * ldc)))
            })
            .min()
    };
    found.map(|(t, e)| (t as usize, e as usize))
}

/// A GEMV against the lengths of A, x and y: A is stored `m × n` whatever `trans`; op(A)·x
/// reads `n` elements of x and writes `m` of y (`trans`: `m` and `n`).
pub(crate) fn gemv<S>(call: &str, g: &Gemv<S>, lens: [usize; 3]) -> Result<GemvArgs> {
    let m = int(call, "m", g.m)?;
    let n = int(call, "n", g.n)?;
    let lda = ld(call, "lda", g.lda, "m", g.m)?;
    let incx = inc(call, "incx", g.incx)?;
    let incy = inc(call, "incy", g.incy)?;
    let (x_len, y_len) = match g.trans {
        Transpose::No => (g.n, g.m),
        Transpose::Yes => (g.m, g.n),
    };
    // Each vector's full extent, also when A has no element: cuBLAS then returns at once by
    // observation, but its documentation does not promise it (`y = beta·y` would write y), so,
    // as for `dot`, `axpy` and a GEMM with k = 0, nothing is left to that.
    let extents = [
        matrix_extent(call, "a", g.m, g.n, g.lda)?,
        vector_extent(call, "x", x_len, g.incx)?,
        vector_extent(call, "y", y_len, g.incy)?,
    ];
    for ((name, len), need) in ["a", "x", "y"].into_iter().zip(lens).zip(extents) {
        holds(call, name, len, need)?;
    }
    Ok(GemvArgs {
        m,
        n,
        lda,
        incx,
        incy,
    })
}

/// A level-1 vector operand of `n` elements `inc` apart against its buffer's length.
pub(crate) fn vector(call: &str, name: &str, n: usize, inc: isize, len: usize) -> Result<c_int> {
    let inc_name = if name == "x" { "incx" } else { "incy" };
    let c_inc = self::inc(call, inc_name, inc)?;
    holds(call, name, len, vector_extent(call, name, n, inc)?)?;
    Ok(c_inc)
}

/// The one-element result of a reduction (`dot`, `nrm2`).
pub(crate) fn result(call: &str, len: usize) -> Result<()> {
    holds(call, "result", len, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blas::shape::{Batch, Gemm, Gemv};

    const CALL: &str = "cublasSgemm_v2";

    fn err(r: Result<impl core::fmt::Debug>) -> (ErrorKind, String) {
        let e = r.expect_err("must be refused");
        (e.kind(), e.detail().unwrap_or_default().to_owned())
    }

    #[test]
    fn tight_gemm_needs_exactly_its_elements() {
        let g = Gemm::<f32>::new(4, 3, 5); // a 4×5, b 5×3, c 4×3
        let args = gemm(CALL, &g, [20, 15, 12]).unwrap();
        assert_eq!(
            args,
            GemmArgs {
                m: 4,
                n: 3,
                k: 5,
                lda: 4,
                ldb: 5,
                ldc: 4
            }
        );
        for (i, name, need) in [(0, "a", 20), (1, "b", 15), (2, "c", 12)] {
            let mut lens = [20, 15, 12];
            lens[i] -= 1;
            let (kind, detail) = err(gemm(CALL, &g, lens));
            assert_eq!(kind, ErrorKind::BufferTooShort);
            assert_eq!(
                detail,
                format!(
                    "{CALL}: {name} holds {} elements, the call needs {need}; nothing was enqueued",
                    need - 1
                )
            );
        }
        // Longer buffers are fine.
        gemm(CALL, &g, [100, 100, 100]).unwrap();
    }

    #[test]
    fn leading_dimensions_are_checked_and_extend_the_extent() {
        let g = Gemm::<f32>::new(4, 3, 5).leading_dims(3, 5, 4);
        let (kind, detail) = err(gemm(CALL, &g, [100; 3]));
        assert_eq!(kind, ErrorKind::InvalidValue);
        assert_eq!(detail, format!("{CALL}: lda 3 < m 4; nothing was enqueued"));
        let g = Gemm::<f32>::new(4, 3, 5).leading_dims(4, 4, 4);
        assert_eq!(
            err(gemm(CALL, &g, [100; 3])).1,
            format!("{CALL}: ldb 4 < k 5; nothing was enqueued")
        );
        let g = Gemm::<f32>::new(4, 3, 5).leading_dims(4, 5, 2);
        assert_eq!(
            err(gemm(CALL, &g, [100; 3])).1,
            format!("{CALL}: ldc 2 < m 4; nothing was enqueued")
        );
        // A padded lda: a spans 6·(5-1) + 4 = 28 elements.
        let g = Gemm::<f32>::new(4, 3, 5).leading_dims(6, 5, 4);
        gemm(CALL, &g, [28, 15, 12]).unwrap();
        assert_eq!(
            err(gemm(CALL, &g, [27, 15, 12])).0,
            ErrorKind::BufferTooShort
        );
    }

    #[test]
    fn transposes_swap_the_stored_shapes() {
        // op(A) = Aᵀ with A stored k×m = 5×4: lda ≥ k, extent lda·(m-1) + k.
        let g = Gemm::<f32>::new(4, 3, 5).transpose_a();
        assert_eq!(g.lda, 5);
        gemm(CALL, &g, [20, 15, 12]).unwrap();
        let g = g.leading_dims(4, 5, 4);
        assert_eq!(
            err(gemm(CALL, &g, [100; 3])).1,
            format!("{CALL}: lda 4 < k 5; nothing was enqueued")
        );
        // op(B) = Bᵀ with B stored n×k = 3×5: ldb ≥ n.
        let g = Gemm::<f32>::new(4, 3, 5).transpose_b();
        assert_eq!(g.ldb, 3);
        gemm(CALL, &g, [20, 15, 12]).unwrap();
        let g = g.leading_dims(4, 2, 4);
        assert_eq!(
            err(gemm(CALL, &g, [100; 3])).1,
            format!("{CALL}: ldb 2 < n 3; nothing was enqueued")
        );
        // Padded, transposed: A stored 5×4 with lda 7 spans 7·3 + 5 = 26.
        let g = Gemm::<f32>::new(4, 3, 5)
            .transpose_a()
            .leading_dims(7, 5, 4);
        gemm(CALL, &g, [26, 15, 12]).unwrap();
        assert_eq!(
            err(gemm(CALL, &g, [25, 15, 12])).1,
            format!("{CALL}: a holds 25 elements, the call needs 26; nothing was enqueued")
        );
    }

    #[test]
    fn zero_dimensions_need_no_elements_but_valid_leading_dimensions() {
        // k = 0: C = beta·C; a and b are not read.
        let g = Gemm::<f32>::new(4, 3, 0);
        assert_eq!(g.ldb, 1);
        gemm(CALL, &g, [0, 0, 12]).unwrap();
        assert_eq!(err(gemm(CALL, &g, [0, 0, 11])).0, ErrorKind::BufferTooShort);
        // m = 0: nothing at all.
        let g = Gemm::<f32>::new(0, 3, 5);
        assert_eq!(g.lda, 1);
        gemm(CALL, &g, [0, 15, 0]).unwrap();
        // A leading dimension of 0 is refused even then (cuBLAS requires max(1, rows)).
        let g = Gemm::<f32>::new(0, 3, 5).leading_dims(0, 5, 1);
        assert_eq!(
            err(gemm(CALL, &g, [0, 15, 0])).1,
            format!("{CALL}: lda 0 < 1; nothing was enqueued")
        );
    }

    #[test]
    fn dimensions_must_fit_a_c_int() {
        let big = c_int::MAX as usize + 1;
        let g = Gemm::<f32>::new(big, 1, 1);
        let (kind, detail) = err(gemm(CALL, &g, [usize::MAX; 3]));
        assert_eq!(kind, ErrorKind::SizeOverflow);
        assert!(
            detail.starts_with(&format!("{CALL}: m {big} exceeds a C int")),
            "{detail}"
        );
        let g = Gemm::<f32>::new(2, 2, 2).leading_dims(big, 2, 2);
        assert_eq!(
            err(gemm(CALL, &g, [usize::MAX; 3])).0,
            ErrorKind::SizeOverflow
        );
    }

    #[test]
    fn extent_overflow_is_reported_not_wrapped() {
        assert_eq!(
            err(matrix_extent(CALL, "a", 2, usize::MAX, 2)).0,
            ErrorKind::SizeOverflow
        );
        assert_eq!(
            err(vector_extent(CALL, "x", usize::MAX, -2)).1,
            format!(
                "{CALL}: the extent of x (1 + ({} - 1) × |-2|) overflows; nothing was enqueued",
                usize::MAX
            )
        );
        assert_eq!(vector_extent(CALL, "x", 0, 5).unwrap(), 0);
        assert_eq!(vector_extent(CALL, "x", 4, 3).unwrap(), 10);
        assert_eq!(vector_extent(CALL, "x", 4, -3).unwrap(), 10);
        assert_eq!(matrix_extent(CALL, "a", 3, 4, 5).unwrap(), 18);
    }

    #[test]
    fn increments_zero_and_out_of_range_are_refused() {
        let call = "cublasSaxpy_v2";
        assert_eq!(vector(call, "x", 4, 1, 4).unwrap(), 1);
        assert_eq!(vector(call, "y", 4, -2, 7).unwrap(), -2);
        assert_eq!(
            err(vector(call, "y", 4, -2, 6)).1,
            format!("{call}: y holds 6 elements, the call needs 7; nothing was enqueued")
        );
        let (kind, detail) = err(vector(call, "x", 4, 0, 100));
        assert_eq!(kind, ErrorKind::InvalidValue);
        assert_eq!(detail, format!("{call}: incx is 0; nothing was enqueued"));
        assert_eq!(
            err(vector(call, "y", 1, 0, 100)).1,
            format!("{call}: incy is 0; nothing was enqueued")
        );
        let too_big = c_int::MAX as isize + 1;
        assert_eq!(
            err(vector(call, "x", 1, too_big, 1)).0,
            ErrorKind::SizeOverflow
        );
        assert_eq!(
            err(vector(call, "x", 1, -too_big - 1, 1)).0,
            ErrorKind::SizeOverflow
        );
        // n = 0 reads nothing, but the increment is still checked.
        assert_eq!(vector(call, "x", 0, 3, 0).unwrap(), 3);
        assert_eq!(err(vector(call, "x", 0, 0, 0)).0, ErrorKind::InvalidValue);
    }

    #[test]
    fn gemv_lengths_follow_the_transpose() {
        let call = "cublasSgemv_v2";
        // A 4×3: y = A·x reads 3 of x and writes 4 of y.
        let g = Gemv::<f32>::new(4, 3);
        gemv(call, &g, [12, 3, 4]).unwrap();
        assert_eq!(
            err(gemv(call, &g, [12, 2, 4])).1,
            format!("{call}: x holds 2 elements, the call needs 3; nothing was enqueued")
        );
        assert_eq!(err(gemv(call, &g, [12, 3, 3])).0, ErrorKind::BufferTooShort);
        assert_eq!(err(gemv(call, &g, [11, 3, 4])).0, ErrorKind::BufferTooShort);
        // y = Aᵀ·x reads 4 of x and writes 3 of y.
        let t = g.transpose();
        gemv(call, &t, [12, 4, 3]).unwrap();
        assert_eq!(err(gemv(call, &t, [12, 3, 3])).0, ErrorKind::BufferTooShort);
        // Increments stretch the vectors: x with incx 2 spans 1 + 2·2 = 5.
        let s = g.increments(2, -1);
        gemv(call, &s, [12, 5, 4]).unwrap();
        assert_eq!(err(gemv(call, &s, [12, 4, 4])).0, ErrorKind::BufferTooShort);
        assert_eq!(
            err(gemv(call, &g.increments(1, 0), [12, 3, 4])).0,
            ErrorKind::InvalidValue
        );
        assert_eq!(
            err(gemv(call, &g.lda(3), [100; 3])).1,
            format!("{call}: lda 3 < m 4; nothing was enqueued")
        );
        // An empty A still needs x's and y's full extents: y = beta·y (n = 0) may write all
        // of y.
        gemv(call, &Gemv::<f32>::new(4, 0), [0, 0, 4]).unwrap();
        assert_eq!(
            err(gemv(call, &Gemv::<f32>::new(4, 0), [0, 0, 3])).1,
            format!("{call}: y holds 3 elements, the call needs 4; nothing was enqueued")
        );
        gemv(call, &Gemv::<f32>::new(0, 3), [0, 3, 0]).unwrap();
        assert_eq!(
            err(gemv(call, &Gemv::<f32>::new(0, 3), [0, 0, 0])).0,
            ErrorKind::BufferTooShort
        );
    }

    #[test]
    fn strided_batches_need_every_matrix() {
        let call = "cublasSgemmStridedBatched";
        let g = Gemm::<f32>::new(2, 3, 4); // a 2×4 = 8, b 4×3 = 12, c 2×3 = 6
        let packed = Batch::packed(&g, 5);
        assert_eq!(
            (packed.stride_a, packed.stride_b, packed.stride_c),
            (8, 12, 6)
        );
        let (_, b) = gemm_strided_batched(call, &g, &packed, [40, 60, 30]).unwrap();
        assert_eq!(
            b,
            BatchArgs {
                stride_a: 8,
                stride_b: 12,
                stride_c: 6,
                count: 5
            }
        );
        assert_eq!(
            err(gemm_strided_batched(call, &g, &packed, [40, 59, 30])).1,
            format!("{call}: b holds 59 elements, the call needs 60; nothing was enqueued")
        );
        // A stride of 0 reuses one B for every batch.
        let shared_b = Batch {
            stride_b: 0,
            ..packed
        };
        gemm_strided_batched(call, &g, &shared_b, [40, 12, 30]).unwrap();
        // Overlapping outputs are refused, naming two batches and an element they share.
        let overlapping = Batch {
            stride_c: 5,
            ..packed
        };
        let (kind, detail) = err(gemm_strided_batched(call, &g, &overlapping, [100; 3]));
        assert_eq!(kind, ErrorKind::InvalidValue);
        assert_eq!(
            detail,
            format!(
                "{call}: stride_c 5 makes batches 0 and 1 both write element 5 of c (C is 2 × 3 \
                 with ldc 2); give the batches disjoint outputs, or make one call per batch; \
                 nothing was enqueued"
            )
        );
        // Interleaved outputs that share no element are accepted: C 2×3 with ldc 4 writes
        // {0, 1, 4, 5, 8, 9}, the second batch {2, 3, 6, 7, 10, 11}; a third would write 4.
        let g = Gemm::<f32>::new(2, 3, 1).leading_dims(2, 1, 4);
        let interleaved = Batch {
            stride_a: 2,
            stride_b: 3,
            stride_c: 2,
            count: 2,
        };
        gemm_strided_batched(call, &g, &interleaved, [4, 6, 12]).unwrap();
        let three = Batch {
            count: 3,
            ..interleaved
        };
        assert!(
            err(gemm_strided_batched(call, &g, &three, [100; 3]))
                .1
                .contains("batches 0 and 2 both write element 4"),
        );
        let g = Gemm::<f32>::new(2, 3, 4);
        // ... but a single batch needs no stride.
        let one = Batch {
            count: 1,
            stride_c: 0,
            ..packed
        };
        gemm_strided_batched(call, &g, &one, [8, 12, 6]).unwrap();
        // No batch: nothing read or written.
        let none = Batch { count: 0, ..packed };
        gemm_strided_batched(call, &g, &none, [0, 0, 0]).unwrap();
        // Overflow of stride · (count - 1) + extent, and of the count.
        let huge = Batch {
            stride_a: usize::MAX / 2,
            ..packed
        };
        assert_eq!(
            err(gemm_strided_batched(call, &g, &huge, [usize::MAX; 3])).0,
            ErrorKind::SizeOverflow
        );
        let many = Batch {
            count: c_int::MAX as usize + 1,
            ..packed
        };
        assert_eq!(
            err(gemm_strided_batched(call, &g, &many, [usize::MAX; 3])).0,
            ErrorKind::SizeOverflow
        );
    }

    #[test]
    fn shared_outputs_are_found_exactly() {
        // Against every pair of batches' element sets, for small shapes, strides and counts.
        for (m, n) in [(1, 1), (1, 3), (2, 3), (3, 2), (3, 4), (4, 1)] {
            for ldc in m..m + 4 {
                let elements = |i: usize, stride: usize| {
                    (0..n).flat_map(move |j| (0..m).map(move |r| i * stride + r + j * ldc))
                };
                for stride in 0..ldc * n + 2 {
                    for count in 0..6 {
                        let mut seen = std::collections::HashMap::new();
                        let mut truth = None;
                        for i in 0..count {
                            for e in elements(i, stride) {
                                if let Some(&first) = seen.get(&e) {
                                    let shift = i - first;
                                    // Translated to batch 0: the smallest shift that shares.
                                    if truth.is_none_or(|(t, _)| shift < t) {
                                        truth = Some((shift, e - first * stride));
                                    }
                                } else {
                                    seen.insert(e, i);
                                }
                            }
                        }
                        let found = first_shared_output(m, n, ldc, stride, count);
                        assert_eq!(
                            found.map(|(t, _)| t),
                            truth.map(|(t, _)| t),
                            "m {m} n {n} ldc {ldc} stride {stride} count {count}"
                        );
                        if let Some((t, e)) = found {
                            // The element named is written by batches 0 and t.
                            assert!(elements(0, stride).any(|x| x == e));
                            assert!(
                                elements(t, stride).any(|x| x == e),
                                "{m} {n} {ldc} {stride} {count}: {t} {e}"
                            );
                        }
                    }
                }
            }
        }
        // The column-wise search, for many batches with a small stride (m = 1, ldc 1000: batch
        // 1000 is the first to reach column 1).
        assert_eq!(first_shared_output(1, 3, 1000, 1, 5000), Some((1000, 1000)));
        assert_eq!(first_shared_output(1, 3, 1000, 1, 1000), None);
    }

    #[test]
    fn reductions_need_a_result_element() {
        result("cublasSdot_v2", 1).unwrap();
        result("cublasSdot_v2", 4).unwrap();
        assert_eq!(
            err(result("cublasSdot_v2", 0)).1,
            "cublasSdot_v2: result holds 0 elements, the call needs 1; nothing was enqueued"
        );
    }
}
