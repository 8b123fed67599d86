//! `custack::solver` on a real device, against the CPU: LU solves (plain and transposed, with a
//! padded leading dimension) by their residual, Cholesky's factor and solve, QR's `R` (`RᵀR =
//! AᵀA`) and `Q` (`Qᵀ·A = R`, `Q·Qᵀ·C = C`), the eigenvalues of a matrix whose spectrum is known
//! in closed form, singular values and the full decomposition; a singular and a non-SPD matrix
//! giving their typed errors once the scope has ended; every call-site check refusing before
//! anything is enqueued; a plan on two nested streams, dropped after. The positive twins of
//! `ui-tests/cusolver/`.
//!
//! The tolerances: a wrong factor, pivot or solve is wrong by about the size of the values; a
//! backward-stable factorization of an `n × n` well-conditioned matrix leaves a residual of a
//! few `n·ε` relative to `‖A‖·‖x‖`, so each check allows `64·n·ε` (ε of the precision).
#![cfg(feature = "cusolver")]
#![allow(
    clippy::cast_precision_loss,
    clippy::many_single_char_names,
    clippy::too_many_lines,
    clippy::float_cmp,
    reason = "sizes as floats; the linear algebra's names: a, b, x, n, m; untouched markers \
              compared exactly"
)]

mod common;
use common::context;
use custack::prelude::*;
use custack::solver::{Fill, Info, Matrix, Scalar, SolverInfo, Transpose, Vectors};
use custack::{ErrorKind, PushedGuard, Stack, Stream, take_drop_errors};

