//! `custack::fft` on a real device: every kind of transform against a DFT computed on the CPU
//! in `f64`, in 1, 2 and 3 dimensions, batched in an advanced layout and in place; refused
//! shapes enqueueing nothing; a plan on two streams, in submissions and dropped with work
//! pending. The positive twins of `ui-tests/cufft/`.
//!
//! The tolerance: a transform of the wrong data, size or direction is wrong by about the size
//! of the values; rounding in an FFT of `N` points grows like `ε·log₂N`, and the CPU's naive DFT
//! in f64 rounds too, like `N·ε₆₄`, so each result must lie within
//! `8·(ε·(2 + log₂N) + N·ε₆₄)` of the largest value of the CPU's transform (ε of the precision;
//! for `f32` the second term is negligible, for `f64` it is the larger).
#![cfg(feature = "cufft")]
#![allow(
    clippy::cast_precision_loss,
    clippy::many_single_char_names,
    reason = "sizes as f64; the DFT's names: n, k, j, x, y"
)]

mod common;
use common::context;
use custack::fft::{C2c, C2r, Complex32, Complex64, Direction, Fft, Layout, R2c};
use custack::prelude::*;
use custack::{ErrorKind, Stack, take_drop_errors};

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

/// A complex value in f64, for the CPU's side.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct C(f64, f64);

/// The DFT of `x`, of sizes `dims` (row-major, the last fastest), with the exponent's `sign`.
fn dft(x: &[C], dims: &[usize], sign: f64) -> Vec<C> {
    let total: usize = dims.iter().product();
    let index = |mut i: usize| -> Vec<usize> {
        let mut out = vec![0; dims.len()];
        for d in (0..dims.len()).rev() {
            out[d] = i % dims[d];
            i /= dims[d];
        }
        out
    };
    (0..total)
        .map(|k| {
            let kk = index(k);
            let mut acc = C(0.0, 0.0);
            for (j, v) in x.iter().enumerate().take(total) {
                let jj = index(j);
                let phase: f64 = (0..dims.len())
                    .map(|d| (jj[d] * kk[d]) as f64 / dims[d] as f64)
                    .sum::<f64>()
                    * 2.0
                    * std::f64::consts::PI
                    * sign;
                let (s, c) = phase.sin_cos();
                acc.0 += v.0 * c - v.1 * s;
                acc.1 += v.0 * s + v.1 * c;
            }
            acc
        })
        .collect()
}

/// `got` against the CPU's `want`, within the tolerance of the module docs for `n` points and
/// the precision's `eps`.
fn close(what: &str, got: &[C], want: &[C], n: usize, eps: f64) {
    assert_eq!(got.len(), want.len(), "{what}");
    let scale = want
        .iter()
        .map(|c| c.0.abs().max(c.1.abs()))
        .fold(1.0, f64::max);
    let tol = 8.0 * (eps * (2.0 + (n as f64).log2()) + n as f64 * f64::EPSILON) * scale;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let err = (g.0 - w.0).abs().max((g.1 - w.1).abs());
        assert!(
            err <= tol,
            "{what}: element {i} is {g:?}, the CPU's {w:?} (off by {err}, tolerance {tol})"
        );
    }
}

fn c32(v: &[C]) -> Vec<Complex32> {
    v.iter()
        .map(|c| Complex32::new(c.0 as f32, c.1 as f32))
        .collect()
}
fn c64(v: &[C]) -> Vec<Complex64> {
    v.iter().map(|c| Complex64::new(c.0, c.1)).collect()
}
fn from32(v: &[Complex32]) -> Vec<C> {
    v.iter()
        .map(|c| C(f64::from(c.re), f64::from(c.im)))
        .collect()
}
fn from64(v: &[Complex64]) -> Vec<C> {
    v.iter().map(|c| C(c.re, c.im)).collect()
}
fn complex(len: usize, seed: u64) -> Vec<C> {
    let (re, im) = (values(len, seed), values(len, seed + 1000));
    re.into_iter().zip(im).map(|(a, b)| C(a, b)).collect()
}
/// The values f32 can hold exactly (so the CPU transforms what the GPU does).
fn rounded32(v: &[C]) -> Vec<C> {
    from32(&c32(v))
}

