//! `custack::blas` on a real device: every call checked against the CPU, 16-bit GEMMs, a refused
//! shape enqueueing nothing and leaving the handle usable, the handle in a submission and
//! dropped with work pending. The positive twins of `ui-tests/cublas/`.
//!
//! Values are multiples of 1/8 in [-1, 1] (or small integers), so every product and partial
//! sum is exact in f32, f64, TF32 and (for the 16-bit inputs) in half and bfloat16 storage:
//! the GPU results must equal the CPU's exactly, in any summation order.
#![cfg(feature = "cublas")]
#![allow(clippy::float_cmp, reason = "the values are exact: multiples of 1/8")]
#![allow(
    clippy::many_single_char_names,
    reason = "BLAS's names: m, n, k, a, b, c, x, y"
)]

mod common;
use common::{context, skipped};
use custack::blas::{Batch, Bf16, F16, Gemm, Gemv};
use custack::prelude::*;
use custack::{ErrorKind, Stack, take_drop_errors};

/// A multiple of 1/8 in [-1, 1].
fn eighth(i: usize, mul: usize, add: usize) -> f64 {
    f64::from(((i * mul + add) % 17) as u8) / 8.0 - 1.0
}

fn values32(len: usize, mul: usize, add: usize) -> Vec<f32> {
    (0..len).map(|i| eighth(i, mul, add) as f32).collect()
}

fn values64(len: usize, mul: usize, add: usize) -> Vec<f64> {
    (0..len).map(|i| eighth(i, mul, add)).collect()
}

