//! The checks a matmul plan makes before cuBLASLt is called, and each run before anything is
//! enqueued: a [`Matmul`]'s shape, batch and epilogue turned into cuBLASLt's parameters with the
//! extent each operand spans ([`Extents`]), and the bound buffers against them.
//!
//! The shape's checks are cuBLAS's (`blas::check`: dimensions, leading dimensions, extents,
//! outputs of a batch that share an element); this adds the batch's extents for four operands,
//! the bias, the auxiliary matrix and the alignment cuBLASLt's algorithms are chosen for. Pure
//! functions of numbers, tested without a GPU.

use crate::blas::check::{GemmArgs, first_shared_output, gemm_extents, holds, int};
use crate::blaslt::matmul::Matmul;
use crate::error::{Error, ErrorKind, Result};
use core::ffi::c_int;

/// The call a plan is made for and each run makes.
pub(crate) const MATMUL: &str = "cublasLtMatmul";

/// The alignment, in bytes, of `A`, `B`, `C` and `D` that the heuristic is told to count on
/// (`CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES`, also cuBLASLt's default), and of the bias and
/// the auxiliary matrix (the placeholder addresses the plan gives the heuristic), which each run
/// checks: every allocation starts on it.
pub(crate) const MATRIX_ALIGN: usize = 256;

#[cold]
#[inline(never)]
fn refused(kind: ErrorKind, what: &str, after: &str) -> Error {
    Error::custack(kind, format!("{MATMUL}: {what}; {after}"))
}

fn bad_plan(what: &str) -> Error {
    refused(ErrorKind::InvalidValue, what, "no plan was made")
}

/// A matmul's parameters, checked: cuBLAS's shape arguments, the batch, the auxiliary matrix's
/// leading dimension and batch stride, and the elements each operand spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extents {
    pub(crate) args: GemmArgs,
    /// The batch count (1 without a batch) and the strides of `A`, `B` and `C`/`D`.
    pub(crate) count: c_int,
    pub(crate) strides: [i64; 3],
    pub(crate) batched: bool,
    pub(crate) aux_ld: i64,
    pub(crate) aux_stride: i64,
    /// Elements of `A`, `B`, `C` (and `D`), the bias and the auxiliary matrix (0 when the
    /// epilogue has none).
    pub(crate) a: usize,
    pub(crate) b: usize,
    pub(crate) c: usize,
    pub(crate) bias: usize,
    pub(crate) aux: usize,
}

fn long(name: &str, value: usize) -> Result<i64> {
    i64::try_from(value).map_err(|_| {
        refused(
            ErrorKind::SizeOverflow,
            &format!("{name} {value} exceeds an int64_t"),
            "no plan was made",
        )
    })
}

/// `stride·(count − 1) + one`, the extent of `count` matrices of `one` elements.
fn batch_extent(name: &str, one: usize, stride: usize, count: usize) -> Result<usize> {
    if one == 0 {
        return Ok(0);
    }
    stride
        .checked_mul(count - 1)
        .and_then(|x| x.checked_add(one))
        .ok_or_else(|| {
            refused(
                ErrorKind::SizeOverflow,
                &format!("the extent of {name} over the batch overflows"),
                "no plan was made",
            )
        })
}

