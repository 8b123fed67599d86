//! `custack::blaslt` on a real device: matmuls against the CPU (transposes, leading dimensions,
//! batches, in place, every epilogue, 16-bit inputs), refused runs enqueueing nothing, a handle
//! without workspace, and a handle on two streams, in submissions and dropped with work
//! pending. The positive twins of `ui-tests/cublaslt/`.
//!
//! Values are multiples of 1/8 in [-1, 1], so every product and partial sum is exact in f32
//! (and the inputs in half and bfloat16): results without GELU must equal the CPU's exactly.
//! GELU is checked against the tanh approximation cuBLASLt documents, computed in f64, within
//! 1e-4·(1 + |x|): cuBLASLt computes it in f32 (a few ULPs), while the erf form differs from
//! the tanh form by up to about 1e-3.
#![cfg(feature = "cublaslt")]
#![allow(clippy::float_cmp, reason = "the values are exact: multiples of 1/8")]
#![allow(
    clippy::many_single_char_names,
    reason = "BLAS's names: m, n, k, a, b, c, d, x, y"
)]

mod common;
use common::{context, skipped};
use custack::blas::{Batch, Bf16, F16, Gemm};
use custack::blaslt::{Aux, Bias, BiasAux, Epilogue, Matmul};
use custack::prelude::*;
use custack::{ErrorKind, Stack, take_drop_errors};

/// A multiple of 1/8 in [-1, 1].
fn eighth(i: usize, mul: usize, add: usize) -> f64 {
    f64::from(((i * mul + add) % 17) as u8) / 8.0 - 1.0
}

fn values(len: usize, mul: usize, add: usize) -> Vec<f64> {
    (0..len).map(|i| eighth(i, mul, add)).collect()
}

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// Column-major `alpha·op(A)·op(B) + beta·C` on the host, in f64.
fn gemm_cpu(g: &Gemm<f32>, a: &[f64], b: &[f64], c: &[f64]) -> Vec<f64> {
    let ta = g.transa == custack::blas::Transpose::Yes;
    let tb = g.transb == custack::blas::Transpose::Yes;
    let mut out = c.to_vec();
    for j in 0..g.n {
        for i in 0..g.m {
            let mut sum = 0.0;
            for l in 0..g.k {
                let x = if ta {
                    a[l + i * g.lda]
                } else {
                    a[i + l * g.lda]
                };
                let y = if tb {
                    b[j + l * g.ldb]
                } else {
                    b[l + j * g.ldb]
                };
                sum += x * y;
            }
            out[i + j * g.ldc] = f64::from(g.alpha) * sum + f64::from(g.beta) * c[i + j * g.ldc];
        }
    }
    out
}

/// The tanh approximation of GELU.
fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044_715 * x * x * x)).tanh())
}

/// The epilogue on the CPU, over D's `m × n` elements (column-major, `ldc`).
fn epilogue_cpu(e: Epilogue, d: &mut [f64], bias: &[f64], m: usize, n: usize, ldc: usize) {
    for j in 0..n {
        for i in 0..m {
            let x = &mut d[i + j * ldc];
            if e.has_bias() {
                *x += bias[i];
            }
            match e {
                Epilogue::Relu | Epilogue::ReluBias => *x = x.max(0.0),
                Epilogue::Gelu | Epilogue::GeluBias | Epilogue::GeluAux | Epilogue::GeluAuxBias => {
                    *x = gelu(*x);
                }
                _ => {}
            }
        }
    }
}