/// Column-major `C = alpha·op(A)·op(B) + beta·C` on the host, in f64.
#[allow(clippy::too_many_arguments)]
fn gemm_cpu(
    (m, n, k): (usize, usize, usize),
    (ta, tb): (bool, bool),
    alpha: f64,
    a: &[f64],
    lda: usize,
    b: &[f64],
    ldb: usize,
    beta: f64,
    c: &mut [f64],
    ldc: usize,
) {
    for j in 0..n {
        for i in 0..m {
            let mut sum = 0.0;
            for l in 0..k {
                let x = if ta { a[l + i * lda] } else { a[i + l * lda] };
                let y = if tb { b[j + l * ldb] } else { b[l + j * ldb] };
                sum += x * y;
            }
            c[i + j * ldc] = alpha * sum + beta * c[i + j * ldc];
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn axpy_dot_nrm2_match_the_cpu() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let blas = guard.blas().unwrap();
    let n = 1000;
    // f32: y = 0.5·x + y with x read backwards (incx -1) and y every second element.
    let x = values32(n, 7, 3);
    let y0 = values32(2 * n, 5, 11);
    let dx = guard.alloc_from(&x).unwrap();
    let mut dy = guard.alloc_from(&y0).unwrap();
    let mut dot = guard.alloc_zeroed::<f32>(1).unwrap();
    let mut norm = guard.alloc_zeroed::<f32>(1).unwrap();
    stream
        .scope(|s| -> custack::Result<()> {
            let (bx, mut by) = (s.bind(&dx), s.bind_mut(&mut dy));
            blas.axpy(s, n, 0.5f32, bx, -1, &mut by, 2)?;
            blas.dot(s, n, bx, 1, &by, 2, s.bind_mut(&mut dot))?;
            blas.nrm2(s, 4, bx, 1, s.bind_mut(&mut norm))
        })
        .unwrap()
        .unwrap();
    let mut y = y0.clone();
    for i in 0..n {
        y[2 * i] += 0.5 * x[n - 1 - i]; // incx < 0: element i of the vector is x[(n-1-i)·|incx|]
    }
    assert_eq!(dy.to_vec().unwrap(), y);
    let expected: f64 = (0..n).map(|i| f64::from(x[i]) * f64::from(y[2 * i])).sum();
    assert_eq!(f64::from(dot.to_vec().unwrap()[0]), expected);
    let sq: f32 = x[..4].iter().map(|v| v * v).sum();
    assert!((norm.to_vec().unwrap()[0] - sq.sqrt()).abs() <= 1e-6 * sq.sqrt());

    // f64, contiguous.
    let x = values64(n, 3, 1);
    let y0 = values64(n, 11, 2);
    let dx = guard.alloc_from(&x).unwrap();
    let mut dy = guard.alloc_from(&y0).unwrap();
    let mut r = guard.alloc_zeroed::<f64>(2).unwrap();
    stream
        .scope(|s| -> custack::Result<()> {
            let (bx, mut by, mut br) = (s.bind(&dx), s.bind_mut(&mut dy), s.bind_mut(&mut r));
            blas.axpy(s, n, -2.0f64, bx, 1, &mut by, 1)?;
            blas.dot(s, n, bx, 1, &by, 1, &mut br)?;
            blas.nrm2(s, n, &by, 1, &mut br) // overwrites r[0] after the dot, in stream order
        })
        .unwrap()
        .unwrap();
    let y: Vec<f64> = y0.iter().zip(&x).map(|(y, x)| y - 2.0 * x).collect();
    assert_eq!(dy.to_vec().unwrap(), y);
    let norm = y.iter().map(|v| v * v).sum::<f64>().sqrt();
    let got = r.to_vec().unwrap();
    assert!(
        (got[0] - norm).abs() <= 1e-12 * norm,
        "{} vs {norm}",
        got[0]
    );
    assert_eq!(got[1], 0.0, "only result[0] is written");
}

#[test]
#[ignore = "needs a CUDA device"]
fn gemv_matches_the_cpu_both_ways() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let blas = guard.blas().unwrap();
    let (m, n, lda) = (37, 23, 40);
    let a = values64(lda * n, 7, 1);
    let x = values64(m.max(n), 5, 3);
    let y0 = values64(m.max(n), 3, 8);
    for trans in [false, true] {
        let (xl, yl) = if trans { (m, n) } else { (n, m) };
        let mut y = y0[..yl].to_vec();
        for (i, yi) in y.iter_mut().enumerate() {
            let sum: f64 = (0..xl)
                .map(|l| {
                    let aij = if trans {
                        a[l + i * lda]
                    } else {
                        a[i + l * lda]
                    };
                    aij * x[l]
                })
                .sum();
            *yi = 0.5 * sum + 2.0 * *yi;
        }
        let shape = Gemv::new(m, n).lda(lda).alpha(0.5).beta(2.0);
        let shape = if trans { shape.transpose() } else { shape };
        // f64 and f32 alike.
        let (da, dx) = (
            guard.alloc_from(&a).unwrap(),
            guard.alloc_from(&x[..xl]).unwrap(),
        );
        let mut dy = guard.alloc_from(&y0[..yl]).unwrap();
        let a32: Vec<f32> = a.iter().map(|&v| v as f32).collect();
        let x32: Vec<f32> = x[..xl].iter().map(|&v| v as f32).collect();
        let y32: Vec<f32> = y0[..yl].iter().map(|&v| v as f32).collect();
        let (da32, dx32) = (
            guard.alloc_from(&a32).unwrap(),
            guard.alloc_from(&x32).unwrap(),
        );
        let mut dy32 = guard.alloc_from(&y32).unwrap();
        let shape32 = Gemv {
            alpha: 0.5f32,
            beta: 2.0f32,
            trans: shape.trans,
            m,
            n,
            lda,
            incx: 1,
            incy: 1,
        };
        stream
            .scope(|s| -> custack::Result<()> {
                blas.gemv(s, &shape, s.bind(&da), s.bind(&dx), s.bind_mut(&mut dy))?;
                blas.gemv(
                    s,
                    &shape32,
                    s.bind(&da32),
                    s.bind(&dx32),
                    s.bind_mut(&mut dy32),
                )
            })
            .unwrap()
            .unwrap();
        assert_eq!(dy.to_vec().unwrap(), y, "trans {trans}");
        let y32: Vec<f64> = dy32
            .to_vec()
            .unwrap()
            .iter()
            .map(|&v| f64::from(v))
            .collect();
        assert_eq!(y32, y, "f32, trans {trans}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gemm_f32_matches_the_cpu() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let blas = guard.blas().unwrap();
    let (m, n, k) = (67, 45, 129);
    for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
        let mut shape = Gemm::<f32>::new(m, n, k).alpha(0.5).beta(-1.0);
        if ta {
            shape = shape.transpose_a();
        }
        if tb {
            shape = shape.transpose_b();
        }
        // Padded leading dimensions.
        shape = shape.leading_dims(shape.lda + 3, shape.ldb + 1, m + 5);
        let a_cols = if ta { m } else { k };
        let b_cols = if tb { k } else { n };
        let a = values32(shape.lda * a_cols, 7, 3);
        let b = values32(shape.ldb * b_cols, 5, 11);
        let c0 = values32(shape.ldc * n, 3, 2);
        let (da, db) = (guard.alloc_from(&a).unwrap(), guard.alloc_from(&b).unwrap());
        let mut dc = guard.alloc_from(&c0).unwrap();
        stream
            .scope(|s| blas.gemm(s, &shape, s.bind(&da), s.bind(&db), s.bind_mut(&mut dc)))
            .unwrap()
            .unwrap();
        let to64 = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
        let mut c = to64(&c0);
        gemm_cpu(
            (m, n, k),
            (ta, tb),
            0.5,
            &to64(&a),
            shape.lda,
            &to64(&b),
            shape.ldb,
            -1.0,
            &mut c,
            shape.ldc,
        );
        // The padding rows of C (m..ldc) are untouched: the CPU copy keeps them too.
        assert_eq!(to64(&dc.to_vec().unwrap()), c, "transposes {ta} {tb}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gemm_f64_and_strided_batches_match_the_cpu() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let blas = guard.blas().unwrap();
    let (m, n, k, count) = (17, 9, 33, 5);
    let shape = Gemm::<f64>::new(m, n, k).transpose_b().alpha(2.0).beta(0.5);
    let batch = Batch::packed(&shape, count);
    let a = values64(batch.stride_a * count, 7, 3);
    let b = values64(batch.stride_b * count, 5, 1);
    let c0 = values64(batch.stride_c * count, 3, 4);
    let (da, db) = (guard.alloc_from(&a).unwrap(), guard.alloc_from(&b).unwrap());
    let mut dc = guard.alloc_from(&c0).unwrap();
    let mut single = guard.alloc_from(&c0[..batch.stride_c]).unwrap();
    stream
        .scope(|s| -> custack::Result<()> {
            let (ba, bb) = (s.bind(&da), s.bind(&db));
            blas.gemm_strided_batched(s, &shape, &batch, ba, bb, s.bind_mut(&mut dc))?;
            blas.gemm(s, &shape, ba, bb, s.bind_mut(&mut single))
        })
        .unwrap()
        .unwrap();
    let mut c = c0.clone();
    for i in 0..count {
        let (sa, sb, sc) = (i * batch.stride_a, i * batch.stride_b, i * batch.stride_c);
        gemm_cpu(
            (m, n, k),
            (false, true),
            2.0,
            &a[sa..],
            shape.lda,
            &b[sb..],
            shape.ldb,
            0.5,
            &mut c[sc..sc + batch.stride_c],
            shape.ldc,
        );
    }
    assert_eq!(dc.to_vec().unwrap(), c);
    assert_eq!(single.to_vec().unwrap(), c[..batch.stride_c]);
}

/// Runs a 16-bit GEMM; `None` (with a `SKIPPED:` line) only where the device has not the type.
fn gemm_ex_or_skip<A: custack::blas::HalfFloat + custack::blas::GemmExOutput<A>>(
    name: &str,
    from: fn(f32) -> A,
    to: fn(A) -> f32,
) -> Option<()> {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let blas = guard.blas().unwrap();
    let (m, n, k) = (64, 48, 32);
    let a32 = values32(m * k, 7, 3);
    let b32 = values32(k * n, 5, 11);
    let a: Vec<A> = a32.iter().map(|&v| from(v)).collect();
    let b: Vec<A> = b32.iter().map(|&v| from(v)).collect();
    assert!(
        a.iter().zip(&a32).all(|(h, &v)| to(*h) == v),
        "1/8 steps are exact in {name}"
    );
    let (da, db) = (guard.alloc_from(&a).unwrap(), guard.alloc_from(&b).unwrap());
    let mut c32 = guard.alloc_zeroed::<f32>(m * n).unwrap();
    let mut c16 = guard.alloc_zeroed::<A>(m * n).unwrap();
    let shape = Gemm::<f32>::new(m, n, k);
    let result = stream.scope(|s| -> custack::Result<()> {
        let (ba, bb) = (s.bind(&da), s.bind(&db));
        blas.gemm_ex(s, &shape, ba, bb, s.bind_mut(&mut c32))?;
        // Scaled by 1/64, every result is a multiple of 2^-12 in [-0.5, 0.5]: exact in half;
        // bfloat16 (8 significant bits) rounds it, by at most half a unit in the last place.
        blas.gemm_ex(s, &shape.alpha(1.0 / 64.0), ba, bb, s.bind_mut(&mut c16))
    });
    match result.unwrap() {
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::CublasNotSupported | ErrorKind::CublasArchMismatch
            ) =>
        {
            skipped(&format!(
                "gemm_ex {name}: SKIPPED: the device does not support it: {e}"
            ));
            return None;
        }
        other => other.unwrap(),
    }
    let mut expected = vec![0.0f64; m * n];
    let to64 = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
    gemm_cpu(
        (m, n, k),
        (false, false),
        1.0,
        &to64(&a32),
        m,
        &to64(&b32),
        k,
        0.0,
        &mut expected,
        m,
    );
    assert_eq!(to64(&c32.to_vec().unwrap()), expected, "{name} → f32");
    let got16: Vec<f64> = c16
        .to_vec()
        .unwrap()
        .into_iter()
        .map(|h| f64::from(to(h)))
        .collect();
    for (g, e) in got16.iter().zip(&expected) {
        let e = e / 64.0;
        // Exact where the storage can hold it; else within half a unit of the last place.
        assert!(
            (g - e).abs() <= e.abs() * 2f64.powi(-8) + 1e-12,
            "{name}: {g} vs {e}"
        );
    }
    Some(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn gemm_ex_f16_matches_the_cpu() {
    gemm_ex_or_skip("F16", F16::from_f32, F16::to_f32);
}

#[test]
#[ignore = "needs a CUDA device"]
fn gemm_ex_bf16_matches_the_cpu() {
    gemm_ex_or_skip("Bf16", Bf16::from_f32, Bf16::to_f32);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_refused_shape_enqueues_nothing_and_the_handle_stays_usable() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let blas = guard.blas().unwrap();
    let a = guard.alloc_from(&[1.0f32; 12]).unwrap();
    let b = guard.alloc_from(&[1.0f32; 10]).unwrap(); // 3×4 needs 12
    let mut c = guard.alloc_from(&[7.0f32; 16]).unwrap();
    let errors = stream
        .scope(|s| {
            let (ba, bb) = (s.bind(&a), s.bind(&b));
            let mut bc = s.bind_mut(&mut c);
            let short = blas
                .gemm(s, &Gemm::new(4, 4, 3), ba, bb, &mut bc)
                .unwrap_err();
            let bad_ld = blas
                .gemm(
                    s,
                    &Gemm::new(4, 4, 3).leading_dims(3, 3, 4),
                    ba,
                    ba,
                    &mut bc,
                )
                .unwrap_err();
            let zero_inc = blas.axpy(s, 4, 1.0f32, ba, 0, &mut bc, 1).unwrap_err();
            (short, bad_ld, zero_inc)
        })
        .unwrap();
    assert_eq!(errors.0.kind(), ErrorKind::BufferTooShort);
    assert_eq!(
        errors.0.detail(),
        Some("cublasSgemm_v2: b holds 10 elements, the call needs 12; nothing was enqueued")
    );
    assert_eq!(errors.1.kind(), ErrorKind::InvalidValue);
    assert_eq!(
        errors.1.detail(),
        Some("cublasSgemm_v2: lda 3 < m 4; nothing was enqueued")
    );
    assert_eq!(errors.2.kind(), ErrorKind::InvalidValue);
    // Nothing ran: C is as it was.
    assert_eq!(c.to_vec().unwrap(), [7.0; 16]);
    // The handle and the context still work.
    let mut c2 = guard.alloc_zeroed::<f32>(16).unwrap();
    let b12 = guard.alloc_from(&[1.0f32; 12]).unwrap();
    stream
        .scope(|s| {
            blas.gemm(
                s,
                &Gemm::new(4, 4, 3),
                s.bind(&a),
                s.bind(&b12),
                s.bind_mut(&mut c2),
            )
        })
        .unwrap()
        .unwrap();
    assert_eq!(c2.to_vec().unwrap(), [3.0; 16]);
    guard.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn handle_used_again_after_the_inner_guard_pops() {
    let device = common::device();
    let a = custack::Context::new(device, custack::ContextFlags::empty()).unwrap();
    let b = custack::Context::new(device, custack::ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard_a = stack.push(&a).unwrap();
    {
        let blas = guard_a.blas().unwrap();
        assert!(custack::blas::version().unwrap().major >= 12);
        blas.destroy().unwrap();
    } // destroyed before pushing: the push needs the guard exclusively
    guard_a
        .with_pushed(&b, |guard_b| {
            let blas_b = guard_b.blas()?;
            blas_b.destroy()
        })
        .unwrap()
        .unwrap();
    let blas = guard_a.blas().unwrap();
    let x = guard_a.alloc_from(&[3.0f64, 4.0]).unwrap();
    let mut r = guard_a.alloc_zeroed::<f64>(1).unwrap();
    guard_a
        .stream()
        .unwrap()
        .scope(|s| blas.nrm2(s, 2, s.bind(&x), 1, s.bind_mut(&mut r)))
        .unwrap()
        .unwrap();
    assert_eq!(r.to_vec().unwrap(), [5.0]);
    blas.destroy().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn handle_serves_submissions_and_two_streams_in_order() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let (s1, s2) = (guard.stream().unwrap(), guard.stream().unwrap());
    let blas = guard.blas().unwrap();
    let n = 1 << 16;
    // Two submissions on two streams with one handle: y1 = x + y1 on s1, y2 = 2·x + y2 on s2;
    // the handle orders them (they share its workspace), the results are exact.
    let payload = |y: f32| {
        (
            guard.alloc_from(&vec![0.25f32; n]).unwrap(),
            guard.alloc_from(&vec![y; n]).unwrap(),
        )
    };
    let p1 = s1
        .submit(payload(1.0), |s, (x, mut y)| {
            blas.axpy(s, n, 1.0f32, &x, 1, &mut y, 1)
        })
        .unwrap();
    let p2 = s2
        .submit(payload(2.0), |s, (x, mut y)| {
            blas.axpy(s, n, 2.0f32, &x, 1, &mut y, 1)
        })
        .unwrap();
    // Dropped with both submissions pending: it waits for its last call before freeing the
    // workspace.
    drop(blas);
    assert!(take_drop_errors().is_empty());
    assert_eq!(p1.wait().unwrap().1.to_vec().unwrap(), vec![1.25; n]);
    assert_eq!(p2.wait().unwrap().1.to_vec().unwrap(), vec![2.5; n]);
}

/// SM clock cycles in `ms` milliseconds at the device's peak clock (the kernel runs at least
/// that long).
fn cycles(ms: u64) -> u64 {
    let khz = common::device()
        .attribute(custack::DeviceAttribute::ClockRate)
        .unwrap();
    u64::try_from(khz).unwrap() * ms
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_call_on_a_new_stream_waits_for_the_last_call_on_a_destroyed_one() {
    // The handle's previous call is in a parked submission behind a 400 ms kernel, its stream
    // destroyed. A call on another stream must not run before it: when the new call's work is
    // complete, so is the kernel.
    //
    // Nothing else may wait for the kernel, or the test would prove nothing: everything is
    // allocated first, both streams are non-blocking (no implicit order with the legacy
    // stream), and cuBLAS's axpy kernel is loaded by a first call (a lazy load may wait for the
    // context's work). The test fails if the kernel is over before the new call is enqueued.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(include_str!("fixtures/spin.ptx")).unwrap();
    let spin = module.function("spin").unwrap();
    let blas = guard.blas().unwrap();
    let n = 1 << 10;
    let x = guard.alloc_from(&vec![1.0f32; n]).unwrap();
    let y = guard.alloc_from(&vec![2.0f32; n]).unwrap();
    let x2 = guard.alloc_from(&vec![1.0f32; n]).unwrap();
    let mut y2 = guard.alloc_from(&vec![0.5f32; n]).unwrap();
    let mut warm = guard.alloc_from(&vec![0.0f32; n]).unwrap();
    let spun = guard.event(custack::EventFlags::DISABLE_TIMING).unwrap();
    let done = guard.event(custack::EventFlags::DISABLE_TIMING).unwrap();
    let non_blocking = custack::StreamFlags::NON_BLOCKING;
    guard
        .stream_with(non_blocking, 0)
        .unwrap()
        .scope(|s| blas.axpy(s, n, 1.0f32, s.bind(&x2), 1, s.bind_mut(&mut warm), 1))
        .unwrap()
        .unwrap();
    let old = guard.stream_with(non_blocking, 0).unwrap();
    let (cycles, blas_ref, spun_ref) = (cycles(400), &blas, &spun);
    let pending = old
        .submit((x, y, spin), |s, (x, mut y, spin)| {
            // SAFETY: spin(unsigned long long cycles, unsigned* out) with a null `out` writes
            // nothing.
            unsafe {
                s.launch(
                    &spin,
                    custack::LaunchConfig::for_elements(1),
                    (cycles, 0u64),
                )
            }?;
            s.record(spun_ref)?;
            blas_ref.axpy(s, n, 1.0f32, &x, 1, &mut y, 1)
        })
        .unwrap();
    let parked = guard.park_submission(pending);
    // Made before the old stream is destroyed, so that it is another stream of the driver's
    // too (observed on driver 580: a stream created after the destruction gets the destroyed
    // one's handle, and its work then queues behind the old work whatever custack does).
    let new = guard.stream_with(non_blocking, 0).unwrap();
    drop(old);
    new.scope(|s| {
        blas.axpy(s, n, 2.0f32, s.bind(&x2), 1, s.bind_mut(&mut y2), 1)?;
        s.record(&done)?;
        assert!(
            !spun.is_complete()?,
            "the kernel was over before the call on the new stream was enqueued: something \
             else waited for it, and this test proves nothing"
        );
        while !done.is_complete()? {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(
            spun.is_complete()?,
            "the call on the new stream completed while the kernel before the handle's \
             previous call still ran"
        );
        Ok::<(), custack::Error>(())
    })
    .unwrap()
    .unwrap();
    let (_x, y, ()) = parked.wait().unwrap();
    assert_eq!(guard.attach(y).unwrap().to_vec().unwrap(), vec![3.0; n]);
    assert_eq!(y2.to_vec().unwrap(), vec![2.5; n]);
    drop(blas);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_handle_outlives_the_streams_it_was_used_on() {
    // Scopes on three streams, each destroyed before the next call and before the handle: the
    // handle keeps the stream of its last call set in cuBLAS until it needs another, and
    // neither a later call nor its destruction touches a destroyed one (compute-sanitizer
    // reports any API error this makes: `SANITIZE=1 bash .gpu/run.sh`).
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let blas = guard.blas().unwrap();
    let x = guard.alloc_from(&[3.0f32, 4.0]).unwrap();
    let mut r = guard.alloc_zeroed::<f32>(1).unwrap();
    for _ in 0..3 {
        let stream = guard.stream().unwrap();
        stream
            .scope(|s| blas.nrm2(s, 2, s.bind(&x), 1, s.bind_mut(&mut r)))
            .unwrap()
            .unwrap();
        stream.destroy().unwrap();
        assert_eq!(r.to_vec().unwrap(), [5.0]);
    }
    // The raw handle, handed out, makes the next call set the stream again.
    let raw = blas.as_raw();
    assert!(!raw.is_null());
    let stream = guard.stream().unwrap();
    let mut dot = guard.alloc_zeroed::<f32>(1).unwrap();
    stream
        .scope(|s| blas.dot(s, 2, s.bind(&x), 1, s.bind(&x), 1, s.bind_mut(&mut dot)))
        .unwrap()
        .unwrap();
    assert_eq!(dot.to_vec().unwrap(), [25.0]);
    drop(stream);
    blas.destroy().unwrap();
    assert!(take_drop_errors().is_empty());
}