/// A matmul's parameters and extents, checked.
pub(crate) fn plan(m: &Matmul) -> Result<Extents> {
    let g = &m.gemm;
    let (args, [a1, b1, c1]) = gemm_extents(MATMUL, g)?;
    let (count, strides) = match m.batch {
        None => (1, [0; 3]),
        Some(b) => {
            if b.count == 0 {
                return Err(bad_plan("batch count 0"));
            }
            if let Some((t, e)) = first_shared_output(g.m, g.n, g.ldc, b.stride_c, b.count) {
                return Err(bad_plan(&format!(
                    "stride_c {} makes batches 0 and {t} both write element {e} of d (D is {} × \
                     {} with ldc {})",
                    b.stride_c, g.m, g.n, g.ldc
                )));
            }
            (b.count, [b.stride_a, b.stride_b, b.stride_c])
        }
    };
    let [sa, sb, sc] = strides;
    let (aux_ld, aux_one) = if m.epilogue.has_aux() {
        let ld = m.aux_ld.unwrap_or_else(|| g.m.max(1).next_multiple_of(8));
        if ld < g.m.max(1) || ld % 8 != 0 {
            return Err(bad_plan(&format!(
                "aux_ld {ld} is not a multiple of 8 at least m {}",
                g.m
            )));
        }
        let one = crate::blas::check::matrix_extent(MATMUL, "aux", g.m, g.n, ld)?;
        (ld, one)
    } else {
        if let Some(ld) = m.aux_ld {
            return Err(bad_plan(&format!(
                "aux_ld {ld} is set, but the epilogue {:?} has no auxiliary matrix",
                m.epilogue
            )));
        }
        (0, 0)
    };
    let aux_stride = aux_ld.checked_mul(g.n).ok_or_else(|| {
        refused(
            ErrorKind::SizeOverflow,
            "the auxiliary matrix's batch stride overflows",
            "no plan was made",
        )
    })?;
    Ok(Extents {
        args,
        count: int(MATMUL, "batch count", count)?,
        strides: [
            long("stride_a", sa)?,
            long("stride_b", sb)?,
            long("stride_c", sc)?,
        ],
        batched: m.batch.is_some(),
        aux_ld: long("aux_ld", aux_ld)?,
        aux_stride: long("the auxiliary batch stride", aux_stride)?,
        a: batch_extent("a", a1, sa, count)?,
        b: batch_extent("b", b1, sb, count)?,
        c: batch_extent("c", c1, sc, count)?,
        bias: if m.epilogue.has_bias() { g.m } else { 0 },
        aux: batch_extent("aux", aux_one, aux_stride, count)?,
    })
}

/// A bound operand: `(address, length)`.
pub(crate) type Operand = (u64, usize);

fn aligned(name: &str, (ptr, _): Operand, align: usize) -> Result<()> {
    if ptr % align as u64 != 0 {
        return Err(refused(
            ErrorKind::InvalidValue,
            &format!(
                "{name} at {ptr:#x} is not aligned to {align} bytes (bind a buffer, or a view \
                 starting on that boundary)"
            ),
            "nothing was enqueued",
        ));
    }
    Ok(())
}

fn extra(name: &str, given: Option<Operand>, need: usize, align: usize) -> Result<()> {
    match (given, need) {
        (None, 0) => Ok(()),
        (Some(_), 0) => Err(refused(
            ErrorKind::InvalidValue,
            &format!("the plan's epilogue takes no {name}"),
            "nothing was enqueued",
        )),
        (None, _) => Err(refused(
            ErrorKind::InvalidValue,
            &format!("the plan's epilogue needs a {name} of {need} elements"),
            "nothing was enqueued",
        )),
        (Some(op), need) => {
            holds(MATMUL, name, op.1, need)?;
            aligned(name, op, align)
        }
    }
}