fn near(what: &str, got: &[f32], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            (f64::from(g) - w).abs() <= 1e-4 * (1.0 + w.abs()),
            "{what}: element {i} is {g}, the CPU's {w}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn f32_matmuls_match_the_cpu_with_transposes_leading_dimensions_and_in_place() {
    // Positive twin of ui-tests/cublaslt/c25_blaslt_matmul_into_read_only_binding.rs: D is
    // bound with `bind_mut`.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    eprintln!("cuBLASLt {}", custack::blaslt::version().unwrap());
    let stream = guard.stream().unwrap();
    let lt = guard.blas_lt().unwrap();
    let shapes = [
        Gemm::new(5, 4, 3),
        Gemm::new(5, 4, 3).transpose_a(),
        Gemm::new(5, 4, 3).transpose_b().leading_dims(7, 6, 9),
        Gemm::new(33, 17, 40).transpose_a().transpose_b(),
        Gemm::new(6, 6, 6).alpha(0.5).beta(2.0),
    ];
    for (g, tf32) in shapes
        .into_iter()
        .zip([false, false, false, false, false])
        .chain([
            // Multiples of 1/8 are exact in TF32 too: the tensor cores must give the same result.
            (Gemm::new(33, 17, 40).transpose_a(), true),
        ])
    {
        let (a, b, c) = (
            values(
                g.lda
                    * if g.transa == custack::blas::Transpose::No {
                        g.k
                    } else {
                        g.m
                    },
                3,
                1,
            ),
            values(
                g.ldb
                    * if g.transb == custack::blas::Transpose::No {
                        g.n
                    } else {
                        g.k
                    },
                5,
                2,
            ),
            values(g.ldc * g.n, 7, 3),
        );
        let want = gemm_cpu(&g, &a, &b, &c);
        let matmul = if tf32 {
            Matmul::new(g).fast_tf32()
        } else {
            Matmul::new(g)
        };
        let plan = lt.matmul_plan::<f32, f32>(&matmul).unwrap();
        let (da, db, dc) = (
            guard.alloc_from(&f32s(&a)).unwrap(),
            guard.alloc_from(&f32s(&b)).unwrap(),
            guard.alloc_from(&f32s(&c)).unwrap(),
        );
        let mut dd = guard.alloc_zeroed::<f32>(c.len()).unwrap();
        let mut inplace = guard.alloc_from(&f32s(&c)).unwrap();
        stream
            .scope(|s| -> custack::Result<()> {
                plan.run(
                    s,
                    s.bind(&da),
                    s.bind(&db),
                    s.bind(&dc),
                    s.bind_mut(&mut dd),
                    (),
                )?;
                plan.run_in_place(s, s.bind(&da), s.bind(&db), s.bind_mut(&mut inplace), ())
            })
            .unwrap()
            .unwrap();
        // Within D's columns, the rows past m are C's (out of place: zero, not written).
        let got = dd.to_vec().unwrap();
        let inp = inplace.to_vec().unwrap();
        for j in 0..g.n {
            for i in 0..g.m {
                let at = i + j * g.ldc;
                assert_eq!(f64::from(got[at]), want[at], "{g:?} ({i}, {j})");
                assert_eq!(f64::from(inp[at]), want[at], "{g:?} in place ({i}, {j})");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_strided_batch_and_every_epilogue_match_the_cpu() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let lt = guard.blas_lt().unwrap();
    let g = Gemm::new(6, 5, 4);
    let batch = Batch::packed(&g, 3);
    let (a, b) = (values(24 * 3, 3, 0), values(20 * 3, 5, 1));
    let bias = values(6, 11, 4);
    for e in [
        Epilogue::None,
        Epilogue::Relu,
        Epilogue::Gelu,
        Epilogue::Bias,
        Epilogue::ReluBias,
        Epilogue::GeluBias,
        Epilogue::GeluAux,
        Epilogue::GeluAuxBias,
    ] {
        let plan = lt
            .matmul_plan::<f32, f32>(&Matmul::new(g).batched(batch).epilogue(e))
            .unwrap();
        let mut want = Vec::new();
        let mut pre = Vec::new();
        for i in 0..3 {
            let mut d = gemm_cpu(&g, &a[i * 24..], &b[i * 20..], &vec![0.0; 30]);
            // GELU's input, stored by the Aux epilogues (with the bias added).
            let mut p = d.clone();
            epilogue_cpu(
                if e.has_bias() {
                    Epilogue::Bias
                } else {
                    Epilogue::None
                },
                &mut p,
                &bias,
                6,
                5,
                6,
            );
            epilogue_cpu(e, &mut d, &bias, 6, 5, 6);
            want.extend(d);
            pre.extend(p);
        }
        let (da, db, dbias) = (
            guard.alloc_from(&f32s(&a)).unwrap(),
            guard.alloc_from(&f32s(&b)).unwrap(),
            guard.alloc_from(&f32s(&bias)).unwrap(),
        );
        let mut dd = guard.alloc_zeroed::<f32>(90).unwrap();
        // The auxiliary matrix: ld 8 (6 rounded up), 8·5 a batch.
        let mut aux = guard.alloc_zeroed::<f32>(120).unwrap();
        stream
            .scope(|s| {
                let (a, b, d) = (s.bind(&da), s.bind(&db), s.bind_mut(&mut dd));
                match (e.has_bias(), e.has_aux()) {
                    (false, false) => plan.run_in_place(s, a, b, d, ()),
                    (true, false) => plan.run_in_place(s, a, b, d, Bias(s.bind(&dbias))),
                    (false, true) => plan.run_in_place(s, a, b, d, Aux(s.bind_mut(&mut aux))),
                    (true, true) => {
                        plan.run_in_place(s, a, b, d, BiasAux(s.bind(&dbias), s.bind_mut(&mut aux)))
                    }
                }
            })
            .unwrap()
            .unwrap();
        let got = dd.to_vec().unwrap();
        if matches!(
            e,
            Epilogue::None | Epilogue::Relu | Epilogue::Bias | Epilogue::ReluBias
        ) {
            let want: Vec<f32> = f32s(&want);
            assert_eq!(got, want, "{e:?}");
        } else {
            near(&format!("{e:?}"), &got, &want);
        }
        if e.has_aux() {
            let aux = aux.to_vec().unwrap();
            for i in 0..3 {
                for col in 0..5 {
                    for row in 0..6 {
                        assert_eq!(
                            f64::from(aux[i * 40 + col * 8 + row]),
                            pre[i * 30 + col * 6 + row],
                            "{e:?} aux of batch {i} at ({row}, {col})"
                        );
                    }
                }
            }
        }
    }
}

/// A 16-bit matmul with a bias and ReLU, or a clear skip if the device refuses the types: `A`
/// inputs, `D` outputs (and bias). Every result is a multiple of 1/64 below 9 in magnitude:
/// exact in f32 and half (11 significant bits); bfloat16 (8 bits) rounds it, by at most half a
/// unit in its last place, `2^-9` of the value.
fn half_or_skip<A, D>(what: &str, to_a: fn(f64) -> A, to_d: fn(f64) -> D, from_d: fn(D) -> f64)
where
    A: custack::blaslt::MatmulInput,
    D: custack::blaslt::MatmulOutput<A>,
{
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let lt = guard.blas_lt().unwrap();
    let g = Gemm::new(16, 8, 8);
    let plan = match lt.matmul_plan::<A, D>(&Matmul::new(g).epilogue(Epilogue::ReluBias)) {
        Ok(p) => p,
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::CublasNotSupported | ErrorKind::CublasArchMismatch
            ) =>
        {
            skipped(&format!(
                "SKIPPED: {what}: this device or cuBLASLt refuses it: {e}"
            ));
            return;
        }
        Err(e) => panic!("{what}: {e}"),
    };
    let (a, b, bias) = (values(128, 3, 1), values(64, 5, 2), values(16, 7, 3));
    let mut want = gemm_cpu(&g, &a, &b, &vec![0.0; 128]);
    epilogue_cpu(Epilogue::ReluBias, &mut want, &bias, 16, 8, 16);
    let da = guard
        .alloc_from(&a.iter().map(|&x| to_a(x)).collect::<Vec<_>>())
        .unwrap();
    let db = guard
        .alloc_from(&b.iter().map(|&x| to_a(x)).collect::<Vec<_>>())
        .unwrap();
    let dbias = guard
        .alloc_from(&bias.iter().map(|&x| to_d(x)).collect::<Vec<_>>())
        .unwrap();
    let mut d = guard.alloc_from(&[to_d(0.0); 128]).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            plan.run_in_place(
                s,
                s.bind(&da),
                s.bind(&db),
                s.bind_mut(&mut d),
                Bias(s.bind(&dbias)),
            )
        })
        .unwrap()
        .unwrap();
    let exact = from_d(to_d(1.0 + 1.0 / 512.0)) != 1.0; // 10 significant bits or more
    for (i, (got, want)) in d
        .to_vec()
        .unwrap()
        .into_iter()
        .map(from_d)
        .zip(want)
        .enumerate()
    {
        let tol = if exact { 0.0 } else { want.abs() / 512.0 };
        assert!(
            (got - want).abs() <= tol,
            "{what}: element {i} is {got}, the CPU's {want}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn half_and_bfloat16_inputs_match_the_cpu() {
    let h = |x: f64| F16::from_f32(x as f32);
    let bf = |x: f64| Bf16::from_f32(x as f32);
    half_or_skip::<F16, F16>("F16 → F16", h, h, |v| f64::from(v.to_f32()));
    half_or_skip::<F16, f32>("F16 → f32", h, |x| x as f32, f64::from);
    half_or_skip::<Bf16, Bf16>("Bf16 → Bf16", bf, bf, |v| f64::from(v.to_f32()));
    half_or_skip::<Bf16, f32>("Bf16 → f32", bf, |x| x as f32, f64::from);
}

#[test]
#[ignore = "needs a CUDA device"]
fn refused_runs_enqueue_nothing() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let lt = guard.blas_lt().unwrap();
    let g = Gemm::new(4, 4, 4);
    let plan = lt
        .matmul_plan::<f32, f32>(&Matmul::new(g).epilogue(Epilogue::ReluBias))
        .unwrap();
    let x = guard.alloc_from(&[0.5f32; 64]).unwrap();
    let bias = guard.alloc_from(&[1.0f32; 3]).unwrap();
    let mut d = guard.alloc_from(&[9.0f32; 16]).unwrap();
    let mut short = guard.alloc_from(&[9.0f32; 15]).unwrap();
    let err = |r: custack::Result<custack::Result<()>>| r.unwrap().unwrap_err();
    let e = err(stream.scope(|s| {
        plan.run_in_place(
            s,
            s.bind(&x),
            s.bind(&x),
            s.bind_mut(&mut short),
            Bias(s.bind(&x)),
        )
    }));
    assert_eq!(e.kind(), ErrorKind::BufferTooShort);
    assert_eq!(
        e.detail(),
        Some("cublasLtMatmul: d holds 15 elements, the call needs 16; nothing was enqueued")
    );
    let e = err(stream.scope(|s| {
        plan.run_in_place(
            s,
            s.bind(&x),
            s.bind(&x),
            s.bind_mut(&mut d),
            Bias(s.bind(&bias)),
        )
    }));
    assert_eq!(
        e.detail(),
        Some("cublasLtMatmul: bias holds 3 elements, the call needs 4; nothing was enqueued")
    );
    let e =
        err(stream.scope(|s| plan.run_in_place(s, s.bind(&x), s.bind(&x), s.bind_mut(&mut d), ())));
    assert!(
        e.detail().unwrap().contains("needs a bias of 4 elements"),
        "{e}"
    );
    // A view one element in is not on the 256-byte boundary the algorithm was chosen for.
    let tail = x.slice(1..).unwrap();
    let e = err(stream.scope(|s| {
        plan.run_in_place(
            s,
            s.bind(&tail),
            s.bind(&x),
            s.bind_mut(&mut d),
            Bias(s.bind(&x)),
        )
    }));
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert!(e.detail().unwrap().contains("a at 0x"), "{e}");
    assert_eq!(d.to_vec().unwrap(), [9.0; 16]);
    assert_eq!(short.to_vec().unwrap(), [9.0; 15]);
    // Refused before cuBLASLt is asked.
    let e = lt
        .matmul_plan::<f32, f32>(&Matmul::new(g.leading_dims(3, 4, 4)))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    let e = lt
        .matmul_plan::<F16, F16>(&Matmul::new(g).fast_tf32())
        .unwrap_err();
    assert_eq!(
        e.detail(),
        Some("cublasLtMatmul: TF32 arithmetic is for f32 inputs; no plan was made")
    );
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn without_a_workspace_the_heuristic_chooses_an_algorithm_that_needs_none() {
    // The preference is the workspace the handle owns: with none, cuBLASLt proposes an
    // algorithm that needs none (or none at all, which the plan reports), never one it could
    // not run.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let lt = guard.blas_lt_with_workspace(0).unwrap();
    assert_eq!(lt.workspace_bytes(), 0);
    let g = Gemm::new(512, 512, 4096);
    match lt.matmul_plan::<f32, f32>(&Matmul::new(g)) {
        Ok(plan) => {
            assert_eq!(plan.algorithm_workspace(), 0);
            let (a, b) = (values(512 * 4096, 3, 1), values(4096 * 512, 5, 2));
            let want = gemm_cpu(&g, &a[..], &b[..], &vec![0.0; 512 * 512]);
            let (da, db) = (
                guard.alloc_from(&f32s(&a)).unwrap(),
                guard.alloc_from(&f32s(&b)).unwrap(),
            );
            let mut d = guard.alloc_zeroed::<f32>(512 * 512).unwrap();
            guard
                .stream()
                .unwrap()
                .scope(|s| plan.run_in_place(s, s.bind(&da), s.bind(&db), s.bind_mut(&mut d), ()))
                .unwrap()
                .unwrap();
            assert_eq!(d.to_vec().unwrap(), f32s(&want));
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::CublasNotSupported, "{e}");
            skipped(&format!("no workspace-free algorithm on this device: {e}"));
        }
    }
    // With the default workspace the same matmul may use some, never more than the handle has.
    let full = guard.blas_lt().unwrap();
    let plan = full.matmul_plan::<f32, f32>(&Matmul::new(g)).unwrap();
    assert!(plan.algorithm_workspace() <= full.workspace_bytes());
    eprintln!(
        "512 × 512 × 4096: the algorithm needs {} of {} bytes of workspace",
        plan.algorithm_workspace(),
        full.workspace_bytes()
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn one_handle_serves_two_streams_and_submissions_and_drops_with_work_pending() {
    // Positive twin of ui-tests/cublaslt/c25_blaslt_used_after_pop.rs and
    // c25_blaslt_plan_outlives_handle.rs: the plan is dropped before its handle, the handle
    // while its guard lives.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let (s1, s2) = (guard.stream().unwrap(), guard.stream().unwrap());
    let lt = guard.blas_lt().unwrap();
    let g = Gemm::new(64, 64, 64);
    let (a, b) = (values(4096, 3, 1), values(4096, 5, 2));
    let want = f32s(&gemm_cpu(&g, &a, &b, &vec![0.0; 4096]));
    let plan = lt.matmul_plan::<f32, f32>(&Matmul::new(g)).unwrap();
    let (da, db) = (
        guard.alloc_from(&f32s(&a)).unwrap(),
        guard.alloc_from(&f32s(&b)).unwrap(),
    );
    let (mut x, mut y) = (
        guard.alloc_zeroed::<f32>(4096).unwrap(),
        guard.alloc_zeroed::<f32>(4096).unwrap(),
    );
    s1.scope(|o| {
        plan.run_in_place(o, o.bind(&da), o.bind(&db), o.bind_mut(&mut x), ())?;
        s2.scope(|i| plan.run_in_place(i, i.bind(&da), i.bind(&db), i.bind_mut(&mut y), ()))?
    })
    .unwrap()
    .unwrap();
    assert_eq!(x.to_vec().unwrap(), want);
    assert_eq!(y.to_vec().unwrap(), want);
    let payload = || {
        (
            guard.alloc_from(&f32s(&a)).unwrap(),
            guard.alloc_from(&f32s(&b)).unwrap(),
            guard.alloc_zeroed::<f32>(4096).unwrap(),
        )
    };
    let plan_ref = &plan;
    let p1 = s1
        .submit(payload(), |s, (a, b, mut d)| {
            plan_ref.run_in_place(s, &a, &b, &mut d, ())
        })
        .unwrap();
    let p2 = s2
        .submit(payload(), |s, (a, b, mut d)| {
            plan_ref.run_in_place(s, &a, &b, &mut d, ())
        })
        .unwrap();
    drop(plan);
    drop(lt);
    assert!(take_drop_errors().is_empty());
    assert_eq!(p1.wait().unwrap().2.to_vec().unwrap(), want);
    assert_eq!(p2.wait().unwrap().2.to_vec().unwrap(), want);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_handle_is_used_again_after_an_inner_guard_pops() {
    // Positive twin of ui-tests/cublaslt/c25_blaslt_used_under_another_context.rs and
    // c25_blaslt_not_send.rs: the handle stays on its thread, and a nested push of another
    // context ends before it is used again.
    let ctx = context();
    let other = context();
    let mut stack = Stack::new().unwrap();
    let mut guard = stack.push(&ctx).unwrap();
    guard
        .with_pushed(&other, |inner| {
            let lt = inner.blas_lt()?;
            let plan = lt.matmul_plan::<f32, f32>(&Matmul::new(Gemm::new(2, 2, 2)))?;
            drop(plan);
            lt.destroy()
        })
        .unwrap()
        .unwrap();
    let lt = guard.blas_lt().unwrap();
    let plan = lt
        .matmul_plan::<f32, f32>(&Matmul::new(Gemm::new(2, 2, 1)))
        .unwrap();
    let (a, b) = (
        guard.alloc_from(&[1.0f32, 2.0]).unwrap(),
        guard.alloc_from(&[3.0f32, 4.0]).unwrap(),
    );
    let mut c = guard.alloc_zeroed::<f32>(4).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| plan.run_in_place(s, s.bind(&a), s.bind(&b), s.bind_mut(&mut c), ()))
        .unwrap()
        .unwrap();
    assert_eq!(c.to_vec().unwrap(), [3.0, 6.0, 4.0, 8.0]);
}
