//! `custack::sparse` on a real device: `SpMV` and `SpMM` of CSR and COO matrices, `f32` and `f64`,
//! as stored and transposed, against products computed on the CPU in `f64`; a structure that
//! lives on the device, checked by copying it back and (unsafely) not; refused structures and
//! operands enqueueing nothing; one plan on two streams. The positive twins of
//! `ui-tests/c35_*`.
//!
//! The tolerance: each result is a sum of at most `cols` products, so it must lie within
//! `16·ε·(|alpha|·Σ|aᵢⱼ·xⱼ| + |beta·yᵢ|)` of the CPU's value (ε of the precision; the inputs
//! are rounded to the precision before the CPU computes, so only the sums' rounding differs).
//! A wrong index, value, operation or scalar is wrong by about the size of the values.
#![cfg(feature = "cusparse")]
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::many_single_char_names,
    reason = "sizes as f64, indices as i32; the products' names: a, b, c, x, y, m, n, k"
)]

mod common;
use common::context;
use custack::prelude::*;
use custack::sparse::{
    CooPattern, CsrPattern, Dense, Operation, Order, SpMm, SpMv, SparseMatrix, SparseScalar,
};
use custack::{ErrorKind, Stack, take_drop_errors};

/// The two precisions, as the CPU's side sees them.
trait Real: SparseScalar + PartialEq {
    const EPS: f64;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Real for f32 {
    const EPS: f64 = f32::EPSILON as f64;
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Real for f64 {
    const EPS: f64 = f64::EPSILON;
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// A xorshift stream, different for each `seed`.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// In [-1, 1).
    fn value(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A sparse matrix on the host: its CSR structure, its COO row indices and its values
/// (rounded to `T`).
struct Host<T> {
    rows: usize,
    cols: usize,
    offsets: Vec<i32>,
    coo_rows: Vec<i32>,
    col_indices: Vec<i32>,
    values: Vec<T>,
}

impl<T: Real> Host<T> {
    /// `rows × cols`, each row holding 0 to `2·per_row` distinct, sorted columns (some rows
    /// empty, which a wrong offset would show).
    fn random(rows: usize, cols: usize, per_row: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let (mut offsets, mut coo_rows, mut col_indices, mut values) =
            (vec![0], vec![], vec![], vec![]);
        for i in 0..rows {
            let mut row: Vec<usize> = (0..rng.below(2 * per_row + 1))
                .map(|_| rng.below(cols))
                .collect();
            row.sort_unstable();
            row.dedup();
            for j in row {
                coo_rows.push(i as i32);
                col_indices.push(j as i32);
                values.push(T::from_f64(rng.value()));
            }
            offsets.push(col_indices.len() as i32);
        }
        Self {
            rows,
            cols,
            offsets,
            coo_rows,
            col_indices,
            values,
        }
    }

    fn nnz(&self) -> usize {
        self.values.len()
    }

    /// `(i, j, a_ij)` of every stored element.
    fn elements(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        (0..self.nnz()).map(|e| {
            (
                self.coo_rows[e] as usize,
                self.col_indices[e] as usize,
                self.values[e].to_f64(),
            )
        })
    }

    /// `op(A)` element `(i, j)` contributions as `(row of op(A), col of op(A), value)`.
    fn op_elements(&self, op: Operation) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        self.elements().map(move |(i, j, a)| match op {
            Operation::NonTranspose => (i, j, a),
            Operation::Transpose => (j, i, a),
        })
    }
}

fn random_vec<T: Real>(len: usize, seed: u64) -> Vec<T> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| T::from_f64(rng.value())).collect()
}

/// `got` against the CPU's `want`, each within `16·ε·scale[i]`.
#[track_caller]
fn assert_close<T: Real>(got: &[T], want: &[f64], scale: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, ((g, w), s)) in got.iter().zip(want).zip(scale).enumerate() {
        let tol = 16.0 * T::EPS * s + f64::MIN_POSITIVE;
        assert!(
            (g.to_f64() - w).abs() <= tol,
            "{what}: element {i} is {g:?}, the CPU's {w} (tolerance {tol})"
        );
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fmt {
    Csr,
    Coo,
}

/// One `SpMV` `y = alpha·op(A)·x + beta·y` of a random matrix in `fmt`, checked against the CPU.
fn spmv_matches_the_cpu<T: Real>(fmt: Fmt, op: Operation) {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let host = Host::<T>::random(37, 29, 4, 7);
    let (m, k) = match op {
        Operation::NonTranspose => (host.rows, host.cols),
        Operation::Transpose => (host.cols, host.rows),
    };
    let (alpha, beta) = (1.5, -0.5);
    let x0 = random_vec::<T>(k, 11);
    let y0 = random_vec::<T>(m, 13);
    // The CPU's product, and the scale of each sum for the tolerance.
    let mut want: Vec<f64> = y0.iter().map(|y| beta * y.to_f64()).collect();
    let mut scale: Vec<f64> = y0.iter().map(|y| (beta * y.to_f64()).abs()).collect();
    for (i, j, a) in host.op_elements(op) {
        want[i] += alpha * a * x0[j].to_f64();
        scale[i] += (alpha * a * x0[j].to_f64()).abs();
    }
    let csr = guard
        .csr_pattern(host.rows, host.cols, &host.offsets, &host.col_indices)
        .unwrap();
    let coo = guard
        .coo_pattern(host.rows, host.cols, &host.coo_rows, &host.col_indices)
        .unwrap();
    assert_eq!((csr.nnz(), coo.nnz()), (host.nnz(), host.nnz()));
    let values = guard.alloc_from(&host.values).unwrap();
    let x = guard.alloc_from(&x0).unwrap();
    let mut y = guard.alloc_from(&y0).unwrap();
    let d = SpMv::new(T::from_f64(alpha), T::from_f64(beta)).op(op);
    stream
        .scope(|s| -> custack::Result<()> {
            let a = match fmt {
                Fmt::Csr => SparseMatrix::csr(s, &csr, s.bind(&values))?,
                Fmt::Coo => SparseMatrix::coo(s, &coo, s.bind(&values))?,
            };
            let (x, mut y) = (s.bind(&x), s.bind_mut(&mut y));
            let plan = guard.spmv_plan(&d, &a, x, &y)?;
            plan.run(s, &d, &a, x, &mut y)
        })
        .unwrap()
        .unwrap();
    assert_close(
        &y.to_vec().unwrap(),
        &want,
        &scale,
        &format!("SpMV {fmt:?} {op:?}"),
    );
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn spmv_csr_f32_matches_the_cpu() {
    spmv_matches_the_cpu::<f32>(Fmt::Csr, Operation::NonTranspose);
    spmv_matches_the_cpu::<f32>(Fmt::Csr, Operation::Transpose);
}

#[test]
#[ignore = "needs a CUDA device"]
fn spmv_csr_f64_matches_the_cpu() {
    spmv_matches_the_cpu::<f64>(Fmt::Csr, Operation::NonTranspose);
    spmv_matches_the_cpu::<f64>(Fmt::Csr, Operation::Transpose);
}

#[test]
#[ignore = "needs a CUDA device"]
fn spmv_coo_f32_matches_the_cpu() {
    spmv_matches_the_cpu::<f32>(Fmt::Coo, Operation::NonTranspose);
    spmv_matches_the_cpu::<f32>(Fmt::Coo, Operation::Transpose);
}

#[test]
#[ignore = "needs a CUDA device"]
fn spmv_coo_f64_matches_the_cpu() {
    spmv_matches_the_cpu::<f64>(Fmt::Coo, Operation::NonTranspose);
    spmv_matches_the_cpu::<f64>(Fmt::Coo, Operation::Transpose);
}

/// Element `(i, j)` of a dense layout.
fn at(d: Dense, i: usize, j: usize) -> usize {
    match d.order {
        Order::ColMajor => i + j * d.ld,
        Order::RowMajor => i * d.ld + j,
    }
}

/// What a dense layout spans.
fn span(d: Dense) -> usize {
    at(d, d.rows - 1, d.cols - 1) + 1
}

/// One `SpMM` `C = alpha·op(A)·op(B) + beta·C` of a random matrix in `fmt`, `B` and `C` in
/// `order` with padded leading dimensions, checked against the CPU (the padding must stay).
fn spmm_matches_the_cpu<T: Real>(fmt: Fmt, op_a: Operation, order: Order) {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let host = Host::<T>::random(23, 17, 3, 5);
    let (m, k) = match op_a {
        Operation::NonTranspose => (host.rows, host.cols),
        Operation::Transpose => (host.cols, host.rows),
    };
    let n = 5;
    let pad = 3;
    let (bd, cd) = match order {
        Order::ColMajor => (
            Dense::col_major(k, n).ld(k + pad),
            Dense::col_major(m, n).ld(m + pad),
        ),
        Order::RowMajor => (
            Dense::row_major(k, n).ld(n + pad),
            Dense::row_major(m, n).ld(n + pad),
        ),
    };
    let (alpha, beta) = (-0.75, 2.0);
    let b0 = random_vec::<T>(span(bd), 17);
    let c0 = random_vec::<T>(span(cd), 19);
    let mut want: Vec<f64> = c0.iter().map(|c| c.to_f64()).collect();
    let mut scale = vec![0.0; want.len()];
    for i in 0..m {
        for j in 0..n {
            let e = at(cd, i, j);
            want[e] *= beta;
            scale[e] = want[e].abs();
        }
    }
    for (i, l, a) in host.op_elements(op_a) {
        for j in 0..n {
            let p = alpha * a * b0[at(bd, l, j)].to_f64();
            want[at(cd, i, j)] += p;
            scale[at(cd, i, j)] += p.abs();
        }
    }
    let csr = guard
        .csr_pattern(host.rows, host.cols, &host.offsets, &host.col_indices)
        .unwrap();
    let coo = guard
        .coo_pattern(host.rows, host.cols, &host.coo_rows, &host.col_indices)
        .unwrap();
    let values = guard.alloc_from(&host.values).unwrap();
    let b = guard.alloc_from(&b0).unwrap();
    let mut c = guard.alloc_from(&c0).unwrap();
    let d =
        SpMm::new(bd, cd, T::from_f64(alpha), T::from_f64(beta)).ops(op_a, Operation::NonTranspose);
    stream
        .scope(|s| -> custack::Result<()> {
            let a = match fmt {
                Fmt::Csr => SparseMatrix::csr(s, &csr, s.bind(&values))?,
                Fmt::Coo => SparseMatrix::coo(s, &coo, s.bind(&values))?,
            };
            let (b, mut c) = (s.bind(&b), s.bind_mut(&mut c));
            let plan = guard.spmm_plan(&d, &a, b, &c)?;
            plan.run(s, &d, &a, b, &mut c)
        })
        .unwrap()
        .unwrap();
    // The padding is untouched: `want` holds `c0` there, with a scale of 0.
    assert_close(
        &c.to_vec().unwrap(),
        &want,
        &scale,
        &format!("SpMM {fmt:?} {op_a:?} {order:?}"),
    );
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn spmm_csr_f32_matches_the_cpu() {
    spmm_matches_the_cpu::<f32>(Fmt::Csr, Operation::NonTranspose, Order::ColMajor);
    spmm_matches_the_cpu::<f32>(Fmt::Csr, Operation::NonTranspose, Order::RowMajor);
    spmm_matches_the_cpu::<f32>(Fmt::Csr, Operation::Transpose, Order::ColMajor);
}

#[test]
#[ignore = "needs a CUDA device"]
fn spmm_csr_f64_matches_the_cpu() {
    spmm_matches_the_cpu::<f64>(Fmt::Csr, Operation::NonTranspose, Order::ColMajor);
    spmm_matches_the_cpu::<f64>(Fmt::Csr, Operation::NonTranspose, Order::RowMajor);
}

#[test]
#[ignore = "needs a CUDA device"]
fn spmm_coo_f32_matches_the_cpu() {
    spmm_matches_the_cpu::<f32>(Fmt::Coo, Operation::NonTranspose, Order::ColMajor);
    spmm_matches_the_cpu::<f32>(Fmt::Coo, Operation::NonTranspose, Order::RowMajor);
}

#[test]
#[ignore = "needs a CUDA device"]
fn spmm_coo_f64_matches_the_cpu() {
    spmm_matches_the_cpu::<f64>(Fmt::Coo, Operation::NonTranspose, Order::ColMajor);
    spmm_matches_the_cpu::<f64>(Fmt::Coo, Operation::NonTranspose, Order::RowMajor);
}

/// A structure made on the device: checked by copying it back (a malformed one refused), or
/// not (`unsafe`, the caller's promise), both giving the CPU's product.
#[test]
#[ignore = "needs a CUDA device"]
fn a_structure_on_the_device_is_checked_or_unsafe() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    // [[1, 0, 2], [0, 0, 3]]
    let offsets = [0i32, 2, 3];
    let indices = [0i32, 2, 2];
    let values = guard.alloc_from(&[1.0f64, 2.0, 3.0]).unwrap();
    let x = guard.alloc_from(&[1.0f64, 10.0, 100.0]).unwrap();
    let want = [201.0, 300.0];
    // Checked: the buffers are copied back and checked; a column index out of range refused.
    let bad = CsrPattern::from_device(
        2,
        3,
        guard.alloc_from(&offsets).unwrap(),
        guard.alloc_from(&[0i32, 2, 3]).unwrap(),
    )
    .unwrap_err();
    assert_eq!(bad.kind(), ErrorKind::InvalidValue);
    assert!(
        bad.detail()
            .unwrap()
            .contains("col_indices[2] = 3 is outside 0..cols 3"),
        "{bad}"
    );
    let bad = CooPattern::from_device(
        2,
        3,
        guard.alloc_from(&[1i32, 0, 1]).unwrap(),
        guard.alloc_from(&indices).unwrap(),
    )
    .unwrap_err();
    assert!(bad.detail().unwrap().contains("sorted by row"), "{bad}");
    let checked = CsrPattern::from_device(
        2,
        3,
        guard.alloc_from(&offsets).unwrap(),
        guard.alloc_from(&indices).unwrap(),
    )
    .unwrap();
    let raw_offsets = guard.alloc_from(&offsets).unwrap();
    let raw_indices = guard.alloc_from(&indices).unwrap();
    let mut y1 = guard.alloc_zeroed::<f64>(2).unwrap();
    let mut y2 = guard.alloc_zeroed::<f64>(2).unwrap();
    let d = SpMv::new(1.0, 0.0);
    stream
        .scope(|s| -> custack::Result<()> {
            let a = SparseMatrix::csr(s, &checked, s.bind(&values))?;
            // SAFETY: the arrays hold the valid structure above, bound for reading.
            let b = unsafe {
                SparseMatrix::csr_unchecked(
                    2,
                    3,
                    3,
                    s.bind(&raw_offsets),
                    s.bind(&raw_indices),
                    s.bind(&values),
                )
            }?;
            let x = s.bind(&x);
            let (mut y1, mut y2) = (s.bind_mut(&mut y1), s.bind_mut(&mut y2));
            let plan = guard.spmv_plan(&d, &a, x, &y1)?;
            plan.run(s, &d, &a, x, &mut y1)?;
            plan.run(s, &d, &b, x, &mut y2)
        })
        .unwrap()
        .unwrap();
    assert_eq!(y1.to_vec().unwrap(), want);
    assert_eq!(y2.to_vec().unwrap(), want);
    assert!(take_drop_errors().is_empty());
}

/// Malformed structures are refused by the guard before anything is allocated, and operands
/// that do not fit before anything is enqueued: the output keeps its marker.
#[test]
#[ignore = "needs a CUDA device"]
fn refused_structures_and_operands_enqueue_nothing() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let e = guard
        .csr_pattern(2, 3, &[0i32, 3, 2], &[0, 1, 2])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert_eq!(
        e.detail(),
        Some(
            "cusparseCreateCsr: row_offsets[2] = 2 < row_offsets[1] = 3, the offsets must not decrease; nothing was enqueued"
        )
    );
    let e = guard.coo_pattern(2, 3, &[0i32, 2], &[0, 1]).unwrap_err();
    assert!(
        e.detail()
            .unwrap()
            .contains("row_indices[1] = 2 is outside 0..rows 2"),
        "{e}"
    );
    let pattern = guard.csr_pattern(2, 3, &[0i32, 2, 3], &[0, 2, 2]).unwrap();
    let short_values = guard.alloc_from(&[1.0f32, 2.0]).unwrap();
    let values = guard.alloc_from(&[1.0f32, 2.0, 3.0]).unwrap();
    let x = guard.alloc_from(&[1.0f32; 3]).unwrap();
    let short_x = guard.alloc_from(&[1.0f32; 2]).unwrap();
    let mut y = guard.alloc_from(&[7.0f32; 2]).unwrap();
    let d = SpMv::new(1.0f32, 0.0);
    let e = stream
        .scope(|s| SparseMatrix::csr(s, &pattern, s.bind(&short_values)).map(|_| ()))
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferTooShort);
    assert_eq!(
        e.detail(),
        Some(
            "cusparseCreateConstCsr: values holds 2 elements, the call needs 3; nothing was enqueued"
        )
    );
    let e = stream
        .scope(|s| -> custack::Result<()> {
            let a = SparseMatrix::csr(s, &pattern, s.bind(&values))?;
            let mut y = s.bind_mut(&mut y);
            let plan = guard.spmv_plan(&d, &a, s.bind(&x), &y)?;
            plan.run(s, &d, &a, s.bind(&short_x), &mut y)
        })
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.detail(),
        Some("cusparseSpMV: x holds 2 elements, the call needs 3; nothing was enqueued")
    );
    // SpMM: C of the wrong shape.
    let b = guard.alloc_from(&[1.0f32; 6]).unwrap();
    let mut c = guard.alloc_from(&[7.0f32; 6]).unwrap();
    let mm = SpMm::new(Dense::col_major(3, 2), Dense::col_major(3, 2), 1.0f32, 0.0);
    let e = stream
        .scope(|s| -> custack::Result<()> {
            let a = SparseMatrix::csr(s, &pattern, s.bind(&values))?;
            let c = s.bind_mut(&mut c);
            guard.spmm_plan(&mm, &a, s.bind(&b), &c).map(|_| ())
        })
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.detail(),
        Some(
            "cusparseSpMM_bufferSize: C is 3 × 2, op(A)·op(B) is m × n = 2 × 2; nothing was enqueued"
        )
    );
    assert_eq!(y.to_vec().unwrap(), [7.0; 2]);
    assert_eq!(c.to_vec().unwrap(), [7.0; 6]);
    assert!(take_drop_errors().is_empty());
}