const EPS32: f64 = f32::EPSILON as f64;
const EPS64: f64 = f64::EPSILON;

#[test]
#[ignore = "needs a CUDA device"]
fn complex_transforms_match_the_cpu_both_ways_in_both_precisions() {
    // Positive twin of ui-tests/cufft/c25_fft_run_into_read_only_binding.rs: the output is
    // bound with `bind_mut`.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    eprintln!("cuFFT {}", custack::fft::version().unwrap());
    let stream = guard.stream().unwrap();
    // f32: 3 transforms of 64 points.
    let (n, batch) = (64, 3);
    let x = rounded32(&complex(n * batch, 1));
    let plan = guard
        .fft_plan::<C2c<f32>>(&Fft::new(&[n]).batch(batch))
        .unwrap();
    assert_eq!(
        (plan.input_len(), plan.output_len()),
        (n * batch, n * batch)
    );
    let input = guard.alloc_from(&c32(&x)).unwrap();
    let mut fwd = guard.alloc_zeroed::<Complex32>(n * batch).unwrap();
    let mut back = guard.alloc_zeroed::<Complex32>(n * batch).unwrap();
    stream
        .scope(|s| -> custack::Result<()> {
            let mut f = s.bind_mut(&mut fwd);
            plan.run(s, s.bind(&input), &mut f, Direction::Forward)?;
            plan.run(s, &f, s.bind_mut(&mut back), Direction::Inverse)
        })
        .unwrap()
        .unwrap();
    let (fwd, back) = (
        from32(&fwd.to_vec().unwrap()),
        from32(&back.to_vec().unwrap()),
    );
    for b in 0..batch {
        let r = b * n..(b + 1) * n;
        close(
            "C2C f32 forward",
            &fwd[r.clone()],
            &dft(&x[r.clone()], &[n], -1.0),
            n,
            EPS32,
        );
        let scaled: Vec<C> = x[r.clone()]
            .iter()
            .map(|c| C(c.0 * n as f64, c.1 * n as f64))
            .collect();
        close("C2C f32 round trip", &back[r], &scaled, n, EPS32);
    }
    // The out-of-place input is left as it was.
    assert_eq!(input.to_vec().unwrap(), c32(&x));
    // f64: 60 points (not a power of two), the inverse against the CPU too.
    let n = 60;
    let x = complex(n, 7);
    let plan = guard.fft_plan::<C2c<f64>>(&Fft::new(&[n])).unwrap();
    let input = guard.alloc_from(&c64(&x)).unwrap();
    let (mut f, mut i) = (
        guard.alloc_zeroed::<Complex64>(n).unwrap(),
        guard.alloc_zeroed::<Complex64>(n).unwrap(),
    );
    stream
        .scope(|s| -> custack::Result<()> {
            plan.run(s, s.bind(&input), s.bind_mut(&mut f), Direction::Forward)?;
            plan.run(s, s.bind(&input), s.bind_mut(&mut i), Direction::Inverse)
        })
        .unwrap()
        .unwrap();
    close(
        "Z2Z forward",
        &from64(&f.to_vec().unwrap()),
        &dft(&x, &[n], -1.0),
        n,
        EPS64,
    );
    close(
        "Z2Z inverse",
        &from64(&i.to_vec().unwrap()),
        &dft(&x, &[n], 1.0),
        n,
        EPS64,
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn real_transforms_keep_half_the_spectrum_and_come_back() {
    // Positive twin of ui-tests/cufft/c25_fft_c2r_input_read_only.rs: the inverse's input is
    // bound with `bind_mut`, as cuFFT may overwrite it.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    for n in [32usize, 45] {
        let real: Vec<f64> = values(n, n as u64)
            .iter()
            .map(|&v| f64::from(v as f32))
            .collect();
        let as_complex: Vec<C> = real.iter().map(|&r| C(r, 0.0)).collect();
        let want = dft(&as_complex, &[n], -1.0);
        let half = n / 2 + 1;
        let forward = guard.fft_plan::<R2c<f32>>(&Fft::new(&[n])).unwrap();
        let inverse = guard.fft_plan::<C2r<f32>>(&Fft::new(&[n])).unwrap();
        assert_eq!((forward.input_len(), forward.output_len()), (n, half));
        let reals: Vec<f32> = real.iter().map(|&r| r as f32).collect();
        let x = guard.alloc_from(&reals).unwrap();
        let mut spectrum = guard.alloc_zeroed::<Complex32>(half).unwrap();
        let mut back = guard.alloc_zeroed::<f32>(n).unwrap();
        stream
            .scope(|s| forward.run(s, s.bind(&x), s.bind_mut(&mut spectrum)))
            .unwrap()
            .unwrap();
        let got = from32(&spectrum.to_vec().unwrap());
        close("R2C", &got, &want[..half], n, EPS32);
        assert_eq!(
            x.to_vec().unwrap(),
            reals,
            "the R2C input is left as it was"
        );
        stream
            .scope(|s| inverse.run(s, s.bind_mut(&mut spectrum), s.bind_mut(&mut back)))
            .unwrap()
            .unwrap();
        let back: Vec<C> = back
            .to_vec()
            .unwrap()
            .iter()
            .map(|&v| C(f64::from(v), 0.0))
            .collect();
        let scaled: Vec<C> = real.iter().map(|&r| C(r * n as f64, 0.0)).collect();
        close("C2R", &back, &scaled, n, EPS32);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn two_and_three_dimensional_transforms_match_the_cpu() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    // C2C, f64, 8 × 6.
    let dims = [8, 6];
    let x = complex(48, 3);
    let plan = guard.fft_plan::<C2c<f64>>(&Fft::new(&dims)).unwrap();
    let input = guard.alloc_from(&c64(&x)).unwrap();
    let mut y = guard.alloc_zeroed::<Complex64>(48).unwrap();
    stream
        .scope(|s| plan.run(s, s.bind(&input), s.bind_mut(&mut y), Direction::Forward))
        .unwrap()
        .unwrap();
    close(
        "Z2Z 8×6",
        &from64(&y.to_vec().unwrap()),
        &dft(&x, &dims, -1.0),
        48,
        EPS64,
    );
    // C2C, f32, 4 × 3 × 5, inverse.
    let dims = [4, 3, 5];
    let x = rounded32(&complex(60, 4));
    let plan = guard.fft_plan::<C2c<f32>>(&Fft::new(&dims)).unwrap();
    let input = guard.alloc_from(&c32(&x)).unwrap();
    let mut y = guard.alloc_zeroed::<Complex32>(60).unwrap();
    stream
        .scope(|s| plan.run(s, s.bind(&input), s.bind_mut(&mut y), Direction::Inverse))
        .unwrap()
        .unwrap();
    close(
        "C2C 4×3×5",
        &from32(&y.to_vec().unwrap()),
        &dft(&x, &dims, 1.0),
        60,
        EPS32,
    );
    // R2C, f32, 6 × 8: the output keeps 5 of the last dimension's 8.
    let real: Vec<f32> = values(48, 5).iter().map(|&v| v as f32).collect();
    let full = dft(
        &real
            .iter()
            .map(|&r| C(f64::from(r), 0.0))
            .collect::<Vec<_>>(),
        &[6, 8],
        -1.0,
    );
    let want: Vec<C> = (0..6)
        .flat_map(|r| full[r * 8..r * 8 + 5].to_vec())
        .collect();
    let plan = guard.fft_plan::<R2c<f32>>(&Fft::new(&[6, 8])).unwrap();
    assert_eq!(plan.output_len(), 30);
    let input = guard.alloc_from(&real).unwrap();
    let mut y = guard.alloc_zeroed::<Complex32>(30).unwrap();
    stream
        .scope(|s| plan.run(s, s.bind(&input), s.bind_mut(&mut y)))
        .unwrap()
        .unwrap();
    close("R2C 6×8", &from32(&y.to_vec().unwrap()), &want, 48, EPS32);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_batch_in_an_interleaved_layout_matches_the_cpu() {
    // 4 transforms of 16 points whose j-th points lie together (stride 4, distance 1), into a
    // contiguous output with a gap of 3 between transforms (distance 19).
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let (n, batch) = (16, 4);
    let x = rounded32(&complex(n * batch, 9));
    let shape = Fft::new(&[n])
        .batch(batch)
        .input_layout(Layout::new(&[n], batch, 1))
        .output_layout(Layout::new(&[n], 1, n + 3));
    let plan = guard.fft_plan::<C2c<f32>>(&shape).unwrap();
    assert_eq!((plan.input_len(), plan.output_len()), (64, 3 * 19 + 16));
    let input = guard.alloc_from(&c32(&x)).unwrap();
    let marker = Complex32::new(7.0, 7.0);
    let mut y = guard.alloc_from(&vec![marker; plan.output_len()]).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| plan.run(s, s.bind(&input), s.bind_mut(&mut y), Direction::Forward))
        .unwrap()
        .unwrap();
    let y = y.to_vec().unwrap();
    for b in 0..batch {
        let column: Vec<C> = (0..n).map(|j| x[b + batch * j]).collect();
        let got = from32(&y[b * 19..b * 19 + n]);
        close("interleaved", &got, &dft(&column, &[n], -1.0), n, EPS32);
        if b + 1 < batch {
            // The gaps between transforms are not written.
            assert!(y[b * 19 + n..(b + 1) * 19].iter().all(|&v| v == marker));
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn in_place_real_transforms_use_the_padded_layout() {
    // 4 × 6 reals padded to rows of 8 = 2·(6/2 + 1); the forward leaves 4 × 4 complex values
    // in the same memory, the inverse brings 24·x back into the real positions.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let real: Vec<f32> = values(24, 11).iter().map(|&v| v as f32).collect();
    let mut padded = vec![0.0f32; 32];
    for r in 0..4 {
        padded[r * 8..r * 8 + 6].copy_from_slice(&real[r * 6..r * 6 + 6]);
    }
    let forward = guard
        .fft_plan::<R2c<f32>>(&Fft::new(&[4, 6]).in_place())
        .unwrap();
    let inverse = guard
        .fft_plan::<C2r<f32>>(&Fft::new(&[4, 6]).in_place())
        .unwrap();
    let mut data = guard.alloc_from(&padded).unwrap();
    stream
        .scope(|s| forward.run_in_place(s, s.bind_mut(&mut data)))
        .unwrap()
        .unwrap();
    let full = dft(
        &real
            .iter()
            .map(|&r| C(f64::from(r), 0.0))
            .collect::<Vec<_>>(),
        &[4, 6],
        -1.0,
    );
    let want: Vec<C> = (0..4)
        .flat_map(|r| full[r * 6..r * 6 + 4].to_vec())
        .collect();
    let floats = data.to_vec().unwrap();
    let got: Vec<C> = floats
        .chunks(2)
        .map(|p| C(f64::from(p[0]), f64::from(p[1])))
        .collect();
    close("R2C in place", &got, &want, 24, EPS32);
    // The same memory as complex values, for the inverse in place.
    let mut spectrum = guard.alloc_from(&c32(&got)).unwrap();
    stream
        .scope(|s| inverse.run_in_place(s, s.bind_mut(&mut spectrum)))
        .unwrap()
        .unwrap();
    let back = spectrum.to_vec().unwrap();
    let back_reals: Vec<f32> = back.iter().flat_map(|c| [c.re, c.im]).collect();
    let got: Vec<C> = (0..4)
        .flat_map(|r| back_reals[r * 8..r * 8 + 6].to_vec())
        .map(|v| C(f64::from(v), 0.0))
        .collect();
    let scaled: Vec<C> = real.iter().map(|&r| C(f64::from(r) * 24.0, 0.0)).collect();
    close("C2R in place", &got, &scaled, 24, EPS32);
}

#[test]
#[ignore = "needs a CUDA device"]
fn refused_shapes_enqueue_nothing() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let marker = Complex32::new(3.0, 3.0);
    let forward = guard.fft_plan::<R2c<f32>>(&Fft::new(&[16])).unwrap();
    let x = guard.alloc_from(&[1.0f32; 17]).unwrap();
    let mut short = guard.alloc_from(&[marker; 8]).unwrap();
    let e = stream
        .scope(|s| forward.run(s, s.bind(&x), s.bind_mut(&mut short)))
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferTooShort);
    assert_eq!(
        e.detail(),
        Some("cufftExecR2C: output holds 8 elements, the plan needs 9; nothing was enqueued")
    );
    assert_eq!(short.to_vec().unwrap(), [marker; 8]);
    // An input starting at an odd float is not aligned to the complex type.
    let mut out = guard.alloc_from(&[marker; 9]).unwrap();
    let tail = x.slice(1..).unwrap();
    let e = stream
        .scope(|s| forward.run(s, s.bind(&tail), s.bind_mut(&mut out)))
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert!(e.detail().unwrap().contains("input at 0x"), "{e}");
    // A plan made out of place, executed in place; a batch larger than the buffers hold.
    let mut data = guard.alloc_from(&[0.5f32; 64]).unwrap();
    let e = stream
        .scope(|s| forward.run_in_place(s, s.bind_mut(&mut data)))
        .unwrap()
        .unwrap_err();
    assert!(
        e.detail()
            .unwrap()
            .contains("the plan was made out of place"),
        "{e}"
    );
    let batched = guard
        .fft_plan::<R2c<f32>>(&Fft::new(&[16]).batch(2))
        .unwrap();
    let e = stream
        .scope(|s| batched.run(s, s.bind(&x), s.bind_mut(&mut out)))
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.detail(),
        Some("cufftExecR2C: input holds 17 elements, the plan needs 32; nothing was enqueued")
    );
    assert_eq!(out.to_vec().unwrap(), [marker; 9]);
    assert_eq!(data.to_vec().unwrap(), [0.5; 64]);
    // Refused plans are refused before cuFFT makes anything.
    let e = guard
        .fft_plan::<C2c<f64>>(&Fft::new(&[8, 8, 8, 8]))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn one_plan_serves_two_streams_and_submissions_and_drops_with_work_pending() {
    // Positive twin of ui-tests/cufft/c25_fft_plan_used_after_pop.rs: the plan is used, then
    // dropped, while its guard lives.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let (s1, s2) = (guard.stream().unwrap(), guard.stream().unwrap());
    let (n, batch) = (256, 8);
    let x = rounded32(&complex(n * batch, 21));
    let want: Vec<C> = (0..batch)
        .flat_map(|b| dft(&x[b * n..(b + 1) * n], &[n], -1.0))
        .collect();
    let plan = guard
        .fft_plan::<C2c<f32>>(&Fft::new(&[n]).batch(batch))
        .unwrap();
    // Nested scopes on two streams.
    let input = guard.alloc_from(&c32(&x)).unwrap();
    let (mut a, mut b) = (
        guard.alloc_zeroed::<Complex32>(n * batch).unwrap(),
        guard.alloc_zeroed::<Complex32>(n * batch).unwrap(),
    );
    s1.scope(|o| {
        plan.run(o, o.bind(&input), o.bind_mut(&mut a), Direction::Forward)?;
        s2.scope(|i| plan.run(i, i.bind(&input), i.bind_mut(&mut b), Direction::Forward))?
    })
    .unwrap()
    .unwrap();
    close("stream 1", &from32(&a.to_vec().unwrap()), &want, n, EPS32);
    close("stream 2", &from32(&b.to_vec().unwrap()), &want, n, EPS32);
    // Two submissions on two streams, then the plan dropped with both pending.
    let payload = || {
        (
            guard.alloc_from(&c32(&x)).unwrap(),
            guard.alloc_zeroed::<Complex32>(n * batch).unwrap(),
        )
    };
    let plan_ref = &plan;
    let p1 = s1
        .submit(payload(), |s, (i, mut o)| {
            plan_ref.run(s, &i, &mut o, Direction::Forward)
        })
        .unwrap();
    let p2 = s2
        .submit(payload(), |s, (i, mut o)| {
            plan_ref.run(s, &i, &mut o, Direction::Forward)
        })
        .unwrap();
    drop(plan);
    assert!(take_drop_errors().is_empty());
    close(
        "submission 1",
        &from32(&p1.wait().unwrap().1.to_vec().unwrap()),
        &want,
        n,
        EPS32,
    );
    close(
        "submission 2",
        &from32(&p2.wait().unwrap().1.to_vec().unwrap()),
        &want,
        n,
        EPS32,
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_plan_is_used_again_after_an_inner_guard_pops() {
    // Positive twin of ui-tests/cufft/c25_fft_plan_used_under_another_context.rs and
    // c25_fft_plan_not_send.rs: the plan stays on its thread, and a nested push of another
    // context ends before it is used again.
    let ctx = context();
    let other = context();
    let mut stack = Stack::new().unwrap();
    let mut guard = stack.push(&ctx).unwrap();
    guard
        .with_pushed(&other, |inner| {
            let plan = inner.fft_plan::<C2c<f32>>(&Fft::new(&[8]))?;
            let x = inner.alloc_from(&[Complex32::new(1.0, 0.0); 8])?;
            let mut y = inner.alloc_zeroed::<Complex32>(8)?;
            inner
                .stream()?
                .scope(|s| plan.run(s, s.bind(&x), s.bind_mut(&mut y), Direction::Forward))??;
            plan.destroy()
        })
        .unwrap()
        .unwrap();
    let plan = guard.fft_plan::<C2c<f32>>(&Fft::new(&[8])).unwrap();
    let x = guard.alloc_from(&[Complex32::new(1.0, 0.0); 8]).unwrap();
    let mut y = guard.alloc_zeroed::<Complex32>(8).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| plan.run(s, s.bind(&x), s.bind_mut(&mut y), Direction::Forward))
        .unwrap()
        .unwrap();
    assert_eq!(y.to_vec().unwrap()[0], Complex32::new(8.0, 0.0));
    plan.destroy().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_plan_outlives_the_streams_it_was_used_on() {
    // Executions on three streams, each destroyed before the next execution and before the
    // plan: the plan keeps the stream of its last execution set in cuFFT until it needs
    // another, and neither a later execution nor its destruction touches a destroyed one
    // (compute-sanitizer reports any API error this makes: `SANITIZE=1 bash .gpu/run.sh`).
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let n = 64;
    let x = rounded32(&complex(n, 5));
    let want = dft(&x, &[n], -1.0);
    let plan = guard.fft_plan::<C2c<f32>>(&Fft::new(&[n])).unwrap();
    let input = guard.alloc_from(&c32(&x)).unwrap();
    let mut out = guard.alloc_zeroed::<Complex32>(n).unwrap();
    for round in 0..3 {
        let stream = guard.stream().unwrap();
        out.fill_bytes(0).unwrap();
        stream
            .scope(|s| plan.run(s, s.bind(&input), s.bind_mut(&mut out), Direction::Forward))
            .unwrap()
            .unwrap();
        stream.destroy().unwrap();
        close(
            &format!("round {round}"),
            &from32(&out.to_vec().unwrap()),
            &want,
            n,
            EPS32,
        );
    }
    plan.destroy().unwrap();
    assert!(take_drop_errors().is_empty());
}