/// A run's buffers against the plan's extents: `a`, `b`, `c` and `d` hold theirs and start on
/// [`MATRIX_ALIGN`]; the bias and the auxiliary matrix are given exactly when the epilogue takes
/// them, hold theirs and start on [`MATRIX_ALIGN`] too.
#[allow(
    clippy::many_single_char_names,
    reason = "the matmul's own names: a, b, c, d, e"
)]
pub(crate) fn run(
    e: &Extents,
    [a, b, c, d]: [Operand; 4],
    bias: Option<Operand>,
    aux: Option<Operand>,
) -> Result<()> {
    // `d` before `c`: in place they are one buffer, which the caller knows as `d`.
    for (name, op, need) in [("a", a, e.a), ("b", b, e.b), ("d", d, e.c), ("c", c, e.c)] {
        holds(MATMUL, name, op.1, need)?;
        aligned(name, op, MATRIX_ALIGN)?;
    }
    extra("bias", bias, e.bias, MATRIX_ALIGN)?;
    extra("aux", aux, e.aux, MATRIX_ALIGN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blas::shape::{Batch, Gemm};
    use crate::blaslt::matmul::Epilogue;

    fn err(r: Result<impl core::fmt::Debug>) -> (ErrorKind, String) {
        let e = r.expect_err("must be refused");
        (e.kind(), e.detail().unwrap_or_default().to_owned())
    }

    const A: u64 = 0x1000;

    #[test]
    fn a_plain_matmul_spans_its_matrices() {
        let e = plan(&Matmul::new(Gemm::new(4, 3, 5))).unwrap();
        assert_eq!(
            (e.a, e.b, e.c, e.bias, e.aux, e.count),
            (20, 15, 12, 0, 0, 1)
        );
        run(&e, [(A, 20), (A, 15), (A, 12), (A, 12)], None, None).unwrap();
        assert_eq!(
            err(run(&e, [(A, 20), (A, 15), (A, 12), (A, 11)], None, None)).1,
            "cublasLtMatmul: d holds 11 elements, the call needs 12; nothing was enqueued"
        );
        // cuBLAS's own shape checks apply.
        assert_eq!(
            err(plan(&Matmul::new(Gemm::new(4, 3, 5).leading_dims(3, 5, 4)))).1,
            "cublasLtMatmul: lda 3 < m 4; nothing was enqueued"
        );
    }

    #[test]
    fn operands_start_on_the_alignment_the_heuristic_counts_on() {
        let e = plan(&Matmul::new(Gemm::new(2, 2, 2))).unwrap();
        let (kind, detail) = err(run(&e, [(A + 4, 4), (A, 4), (A, 4), (A, 4)], None, None));
        assert_eq!(kind, ErrorKind::InvalidValue);
        assert_eq!(
            detail,
            "cublasLtMatmul: a at 0x1004 is not aligned to 256 bytes (bind a buffer, or a view \
             starting on that boundary); nothing was enqueued"
        );
    }

    #[test]
    fn epilogues_take_their_bias_and_aux() {
        let g = Gemm::new(6, 4, 3);
        let e = plan(&Matmul::new(g).epilogue(Epilogue::ReluBias)).unwrap();
        assert_eq!((e.bias, e.aux), (6, 0));
        let ops = [(A, 18), (A, 12), (A, 24), (A, 24)];
        run(&e, ops, Some((A, 6)), None).unwrap();
        assert_eq!(
            err(run(&e, ops, None, None)).1,
            "cublasLtMatmul: the plan's epilogue needs a bias of 6 elements; nothing was enqueued"
        );
        assert_eq!(
            err(run(&e, ops, Some((A, 5)), None)).1,
            "cublasLtMatmul: bias holds 5 elements, the call needs 6; nothing was enqueued"
        );
        // The bias on 16 bytes but not 256: the heuristic was told 256 (its placeholder).
        assert_eq!(
            err(run(&e, ops, Some((A + 16, 6)), None)).1,
            "cublasLtMatmul: bias at 0x1010 is not aligned to 256 bytes (bind a buffer, or a view \
             starting on that boundary); nothing was enqueued"
        );
        assert!(
            err(run(&e, ops, Some((A, 6)), Some((A, 100))))
                .1
                .contains("the plan's epilogue takes no aux")
        );
        // GELU with its input stored: ld rounded up to 8 (6 → 8), 8·3 + 6 = 30 elements.
        let e = plan(&Matmul::new(g).epilogue(Epilogue::GeluAuxBias)).unwrap();
        assert_eq!((e.aux_ld, e.aux, e.bias), (8, 30, 6));
        run(&e, ops, Some((A, 6)), Some((A, 30))).unwrap();
        assert_eq!(
            err(plan(&Matmul::new(g).epilogue(Epilogue::GeluAux).aux_ld(12))).1,
            "cublasLtMatmul: aux_ld 12 is not a multiple of 8 at least m 6; no plan was made"
        );
        assert!(
            err(plan(&Matmul::new(g).aux_ld(8)))
                .1
                .contains("has no auxiliary matrix")
        );
    }

    #[test]
    fn batches_span_every_matrix_and_write_apart() {
        let g = Gemm::new(2, 3, 4);
        let e = plan(&Matmul::new(g).batched(Batch::packed(&g, 5))).unwrap();
        assert_eq!((e.a, e.b, e.c, e.count), (40, 60, 30, 5));
        assert_eq!(e.strides, [8, 12, 6]);
        let overlapping = Batch {
            stride_c: 5,
            ..Batch::packed(&g, 5)
        };
        assert_eq!(
            err(plan(&Matmul::new(g).batched(overlapping))).1,
            "cublasLtMatmul: stride_c 5 makes batches 0 and 1 both write element 5 of d (D is 2 \
             × 3 with ldc 2); no plan was made"
        );
        let none = Batch {
            count: 0,
            ..Batch::packed(&g, 5)
        };
        assert!(
            err(plan(&Matmul::new(g).batched(none)))
                .1
                .contains("batch count 0")
        );
        // The auxiliary matrix is batched too: 8·3 per matrix, packed.
        let e = plan(
            &Matmul::new(g)
                .batched(Batch::packed(&g, 2))
                .epilogue(Epilogue::GeluAux),
        )
        .unwrap();
        assert_eq!((e.aux_stride, e.aux), (24, 24 + 8 * 2 + 2));
    }
}