/// One plan used on two streams, then dropped with its last call possibly pending: its calls
/// never overlap (the second stream waits for the first) and the results are the CPU's.
#[test]
#[ignore = "needs a CUDA device"]
fn one_plan_on_two_streams() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let (s1, s2) = (guard.stream().unwrap(), guard.stream().unwrap());
    let host = Host::<f32>::random(1000, 800, 6, 3);
    let x0 = random_vec::<f32>(800, 23);
    let mut want = vec![0.0; 1000];
    let mut scale = vec![0.0; 1000];
    for (i, j, a) in host.elements() {
        want[i] += a * x0[j].to_f64();
        scale[i] += (a * x0[j].to_f64()).abs();
    }
    let pattern = guard
        .csr_pattern(host.rows, host.cols, &host.offsets, &host.col_indices)
        .unwrap();
    let values = guard.alloc_from(&host.values).unwrap();
    let x = guard.alloc_from(&x0).unwrap();
    let mut y1 = guard.alloc_zeroed::<f32>(1000).unwrap();
    let mut y2 = guard.alloc_zeroed::<f32>(1000).unwrap();
    let d = SpMv::new(1.0f32, 0.0);
    let plan = s1
        .scope(|s| -> custack::Result<_> {
            let a = SparseMatrix::csr(s, &pattern, s.bind(&values))?;
            let mut y = s.bind_mut(&mut y1);
            let plan = guard.spmv_plan(&d, &a, s.bind(&x), &y)?;
            plan.run(s, &d, &a, s.bind(&x), &mut y)?;
            Ok(plan)
        })
        .unwrap()
        .unwrap();
    s2.scope(|s| -> custack::Result<()> {
        let a = SparseMatrix::csr(s, &pattern, s.bind(&values))?;
        plan.run(s, &d, &a, s.bind(&x), s.bind_mut(&mut y2))?;
        drop(plan);
        Ok(())
    })
    .unwrap()
    .unwrap();
    assert_close(&y1.to_vec().unwrap(), &want, &scale, "stream 1");
    assert_close(&y2.to_vec().unwrap(), &want, &scale, "stream 2");
    assert!(custack::sparse::version().unwrap().major >= 12);
    assert!(take_drop_errors().is_empty());
}