/// The set-up every test shares: the device's context pushed on a fresh stack, and a stream
/// of it.
fn on_device(f: impl FnOnce(&PushedGuard<'_, '_>, &Stream<'_>)) {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    f(&guard, &stream);
}

/// The element types, converted to and from `f64` for the CPU's side.
trait Float: Scalar + Copy + PartialEq + core::fmt::Debug {
    const EPS: f64;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}
impl Float for f32 {
    const EPS: f64 = f32::EPSILON as f64;
    #[allow(clippy::cast_possible_truncation)]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}
impl Float for f64 {
    const EPS: f64 = f64::EPSILON;
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// Values in [-1, 1), different for each `seed`.
fn values(len: usize, seed: u64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

/// A column-major `rows × cols` matrix with leading dimension `ld` (padding `pad`).
fn store(a: &[f64], rows: usize, cols: usize, ld: usize, pad: f64) -> Vec<f64> {
    let mut out = vec![pad; ld * (cols - 1) + rows];
    for j in 0..cols {
        for i in 0..rows {
            out[i + j * ld] = a[i + j * rows];
        }
    }
    out
}

fn to<T: Float>(x: &[f64]) -> Vec<T> {
    x.iter().map(|&v| T::from_f64(v)).collect()
}

fn from<T: Float>(x: &[T]) -> Vec<f64> {
    x.iter().map(|v| v.to_f64()).collect()
}

/// `A·X` of column-major `A` (`m × k`, `lda`) and `X` (`k × n`, `ldx`).
fn mul(a: &[f64], lda: usize, x: &[f64], ldx: usize, (m, k, n): (usize, usize, usize)) -> Vec<f64> {
    let mut out = vec![0.0; m * n];
    for j in 0..n {
        for p in 0..k {
            for i in 0..m {
                out[i + j * m] += a[i + p * lda] * x[p + j * ldx];
            }
        }
    }
    out
}

fn norm(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// A random matrix made diagonally dominant: nonsingular and well conditioned.
fn dominant(n: usize, seed: u64) -> Vec<f64> {
    let mut a = values(n * n, seed);
    for i in 0..n {
        a[i + i * n] += n as f64;
    }
    a
}

/// A random symmetric positive-definite matrix.
fn spd(n: usize, seed: u64) -> Vec<f64> {
    let r = values(n * n, seed);
    let mut a = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..n {
            a[i + j * n] =
                f64::midpoint(r[i + j * n], r[j + i * n]) + if i == j { n as f64 } else { 0.0 };
        }
    }
    a
}

fn lu_solve<T: Float>(trans: Transpose) {
    on_device(|guard, stream| {
        let (n, nrhs, lda, ldb) = (64, 3, 67, 65);
        let a = dominant(n, 1);
        let b = values(n * nrhs, 2);
        let plan = guard.lu_plan::<T>(Matrix::square(n).ld(lda)).unwrap();
        let mut da = guard
            .alloc_from(&to::<T>(&store(&a, n, n, lda, 9.0)))
            .unwrap();
        let mut db = guard
            .alloc_from(&to::<T>(&store(&b, n, nrhs, ldb, 7.0)))
            .unwrap();
        let mut ipiv = guard.lu_pivots(Matrix::square(n)).unwrap();
        let (mut factored, mut solved) =
            (guard.solver_info().unwrap(), guard.solver_info().unwrap());
        stream
            .scope(|s| -> custack::Result<()> {
                let (mut fa, mut p) = (s.bind_mut(&mut da), s.bind_pivots(&mut ipiv));
                plan.getrf(s, &mut fa, &mut p, &mut factored)?;
                let shape = Matrix::new(n, nrhs).ld(ldb);
                plan.getrs(s, trans, &fa, &p, s.bind_mut(&mut db), shape, &mut solved)
            })
            .unwrap()
            .unwrap();
        assert_eq!(factored.outcome().unwrap(), Info::Success);
        assert_eq!(factored.last_call(), Some(T::GETRF));
        solved.ensure_success().unwrap();
        let pivots = ipiv.to_vec().unwrap();
        assert!(
            pivots.iter().all(|&p| p >= 1 && p as usize <= n),
            "{pivots:?}"
        );
        let got = from::<T>(&db.to_vec().unwrap());
        // The padding between columns is untouched.
        for j in 0..nrhs - 1 {
            assert_eq!(got[n + j * ldb], 7.0);
        }
        let x: Vec<f64> = (0..nrhs)
            .flat_map(|j| got[j * ldb..j * ldb + n].to_vec())
            .collect();
        let at: Vec<f64> = (0..n * n).map(|k| a[(k / n) + (k % n) * n]).collect();
        let op = if trans == Transpose::No { &a } else { &at };
        let ax = mul(op, n, &x, n, (n, n, nrhs));
        let residual = norm(&ax.iter().zip(&b).map(|(p, q)| p - q).collect::<Vec<_>>());
        let bound = 64.0 * n as f64 * T::EPS * norm(op) * norm(&x) * n as f64;
        assert!(residual <= bound, "{residual:e} > {bound:e}");
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn lu_solves_match_the_cpu_in_both_precisions() {
    lu_solve::<f32>(Transpose::No);
    lu_solve::<f64>(Transpose::No);
    lu_solve::<f64>(Transpose::Yes);
    assert!(take_drop_errors().is_empty());
}

fn cholesky<T: Float>(fill: Fill) {
    on_device(|guard, stream| {
        let n = 48;
        let a = spd(n, 3);
        let b = values(n, 4);
        let plan = guard.cholesky_plan::<T>(Matrix::square(n), fill).unwrap();
        let mut da = guard.alloc_from(&to::<T>(&a)).unwrap();
        let mut db = guard.alloc_from(&to::<T>(&b)).unwrap();
        let (mut factored, mut solved) =
            (guard.solver_info().unwrap(), guard.solver_info().unwrap());
        stream
            .scope(|s| -> custack::Result<()> {
                let mut fa = s.bind_mut(&mut da);
                plan.potrf(s, &mut fa, &mut factored)?;
                plan.potrs(s, &fa, s.bind_mut(&mut db), Matrix::new(n, 1), &mut solved)
            })
            .unwrap()
            .unwrap();
        factored.ensure_success().unwrap();
        solved.ensure_success().unwrap();
        // The factor: L·Lᵀ (lower) or Uᵀ·U (upper) equals A.
        let f = from::<T>(&da.to_vec().unwrap());
        let l: Vec<f64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k % n, k / n);
                match fill {
                    Fill::Lower if i >= j => f[i + j * n],
                    Fill::Upper if i >= j => f[j + i * n], // Uᵀ
                    _ => 0.0,
                }
            })
            .collect();
        let lt: Vec<f64> = (0..n * n).map(|k| l[(k / n) + (k % n) * n]).collect();
        let llt = mul(&l, n, &lt, n, (n, n, n));
        let err = norm(&llt.iter().zip(&a).map(|(p, q)| p - q).collect::<Vec<_>>());
        let bound = 64.0 * n as f64 * T::EPS * norm(&a);
        assert!(err <= bound, "factor: {err:e} > {bound:e}");
        let x = from::<T>(&db.to_vec().unwrap());
        let ax = mul(&a, n, &x, n, (n, n, 1));
        let residual = norm(&ax.iter().zip(&b).map(|(p, q)| p - q).collect::<Vec<_>>());
        let bound = 64.0 * n as f64 * T::EPS * norm(&a) * norm(&x) * n as f64;
        assert!(residual <= bound, "solve: {residual:e} > {bound:e}");
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn cholesky_factors_and_solves_match_the_cpu() {
    cholesky::<f32>(Fill::Lower);
    cholesky::<f64>(Fill::Lower);
    cholesky::<f64>(Fill::Upper);
}

#[test]
#[ignore = "needs a CUDA device"]
fn qr_gives_r_and_q_as_the_cpu_checks_them() {
    on_device(|guard, stream| {
        let (m, n) = (12, 5);
        let a = values(m * n, 5);
        let plan = guard
            .qr_plan::<f64>(Matrix::new(m, n), Matrix::new(m, n))
            .unwrap();
        let mut da = guard.alloc_from(&a).unwrap();
        let mut tau = guard.alloc_zeroed::<f64>(n).unwrap();
        let mut c = guard.alloc_from(&a).unwrap(); // Qᵀ·A = R
        let mut d = guard.alloc_from(&values(m * n, 6)).unwrap(); // Q·(Qᵀ·D) = D
        let [mut i1, mut i2, mut i3, mut i4] = [(); 4].map(|()| guard.solver_info().unwrap());
        stream
            .scope(|s| -> custack::Result<()> {
                let (mut fa, mut t) = (s.bind_mut(&mut da), s.bind_mut(&mut tau));
                plan.geqrf(s, &mut fa, &mut t, &mut i1)?;
                plan.ormqr(s, Transpose::Yes, &fa, &t, s.bind_mut(&mut c), &mut i2)?;
                let mut dd = s.bind_mut(&mut d);
                plan.ormqr(s, Transpose::Yes, &fa, &t, &mut dd, &mut i3)?;
                plan.ormqr(s, Transpose::No, &fa, &t, &mut dd, &mut i4)
            })
            .unwrap()
            .unwrap();
        for info in [&i1, &i2, &i3, &i4] {
            info.ensure_success().unwrap();
        }
        let f = da.to_vec().unwrap();
        let r: Vec<f64> = (0..n * n)
            .map(|k| {
                if k % n <= k / n {
                    f[k % n + (k / n) * m]
                } else {
                    0.0
                }
            })
            .collect();
        // RᵀR = AᵀA, whatever the signs of R's rows.
        let rt: Vec<f64> = (0..n * n).map(|k| r[(k / n) + (k % n) * n]).collect();
        let at: Vec<f64> = (0..m * n).map(|k| a[(k / n) + (k % n) * m]).collect();
        let rtr = mul(&rt, n, &r, n, (n, n, n));
        let ata = mul(&at, n, &a, m, (n, m, n));
        let err = norm(&rtr.iter().zip(&ata).map(|(p, q)| p - q).collect::<Vec<_>>());
        assert!(err <= 1e-12, "RᵀR − AᵀA: {err:e}");
        // Qᵀ·A is R on top, zero below.
        let qa = c.to_vec().unwrap();
        for j in 0..n {
            for i in 0..m {
                let want = if i < n { r[i + j * n] } else { 0.0 };
                assert!((qa[i + j * m] - want).abs() <= 1e-12, "QᵀA[{i},{j}]");
            }
        }
        let back = d.to_vec().unwrap();
        let err = norm(
            &back
                .iter()
                .zip(values(m * n, 6))
                .map(|(p, q)| p - q)
                .collect::<Vec<_>>(),
        );
        assert!(err <= 1e-12, "Q·Qᵀ·D − D: {err:e}");
    });
}

/// The `n × n` tridiagonal matrix (2 on the diagonal, −1 beside it), whose eigenvalues are
/// `2 − 2·cos(kπ/(n + 1))`, `k = 1..n`.
fn tridiagonal(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        a[i + i * n] = 2.0;
        if i + 1 < n {
            a[i + 1 + i * n] = -1.0;
            a[i + (i + 1) * n] = -1.0;
        }
    }
    let mut w: Vec<f64> = (1..=n)
        .map(|k| 2.0 - 2.0 * (k as f64 * std::f64::consts::PI / (n as f64 + 1.0)).cos())
        .collect();
    w.sort_by(f64::total_cmp);
    (a, w)
}

#[test]
#[ignore = "needs a CUDA device"]
fn eigenvalues_of_a_known_matrix_and_its_eigenvectors() {
    on_device(|guard, stream| {
        let n = 32;
        let (a, want) = tridiagonal(n);
        // Values only, in f32, from the upper triangle.
        let values_only = guard
            .eigen_plan::<f32>(Matrix::square(n), Fill::Upper, Vectors::No)
            .unwrap();
        let mut a32 = guard.alloc_from(&to::<f32>(&a)).unwrap();
        let mut w32 = guard.alloc_zeroed::<f32>(n).unwrap();
        let mut info = guard.solver_info().unwrap();
        stream
            .scope(|s| values_only.syevd(s, s.bind_mut(&mut a32), s.bind_mut(&mut w32), &mut info))
            .unwrap()
            .unwrap();
        info.ensure_success().unwrap();
        for (got, want) in from::<f32>(&w32.to_vec().unwrap()).iter().zip(&want) {
            assert!((got - want).abs() <= 1e-5, "{got} vs {want}");
        }
        // Values and vectors, in f64: A·v = λ·v for each.
        let with_vectors = guard
            .eigen_plan::<f64>(Matrix::square(n), Fill::Lower, Vectors::Yes)
            .unwrap();
        let mut da = guard.alloc_from(&a).unwrap();
        let mut w = guard.alloc_zeroed::<f64>(n).unwrap();
        stream
            .scope(|s| with_vectors.syevd(s, s.bind_mut(&mut da), s.bind_mut(&mut w), &mut info))
            .unwrap()
            .unwrap();
        assert_eq!(info.outcome().unwrap(), Info::Success);
        let (v, w) = (da.to_vec().unwrap(), w.to_vec().unwrap());
        for (got, want) in w.iter().zip(&want) {
            assert!((got - want).abs() <= 1e-12, "{got} vs {want}");
        }
        let av = mul(&a, n, &v, n, (n, n, n));
        for k in 0..n {
            for i in 0..n {
                assert!((av[i + k * n] - w[k] * v[i + k * n]).abs() <= 1e-12);
            }
        }
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn singular_values_and_the_full_decomposition() {
    on_device(|guard, stream| {
        // A 6 × 4 matrix whose columns are orthogonal (rows permuted, signs mixed): its singular
        // values are the columns' lengths.
        let (m, n) = (6, 4);
        let s_want = [5.0, 3.0, 2.0, 0.5];
        let rows = [3, 0, 5, 1];
        let mut a = vec![0.0; m * n];
        for j in 0..n {
            a[rows[j] + j * m] = if j % 2 == 0 { s_want[j] } else { -s_want[j] };
        }
        let plan = guard.svd_plan::<f64>(Matrix::new(m, n)).unwrap();
        let mut da = guard.alloc_from(&a).unwrap();
        let mut sv = guard.alloc_zeroed::<f64>(n).unwrap();
        let mut info = guard.solver_info().unwrap();
        stream
            .scope(|s| plan.gesvd(s, s.bind_mut(&mut da), s.bind_mut(&mut sv), &mut info))
            .unwrap()
            .unwrap();
        info.ensure_success().unwrap();
        for (got, want) in sv.to_vec().unwrap().iter().zip(s_want) {
            assert!((got - want).abs() <= 1e-12, "{got} vs {want}");
        }
        // The full decomposition of a random matrix, in f32: U·Σ·Vᵀ = A.
        let r = values(m * n, 7);
        let plan32 = guard.svd_plan::<f32>(Matrix::new(m, n)).unwrap();
        let mut da = guard.alloc_from(&to::<f32>(&r)).unwrap();
        let mut sv = guard.alloc_zeroed::<f32>(n).unwrap();
        let mut u = guard.alloc_zeroed::<f32>(m * m).unwrap();
        let mut vt = guard.alloc_zeroed::<f32>(n * n).unwrap();
        stream
            .scope(|s| {
                let (a, sv) = (s.bind_mut(&mut da), s.bind_mut(&mut sv));
                plan32.gesvd_vectors(s, a, sv, s.bind_mut(&mut u), s.bind_mut(&mut vt), &mut info)
            })
            .unwrap()
            .unwrap();
        info.ensure_success().unwrap();
        let (sv, u, vt) = (
            from::<f32>(&sv.to_vec().unwrap()),
            from::<f32>(&u.to_vec().unwrap()),
            from::<f32>(&vt.to_vec().unwrap()),
        );
        assert!(sv.windows(2).all(|w| w[0] >= w[1]), "{sv:?}");
        let mut us = vec![0.0; m * n];
        for j in 0..n {
            for i in 0..m {
                us[i + j * m] = u[i + j * m] * sv[j];
            }
        }
        let back = mul(&us, m, &vt, n, (m, n, n));
        let err = norm(&back.iter().zip(&r).map(|(p, q)| p - q).collect::<Vec<_>>());
        assert!(err <= 1e-5, "U·Σ·Vᵀ − A: {err:e}");
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_singular_and_a_non_spd_matrix_give_their_typed_errors() {
    on_device(|guard, stream| {
        // Rank 2 of 3: the third column is zero, so U(3,3) is exactly zero whatever the rounding
        // (a third column that is the sum of the first two leaves a rounding error there: on the
        // H100 cuSOLVER's getrf then answers success).
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 0.0, 0.0, 0.0];
        let lu = guard.lu_plan::<f64>(Matrix::square(3)).unwrap();
        let mut da = guard.alloc_from(&a).unwrap();
        let mut ipiv = guard.lu_pivots(Matrix::square(3)).unwrap();
        let mut info = guard.solver_info().unwrap();
        stream
            .scope(|s| {
                lu.getrf(
                    s,
                    s.bind_mut(&mut da),
                    &mut s.bind_pivots(&mut ipiv),
                    &mut info,
                )
            })
            .unwrap()
            .unwrap();
        assert_eq!(info.outcome().unwrap(), Info::Singular { pivot: 3 });
        assert_eq!(info.raw().unwrap(), 3);
        let e = info.ensure_success().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SingularMatrix);
        assert_eq!(
            e.detail(),
            Some("cusolverDnDgetrf: U(3,3) is exactly zero: the matrix is singular (info = 3)")
        );
        // Symmetric, not positive definite: its leading minor of order 2 is 1·1 − 2·2 < 0.
        let b = [1.0f32, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let chol = guard
            .cholesky_plan::<f32>(Matrix::square(3), Fill::Lower)
            .unwrap();
        let mut db = guard.alloc_from(&b).unwrap();
        stream
            .scope(|s| chol.potrf(s, s.bind_mut(&mut db), &mut info))
            .unwrap()
            .unwrap();
        assert_eq!(
            info.outcome().unwrap(),
            Info::NotPositiveDefinite { order: 2 }
        );
        let e = info.ensure_success().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotPositiveDefinite);
        assert!(e.detail().unwrap().starts_with("cusolverDnSpotrf: "), "{e}");
        // The same info, reused after its scope for a good matrix, says success again.
        let mut good = guard
            .alloc_from(&[4.0f32, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 4.0])
            .unwrap();
        stream
            .scope(|s| chol.potrf(s, s.bind_mut(&mut good), &mut info))
            .unwrap()
            .unwrap();
        info.ensure_success().unwrap();
        assert!(take_drop_errors().is_empty());
    });
}

/// Runs the call in a scope and returns its error, which must be a refusal before anything
/// was enqueued: the info it took says it was not written.
macro_rules! refused {
    ($stream:expr, $info:expr, |$s:ident, $i:ident| $call:expr) => {{
        let info: &mut SolverInfo<'_> = $info;
        let e = $stream
            .scope(|$s| {
                let $i = &mut *info;
                $call
            })
            .unwrap()
            .unwrap_err();
        assert!(info.outcome().is_err(), "{e}: the info was written");
        assert!(
            e.detail().unwrap().ends_with("; nothing was enqueued"),
            "{e}"
        );
        e
    }};
}

#[test]
#[ignore = "needs a CUDA device"]
fn refused_calls_enqueue_nothing() {
    on_device(|guard, stream| {
        let mut info = guard.solver_info().unwrap();
        assert!(info.outcome().is_err(), "no call took it yet");
        let marker = 5.0f64;
        let short = |len| vec![marker; len];
        let alloc = |v: Vec<f64>| guard.alloc_from(&v).unwrap();
        let (mut a8, mut a9, mut b2, mut b3) = (
            alloc(short(8)),
            alloc(short(9)),
            alloc(short(2)),
            alloc(short(3)),
        );
        let (mut p2, mut p3) = (
            guard.lu_pivots(Matrix::square(2)).unwrap(),
            guard.lu_pivots(Matrix::square(3)).unwrap(),
        );
        let kind_detail = |e: custack::Error| (e.kind(), e.detail().unwrap().to_owned());

        // LU: A shorter than 3 × 3, pivots of a 2 × 2 matrix.
        let lu = guard.lu_plan::<f64>(Matrix::square(3)).unwrap();
        let e = refused!(stream, &mut info, |s, i| {
            lu.getrf(s, s.bind_mut(&mut a8), &mut s.bind_pivots(&mut p3), i)
        });
        assert_eq!(
            kind_detail(e),
            (
                ErrorKind::BufferTooShort,
                "cusolverDnDgetrf: A holds 8 elements, the call reaches 9; nothing was enqueued"
                    .into()
            )
        );
        let e = refused!(stream, &mut info, |s, i| {
            lu.getrf(s, s.bind_mut(&mut a9), &mut s.bind_pivots(&mut p2), i)
        });
        let wrong_pivots = "pivots made for 2 rows (2 of them), the call's are 3 for 3 rows";
        assert!(e.detail().unwrap().contains(wrong_pivots), "{e}");
        // getrs: B with the wrong rows, B short, A short, pivots of another shape, a plan that
        // is not square.
        let e = refused!(stream, &mut info, |s, i| {
            lu.getrs(
                s,
                Transpose::No,
                s.bind(&a9),
                &s.bind_pivots(&mut p3),
                s.bind_mut(&mut b2),
                Matrix::new(2, 1),
                i,
            )
        });
        assert!(e.detail().unwrap().contains("B has 2 rows"), "{e}");
        let e = refused!(stream, &mut info, |s, i| {
            lu.getrs(
                s,
                Transpose::No,
                s.bind(&a9),
                &s.bind_pivots(&mut p3),
                s.bind_mut(&mut b2),
                Matrix::new(3, 1),
                i,
            )
        });
        assert!(
            e.detail()
                .unwrap()
                .contains("B holds 2 elements, the call reaches 3"),
            "{e}"
        );
        let e = refused!(stream, &mut info, |s, i| {
            lu.getrs(
                s,
                Transpose::No,
                s.bind(&a8),
                &s.bind_pivots(&mut p3),
                s.bind_mut(&mut b3),
                Matrix::new(3, 1),
                i,
            )
        });
        assert!(e.detail().unwrap().contains("A holds 8 elements"), "{e}");
        let e = refused!(stream, &mut info, |s, i| {
            lu.getrs(
                s,
                Transpose::No,
                s.bind(&a9),
                &s.bind_pivots(&mut p2),
                s.bind_mut(&mut b3),
                Matrix::new(3, 1),
                i,
            )
        });
        assert!(e.detail().unwrap().contains(wrong_pivots), "{e}");
        let wide = guard.lu_plan::<f64>(Matrix::new(2, 3)).unwrap();
        let e = refused!(stream, &mut info, |s, i| {
            wide.getrs(
                s,
                Transpose::No,
                s.bind(&a9),
                &s.bind_pivots(&mut p3),
                s.bind_mut(&mut b3),
                Matrix::new(2, 1),
                i,
            )
        });
        assert!(
            e.detail().unwrap().contains("A is 2 × 3, not square"),
            "{e}"
        );

        // Cholesky: A short; potrs with B's rows wrong, B short, A short.
        let chol = guard
            .cholesky_plan::<f64>(Matrix::square(3), Fill::Lower)
            .unwrap();
        let e = refused!(stream, &mut info, |s, i| {
            chol.potrf(s, s.bind_mut(&mut a8), i)
        });
        assert!(
            e.detail().unwrap().contains("cusolverDnDpotrf: A holds 8"),
            "{e}"
        );
        let e = refused!(stream, &mut info, |s, i| {
            chol.potrs(s, s.bind(&a9), s.bind_mut(&mut b3), Matrix::new(2, 1), i)
        });
        assert!(e.detail().unwrap().contains("B has 2 rows"), "{e}");
        let e = refused!(stream, &mut info, |s, i| {
            chol.potrs(s, s.bind(&a9), s.bind_mut(&mut b2), Matrix::new(3, 1), i)
        });
        assert!(e.detail().unwrap().contains("B holds 2"), "{e}");
        let e = refused!(stream, &mut info, |s, i| {
            chol.potrs(s, s.bind(&a8), s.bind_mut(&mut b3), Matrix::new(3, 1), i)
        });
        assert!(e.detail().unwrap().contains("A holds 8"), "{e}");

        // QR of 3 × 2 (k = 2), C of 3 × 1: A short, tau short, C short.
        let qr = guard
            .qr_plan::<f64>(Matrix::new(3, 2), Matrix::new(3, 1))
            .unwrap();
        let (mut t1, mut a5, tau2) = (alloc(short(1)), alloc(short(5)), alloc(short(2)));
        let e = refused!(stream, &mut info, |s, i| {
            qr.geqrf(s, s.bind_mut(&mut a5), s.bind_mut(&mut b2), i)
        });
        assert!(
            e.detail().unwrap().contains("cusolverDnDgeqrf: A holds 5"),
            "{e}"
        );
        let e = refused!(stream, &mut info, |s, i| {
            qr.geqrf(s, s.bind_mut(&mut a8), s.bind_mut(&mut t1), i)
        });
        assert!(e.detail().unwrap().contains("tau holds 1"), "{e}");
        let e = refused!(stream, &mut info, |s, i| {
            qr.ormqr(
                s,
                Transpose::Yes,
                s.bind(&a5),
                s.bind(&b2),
                s.bind_mut(&mut b3),
                i,
            )
        });
        assert!(e.detail().unwrap().contains("A holds 5"), "{e}");
        let e = refused!(stream, &mut info, |s, i| {
            qr.ormqr(
                s,
                Transpose::Yes,
                s.bind(&a8),
                s.bind(&t1),
                s.bind_mut(&mut b3),
                i,
            )
        });
        assert!(e.detail().unwrap().contains("tau holds 1"), "{e}");
        let e = refused!(stream, &mut info, |s, i| {
            qr.ormqr(
                s,
                Transpose::Yes,
                s.bind(&a8),
                s.bind(&tau2),
                s.bind_mut(&mut b2),
                i,
            )
        });
        assert!(e.detail().unwrap().contains("C holds 2"), "{e}");
        assert!(
            guard
                .qr_plan::<f64>(Matrix::new(3, 2), Matrix::new(2, 1))
                .is_err()
        );

        // syevd: A short, W short.
        let eig = guard
            .eigen_plan::<f64>(Matrix::square(3), Fill::Lower, Vectors::No)
            .unwrap();
        let e = refused!(stream, &mut info, |s, i| {
            eig.syevd(s, s.bind_mut(&mut a8), s.bind_mut(&mut b3), i)
        });
        assert!(e.detail().unwrap().contains("A holds 8"), "{e}");
        let e = refused!(stream, &mut info, |s, i| {
            eig.syevd(s, s.bind_mut(&mut a9), s.bind_mut(&mut b2), i)
        });
        assert!(e.detail().unwrap().contains("W holds 2"), "{e}");

        // gesvd of 3 × 2: A short, S short, U short, VT short; m < n refused at the plan.
        let svd = guard.svd_plan::<f64>(Matrix::new(3, 2)).unwrap();
        let mut a6 = alloc(short(6));
        let e = refused!(stream, &mut info, |s, i| {
            svd.gesvd(s, s.bind_mut(&mut a5), s.bind_mut(&mut b2), i)
        });
        assert!(e.detail().unwrap().contains("A holds 5"), "{e}");
        let e = refused!(stream, &mut info, |s, i| {
            svd.gesvd(s, s.bind_mut(&mut a6), s.bind_mut(&mut t1), i)
        });
        assert!(e.detail().unwrap().contains("S holds 1"), "{e}");
        let (mut u8_, mut vt3) = (alloc(short(8)), alloc(short(3)));
        let e = refused!(stream, &mut info, |s, i| {
            svd.gesvd_vectors(
                s,
                s.bind_mut(&mut a6),
                s.bind_mut(&mut b2),
                s.bind_mut(&mut u8_),
                s.bind_mut(&mut a9),
                i,
            )
        });
        assert!(e.detail().unwrap().contains("U holds 8"), "{e}");
        let e = refused!(stream, &mut info, |s, i| {
            svd.gesvd_vectors(
                s,
                s.bind_mut(&mut a6),
                s.bind_mut(&mut b2),
                s.bind_mut(&mut a9),
                s.bind_mut(&mut vt3),
                i,
            )
        });
        assert!(e.detail().unwrap().contains("VT holds 3"), "{e}");
        let e = guard.svd_plan::<f64>(Matrix::new(2, 3)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        // Plans refused before cuSOLVER is called: a leading dimension below the rows, no element.
        let e = guard.lu_plan::<f32>(Matrix::new(4, 4).ld(3)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        let e = guard
            .cholesky_plan::<f32>(Matrix::new(4, 3), Fill::Upper)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        let e = guard
            .eigen_plan::<f32>(Matrix::square(0), Fill::Upper, Vectors::Yes)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);

        // Nothing refused was written.
        for buf in [&a8, &a9, &b2, &b3, &a5, &t1, &a6, &u8_, &vt3] {
            assert!(buf.to_vec().unwrap().iter().all(|&v| v == marker));
        }
        assert!(take_drop_errors().is_empty());
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn calls_on_two_streams_are_ordered() {
    // Positive twin of ui-tests/cusolver/c34_solver_binding_of_outer_scope.rs: each stream's
    // scope binds its own matrix; the plan's calls, on two streams, share its workspace and
    // are ordered; the plan is then dropped while its guard lives.
    on_device(|guard, _| {
        let (s1, s2) = (guard.stream().unwrap(), guard.stream().unwrap());
        let n = 128;
        let a = dominant(n, 9);
        let plan = guard.lu_plan::<f64>(Matrix::square(n)).unwrap();
        let (mut x, mut y) = (guard.alloc_from(&a).unwrap(), guard.alloc_from(&a).unwrap());
        let (mut px, mut py) = (
            guard.lu_pivots(Matrix::square(n)).unwrap(),
            guard.lu_pivots(Matrix::square(n)).unwrap(),
        );
        let (mut ix, mut iy) = (guard.solver_info().unwrap(), guard.solver_info().unwrap());
        s1.scope(|o| {
            plan.getrf(o, o.bind_mut(&mut x), &mut o.bind_pivots(&mut px), &mut ix)?;
            s2.scope(|i| plan.getrf(i, i.bind_mut(&mut y), &mut i.bind_pivots(&mut py), &mut iy))?
        })
        .unwrap()
        .unwrap();
        ix.ensure_success().unwrap();
        iy.ensure_success().unwrap();
        assert_eq!(x.to_vec().unwrap(), y.to_vec().unwrap());
        assert_eq!(px.to_vec().unwrap(), py.to_vec().unwrap());
        assert!(plan.workspace_bytes() > 0);
        drop(plan);
        assert!(take_drop_errors().is_empty());
        println!("cuSOLVER {}", custack::solver::version().unwrap());
    });
}

/// `n × n`: twice the identity, with `-1` on the diagonal at `bad` (0-based) if any, so the
/// leading minor of order `bad + 1` is the first that is not positive definite.
fn diagonal(n: usize, bad: Option<usize>) -> Vec<f64> {
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        a[i + i * n] = if Some(i) == bad { -1.0 } else { 2.0 };
    }
    a
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_hundred_factorizations_read_back_with_one_copy() {
    // Positive twin of ui-tests/cusolver/c34_solver_info_batch_*.rs: 100 `potrf` of one scope
    // write their infos into one array, read back with one copy; each call's info is its own
    // (every third matrix is SPD, the others fail at a minor of an order set by their index).
    on_device(|guard, stream| {
        let (n, calls) = (8, 100);
        let bad = |i: usize| (i % 3 != 0).then_some(i % n);
        let plan = guard
            .cholesky_plan::<f64>(Matrix::square(n), Fill::Lower)
            .unwrap();
        let mut mats: Vec<_> = (0..calls)
            .map(|i| guard.alloc_from(&diagonal(n, bad(i))).unwrap())
            .collect();
        let mut infos = guard.solver_infos(calls).unwrap();
        assert_eq!(infos.read_backs(), 0);
        stream
            .scope(|s| -> custack::Result<()> {
                let batch = infos.open(s);
                for (i, m) in mats.iter_mut().enumerate() {
                    assert_eq!(batch.calls(), i);
                    plan.potrf(s, s.bind_mut(m), &batch)?;
                }
                Ok(())
            })
            .unwrap()
            .unwrap();
        assert_eq!(infos.len(), calls);
        assert_eq!(infos.read_backs(), 1, "one copy back for the whole scope");
        for i in 0..calls {
            assert_eq!(infos.call(i), Some("cusolverDnDpotrf"));
            let want = bad(i).map_or(Info::Success, |p| Info::NotPositiveDefinite {
                order: p + 1,
            });
            assert_eq!(infos.outcome(i).unwrap(), want, "call {i}");
        }
        let e = infos.ensure_success().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotPositiveDefinite);
        assert_eq!(
            e.detail(),
            Some(
                "cusolverDnDpotrf (call 1 of the scope): the leading minor of order 2 is not \
                 positive definite (info = 2)"
            )
        );
        // A second scope: a second copy, the infos of this scope only.
        stream
            .scope(|s| -> custack::Result<()> {
                let batch = infos.open(s);
                plan.potrf(s, s.bind_mut(&mut mats[0]), &batch)
            })
            .unwrap()
            .unwrap();
        assert_eq!((infos.len(), infos.read_backs()), (1, 2));
        infos.ensure_success().unwrap();
        assert!(infos.raw(1).is_err(), "slot 1 belongs to the last scope");
    });
}

/// A 3 × 3 LU test matrix: the dominant one of `seed`, or one whose third column is zero, so
/// that `U(3,3)` is exactly zero.
fn lu3(seed: u64, singular: bool) -> Vec<f64> {
    let mut a = dominant(3, seed);
    if singular {
        a[6..9].fill(0.0);
    }
    a
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_singular_matrix_in_the_middle_of_a_scope_is_reported_as_that_call() {
    on_device(|guard, stream| {
        let calls = 9;
        let plan = guard.lu_plan::<f64>(Matrix::square(3)).unwrap();
        let mut mats: Vec<_> = (0..calls)
            .map(|i| guard.alloc_from(&lu3(i as u64, i == 4)).unwrap())
            .collect();
        let mut pivots: Vec<_> = (0..calls)
            .map(|_| guard.lu_pivots(Matrix::square(3)).unwrap())
            .collect();
        let mut infos = guard.solver_infos(calls).unwrap();
        stream
            .scope(|s| -> custack::Result<()> {
                let batch = infos.open(s);
                for (m, p) in mats.iter_mut().zip(&mut pivots) {
                    plan.getrf(s, s.bind_mut(m), &mut s.bind_pivots(p), &batch)?;
                }
                Ok(())
            })
            .unwrap()
            .unwrap();
        for i in 0..calls {
            let want = if i == 4 {
                Info::Singular { pivot: 3 }
            } else {
                Info::Success
            };
            assert_eq!(infos.outcome(i).unwrap(), want, "call {i}");
        }
        assert_eq!(infos.raw(4).unwrap(), 3);
        let e = infos.ensure_success().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SingularMatrix);
        assert_eq!(
            e.detail(),
            Some(
                "cusolverDnDgetrf (call 4 of the scope): U(3,3) is exactly zero: the matrix is \
                 singular (info = 3)"
            )
        );
        // More calls than slots: the third is refused before cuSOLVER, the first two read.
        let mut fresh: Vec<_> = (0..3)
            .map(|i| guard.alloc_from(&lu3(10 + i, false)).unwrap())
            .collect();
        let mut two = guard.solver_infos(2).unwrap();
        let third = stream
            .scope(|s| -> custack::Result<()> {
                let batch = two.open(s);
                for (m, p) in fresh.iter_mut().zip(&mut pivots) {
                    plan.getrf(s, s.bind_mut(m), &mut s.bind_pivots(p), &batch)?;
                }
                Ok(())
            })
            .unwrap()
            .unwrap_err();
        assert_eq!(third.kind(), ErrorKind::BufferTooShort, "{third}");
        assert_eq!((two.len(), two.read_backs()), (2, 1));
        two.ensure_success().unwrap();
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_forgotten_batch_leaks_no_info_into_the_next_scope() {
    on_device(|guard, stream| {
        let plan = guard.lu_plan::<f64>(Matrix::square(3)).unwrap();
        let mut mats: Vec<_> = (0..3)
            .map(|_| guard.alloc_from(&lu3(0, true)).unwrap())
            .collect();
        let mut ipiv = guard.lu_pivots(Matrix::square(3)).unwrap();
        let mut infos = guard.solver_infos(3).unwrap();
        // Three singular matrices (info 3 on the GPU), their batch forgotten: no copy back.
        stream
            .scope(|s| -> custack::Result<()> {
                let batch = infos.open(s);
                let mut p = s.bind_pivots(&mut ipiv);
                for m in &mut mats {
                    plan.getrf(s, s.bind_mut(m), &mut p, &batch)?;
                }
                core::mem::forget(batch);
                Ok(())
            })
            .unwrap()
            .unwrap();
        assert_eq!((infos.len(), infos.read_backs()), (0, 0));
        let e = infos.ensure_success().unwrap_err();
        assert!(e.to_string().contains("never dropped"), "{e}");
        assert!(infos.raw(0).is_err());
        // The next scope: one good matrix; slot 0 is its info, slots 1 and 2 (written with 3 by
        // the forgotten scope's calls) are not this scope's and cannot be read.
        let mut good = guard.alloc_from(&lu3(5, false)).unwrap();
        stream
            .scope(|s| -> custack::Result<()> {
                let batch = infos.open(s);
                plan.getrf(
                    s,
                    s.bind_mut(&mut good),
                    &mut s.bind_pivots(&mut ipiv),
                    &batch,
                )
            })
            .unwrap()
            .unwrap();
        assert_eq!((infos.len(), infos.read_backs()), (1, 1));
        assert_eq!(infos.outcome(0).unwrap(), Info::Success);
        infos.ensure_success().unwrap();
        assert!(infos.raw(1).is_err() && infos.raw(2).is_err());
    });
}
