//! `custack::rand` on a real device: every fill against what the distribution must give on the
//! CPU, the seed and the offset, the checks (lengths, orderings) agreeing with what cuRAND
//! refuses, the host generator giving the device generator's values, a refused call
//! enqueueing nothing, and a generator on two streams, in submissions and dropped with work
//! pending. The positive twins of `ui-tests/curand/`.
//!
//! The statistical checks use bounds of six standard errors, computed from `n` and the
//! distribution's moments: a correct generator fails one with a probability of about 2·10⁻⁹.
#![cfg(feature = "curand")]
#![allow(
    clippy::float_cmp,
    reason = "exact values where the sequence is compared"
)]
#![allow(clippy::cast_precision_loss, reason = "counts up to 2^20 as f64")]
#![allow(clippy::many_single_char_names, reason = "samples x, y, z; counts n")]

mod common;
use common::context;
use custack::ffi::curand::{curandOrdering_t, curandStatus_t};
use custack::prelude::*;
use custack::rand::{HostRng, Kind, Ordering, Pseudo, Quasi};
use custack::{ErrorKind, Stack, take_drop_errors};

const PSEUDO: [Pseudo; 5] = [
    Pseudo::Xorwow,
    Pseudo::Mrg32k3a,
    Pseudo::Mtgp32,
    Pseudo::Mt19937,
    Pseudo::Philox4x32_10,
];

/// The mean and the mean of squares of `v`.
fn moments(v: impl Iterator<Item = f64> + Clone) -> (f64, f64, usize) {
    let n = v.clone().count();
    let mean = v.clone().sum::<f64>() / n as f64;
    let sq = v.map(|x| x * x).sum::<f64>() / n as f64;
    (mean, sq, n)
}

/// `value` within six standard errors of `expected`, the standard error being
/// `sqrt(variance / n)`.
fn within(what: &str, value: f64, expected: f64, variance: f64, n: usize) {
    let bound = 6.0 * (variance / n as f64).sqrt();
    assert!(
        (value - expected).abs() <= bound,
        "{what}: {value} is not within {bound} of {expected}"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn uniform_values_are_in_zero_one_with_the_uniform_moments() {
    // Positive twin of ui-tests/curand/c25_rng_fills_read_only_binding.rs: a fill writes an
    // exclusive binding.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    eprintln!("cuRAND {}", custack::rand::version().unwrap());
    let stream = guard.stream().unwrap();
    let n = 1 << 20;
    for kind in PSEUDO {
        let rng = guard.rng(kind, 1234).unwrap();
        let mut x32 = guard.alloc::<f32>(n).unwrap();
        let mut x64 = guard.alloc::<f64>(n + 1).unwrap(); // any length
        stream
            .scope(|s| {
                rng.uniform(s, s.bind_mut(&mut x32))?;
                rng.uniform(s, s.bind_mut(&mut x64))
            })
            .unwrap()
            .unwrap();
        let (h32, h64) = (x32.to_vec().unwrap(), x64.to_vec().unwrap());
        assert!(h32.iter().all(|&x| x > 0.0 && x <= 1.0), "{kind:?}");
        assert!(h64.iter().all(|&x| x > 0.0 && x <= 1.0), "{kind:?}");
        // Uniform on (0, 1]: E x = 1/2, Var x = 1/12; E x² = 1/3, Var x² = 1/5 - 1/9 = 4/45.
        let (mean, sq, n32) = moments(h32.iter().map(|&x| f64::from(x)));
        within(&format!("{kind:?} f32 mean"), mean, 0.5, 1.0 / 12.0, n32);
        within(
            &format!("{kind:?} f32 E x²"),
            sq,
            1.0 / 3.0,
            4.0 / 45.0,
            n32,
        );
        let (mean, sq, n64) = moments(h64.iter().copied());
        within(&format!("{kind:?} f64 mean"), mean, 0.5, 1.0 / 12.0, n64);
        within(
            &format!("{kind:?} f64 E x²"),
            sq,
            1.0 / 3.0,
            4.0 / 45.0,
            n64,
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn normal_and_log_normal_values_have_their_moments() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let n = 1 << 20;
    let (mean, sd) = (2.0, 0.5);
    for kind in PSEUDO {
        let rng = guard.rng(kind, 99).unwrap();
        let mut x = guard.alloc::<f32>(n).unwrap();
        let mut y = guard.alloc::<f64>(n).unwrap();
        let mut z = guard.alloc::<f32>(n).unwrap();
        stream
            .scope(|s| {
                rng.normal(s, s.bind_mut(&mut x), mean as f32, sd as f32)?;
                rng.normal(s, s.bind_mut(&mut y), mean, sd)?;
                rng.log_normal(s, s.bind_mut(&mut z), mean as f32, sd as f32)
            })
            .unwrap()
            .unwrap();
        // Normal: E x = μ, Var x = σ²; the sample's E (x-μ)² = σ², of variance 2σ⁴.
        let check = |what: &str, v: Vec<f64>| {
            let (m, _, count) = moments(v.iter().copied());
            within(&format!("{kind:?} {what} mean"), m, mean, sd * sd, count);
            let (dev, _, _) = moments(v.iter().map(|x| (x - mean) * (x - mean)));
            within(
                &format!("{kind:?} {what} variance"),
                dev,
                sd * sd,
                2.0 * sd.powi(4),
                count,
            );
        };
        check(
            "normal f32",
            x.to_vec().unwrap().into_iter().map(f64::from).collect(),
        );
        check("normal f64", y.to_vec().unwrap());
        let z = z.to_vec().unwrap();
        assert!(
            z.iter().all(|&v| v > 0.0),
            "{kind:?}: a log-normal value ≤ 0"
        );
        check(
            "log of log-normal f32",
            z.into_iter().map(|v| f64::from(v).ln()).collect(),
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn poisson_counts_and_bits_have_their_moments() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let n = (1 << 20) + 3;
    let lambda = 4.0;
    let rng = guard.rng(Pseudo::Philox4x32_10, 5).unwrap();
    let mut counts = guard.alloc::<u32>(n).unwrap();
    let mut bits = guard.alloc::<u32>(n).unwrap();
    stream
        .scope(|s| {
            rng.poisson(s, s.bind_mut(&mut counts), lambda)?;
            rng.bits(s, s.bind_mut(&mut bits))
        })
        .unwrap()
        .unwrap();
    // Poisson: E k = λ, Var k = λ; the sample's E (k-λ)² = λ, of variance λ + 2λ².
    let counts = counts.to_vec().unwrap();
    let (m, _, count) = moments(counts.iter().map(|&k| f64::from(k)));
    within("Poisson mean", m, lambda, lambda, count);
    let (dev, _, _) = moments(counts.iter().map(|&k| (f64::from(k) - lambda).powi(2)));
    within(
        "Poisson variance",
        dev,
        lambda,
        lambda + 2.0 * lambda * lambda,
        count,
    );
    // Each of the 32 bits is 1 half of the time.
    let bits = bits.to_vec().unwrap();
    for b in 0..32 {
        let ones = bits.iter().filter(|&&v| v >> b & 1 == 1).count();
        within(
            &format!("bit {b}"),
            ones as f64 / bits.len() as f64,
            0.5,
            0.25,
            bits.len(),
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn sobol_points_fill_every_interval_exactly() {
    // The first 2^m points of a one-dimensional Sobol' sequence put exactly 2^(m-k) points in
    // each interval [i/2^k, (i+1)/2^k): 1024 points, 64 intervals of 16.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let sobol = guard.quasi_rng(Quasi::Sobol32, 1).unwrap();
    assert_eq!(sobol.kind(), Kind::Quasi(Quasi::Sobol32, 1));
    let mut x = guard.alloc::<f64>(1024).unwrap();
    stream
        .scope(|s| sobol.uniform(s, s.bind_mut(&mut x)))
        .unwrap()
        .unwrap();
    let mut bins = [0u32; 64];
    for v in x.to_vec().unwrap() {
        assert!(v > 0.0 && v <= 1.0);
        bins[((v * 64.0) as usize).min(63)] += 1;
    }
    assert_eq!(bins, [16; 64]);
    // Three dimensions, 64-bit: whole points only, 64-bit values from `bits64` only.
    let sobol64 = guard.quasi_rng(Quasi::ScrambledSobol64, 3).unwrap();
    let mut w = guard.alloc::<u64>(3 * 512).unwrap();
    stream
        .scope(|s| sobol64.bits64(s, s.bind_mut(&mut w)))
        .unwrap()
        .unwrap();
    let w = w.to_vec().unwrap();
    let high = w.iter().filter(|&&v| v >> 63 == 1).count();
    within(
        "64-bit high bit",
        high as f64 / w.len() as f64,
        0.5,
        0.25,
        w.len(),
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn the_seed_and_the_offset_fix_the_sequence() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let n = 4096;
    let fill = |kind: Pseudo, seed: u64, offset: Option<u64>, len: usize| -> Vec<u32> {
        let mut rng = guard.rng(kind, seed).unwrap();
        if let Some(o) = offset {
            rng.set_offset(o).unwrap();
        }
        let mut out = guard.alloc::<u32>(len).unwrap();
        stream
            .scope(|s| rng.bits(s, s.bind_mut(&mut out)))
            .unwrap()
            .unwrap();
        out.to_vec().unwrap()
    };
    for kind in PSEUDO {
        assert_eq!(fill(kind, 7, None, n), fill(kind, 7, None, n), "{kind:?}");
        assert_ne!(fill(kind, 7, None, n), fill(kind, 8, None, n), "{kind:?}");
    }
    // The offset skips ahead in the sequence: n values from offset n are values n..2n of the
    // sequence from offset 0.
    for kind in [Pseudo::Xorwow, Pseudo::Mrg32k3a, Pseudo::Philox4x32_10] {
        let whole = fill(kind, 11, Some(0), 2 * n);
        assert_eq!(fill(kind, 11, Some(n as u64), n), whole[n..], "{kind:?}");
    }
    // Consecutive calls continue the sequence.
    let rng = guard.rng(Pseudo::Philox4x32_10, 11).unwrap();
    let (mut a, mut b) = (
        guard.alloc::<u32>(n).unwrap(),
        guard.alloc::<u32>(n).unwrap(),
    );
    stream
        .scope(|s| {
            rng.bits(s, s.bind_mut(&mut a))?;
            rng.bits(s, s.bind_mut(&mut b))
        })
        .unwrap()
        .unwrap();
    let whole = fill(Pseudo::Philox4x32_10, 11, Some(0), 2 * n);
    assert_eq!(a.to_vec().unwrap(), whole[..n]);
    assert_eq!(b.to_vec().unwrap(), whole[n..]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn refused_calls_enqueue_nothing_and_agree_with_curand() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let sentinel = vec![7.0f32; 1001];
    let mut odd = guard.alloc_from(&sentinel).unwrap();
    let mut counts = guard.alloc_from(&[9u32; 10]).unwrap();
    let mut wide = guard.alloc_from(&[9u64; 10]).unwrap();
    let mut scratch = guard.alloc::<f32>(1001).unwrap();
    for kind in PSEUDO {
        let mut rng = guard.rng(kind, 3).unwrap();
        let refused = stream
            .scope(|s| rng.normal(s, s.bind_mut(&mut odd), 0.0, 1.0))
            .unwrap();
        // cuRAND itself refuses exactly what the check refuses: an odd count of normal values
        // from XORWOW or MRG32k3a (measured on cuRAND 10.4: the other three make any count).
        let raw = rng.as_raw();
        let status = stream
            .scope(|s| {
                let out = s.bind_mut(&mut scratch);
                // SAFETY: a live generator and the scope's live stream; its stream was
                // forgotten (`as_raw`), so it is set to the scope's here.
                let set = unsafe { custack::ffi::curand::curandSetStream(raw, s.as_raw()) };
                assert_eq!(
                    set,
                    custack::ffi::curand::curandStatus_t::CURAND_STATUS_SUCCESS
                );
                // SAFETY: `out` holds 1001 floats of this context, an exclusive binding of the
                // scope (alive until its stream is synchronized), and the generator is live.
                unsafe {
                    custack::ffi::curand::curandGenerateNormal(
                        raw,
                        out.device_ptr() as usize as *mut f32,
                        1001,
                        0.0,
                        1.0,
                    )
                }
            })
            .unwrap();
        let curand_refuses =
            status == custack::ffi::curand::curandStatus_t::CURAND_STATUS_LENGTH_NOT_MULTIPLE;
        assert_eq!(refused.is_err(), curand_refuses, "{kind:?}: {status:?}");
        if let Err(e) = refused {
            assert_eq!(e.kind(), ErrorKind::InvalidValue);
            assert_eq!(
                e.detail(),
                Some(
                    "curandGenerateNormal: n 1001 is odd; this generator makes normal values in \
                     pairs; nothing was enqueued"
                )
            );
        } else {
            assert_eq!(
                status,
                custack::ffi::curand::curandStatus_t::CURAND_STATUS_SUCCESS
            );
            // Refilled with the sentinel for the next kind.
            odd.copy_from_host(&sentinel).unwrap();
        }
        if !rng.kind().has_offset() {
            let e = rng.set_offset(5).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue);
            // SAFETY: a live generator; setting an offset only changes host-side state.
            let raw_status =
                unsafe { custack::ffi::curand::curandSetGeneratorOffset(rng.as_raw(), 5) };
            assert_eq!(
                raw_status,
                custack::ffi::curand::curandStatus_t::CURAND_STATUS_TYPE_ERROR,
                "{kind:?}"
            );
        }
        let e = stream
            .scope(|s| rng.bits64(s, s.bind_mut(&mut wide)))
            .unwrap()
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        let e = stream
            .scope(|s| rng.poisson(s, s.bind_mut(&mut counts), 0.0))
            .unwrap()
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
    }
    let mut quasi = guard.quasi_rng(Quasi::Sobol32, 3).unwrap();
    let e = stream
        .scope(|s| quasi.bits(s, s.bind_mut(&mut counts)))
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.detail(),
        Some(
            "curandGenerate: n 10 is not a multiple of the generator's 3 dimensions (a \
             quasi-random generator makes whole points); nothing was enqueued"
        )
    );
    assert_eq!(
        quasi.set_seed(1).unwrap_err().kind(),
        ErrorKind::InvalidValue
    );
    assert_eq!(
        guard.quasi_rng(Quasi::Sobol32, 0).unwrap_err().kind(),
        ErrorKind::InvalidValue
    );
    // Nothing was written by any refused call.
    assert_eq!(odd.to_vec().unwrap(), sentinel);
    assert_eq!(counts.to_vec().unwrap(), [9; 10]);
    assert_eq!(wide.to_vec().unwrap(), [9; 10]);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn one_generator_serves_two_streams_and_submissions_and_drops_with_work_pending() {
    // Positive twin of ui-tests/curand/c25_rng_used_after_pop.rs and
    // c25_rng_used_under_another_context.rs: the generator is used while its guard is the top.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let (s1, s2) = (guard.stream().unwrap(), guard.stream().unwrap());
    let n = 1 << 16;
    // Nested scopes on two streams: the calls run one after another, so they equal the same
    // calls on one stream of a generator with the same seed.
    let reference = guard.rng(Pseudo::Philox4x32_10, 77).unwrap();
    let (mut r1, mut r2) = (
        guard.alloc::<u32>(n).unwrap(),
        guard.alloc::<u32>(n).unwrap(),
    );
    s1.scope(|s| {
        reference.bits(s, s.bind_mut(&mut r1))?;
        reference.bits(s, s.bind_mut(&mut r2))
    })
    .unwrap()
    .unwrap();
    let rng = guard.rng(Pseudo::Philox4x32_10, 77).unwrap();
    let (mut a, mut b) = (
        guard.alloc::<u32>(n).unwrap(),
        guard.alloc::<u32>(n).unwrap(),
    );
    s1.scope(|o| {
        rng.bits(o, o.bind_mut(&mut a))?;
        s2.scope(|i| rng.bits(i, i.bind_mut(&mut b)))?
    })
    .unwrap()
    .unwrap();
    assert_eq!(a.to_vec().unwrap(), r1.to_vec().unwrap());
    assert_eq!(b.to_vec().unwrap(), r2.to_vec().unwrap());
    // Two submissions on two streams, then the generator dropped with both pending.
    let rng_ref = &rng;
    let p1 = s1
        .submit(guard.alloc::<f32>(n).unwrap(), |s, mut x| {
            rng_ref.uniform(s, &mut x)
        })
        .unwrap();
    let p2 = s2
        .submit(guard.alloc::<f32>(n).unwrap(), |s, mut x| {
            rng_ref.uniform(s, &mut x)
        })
        .unwrap();
    drop(rng);
    assert!(take_drop_errors().is_empty());
    let (x1, x2) = (
        p1.wait().unwrap().to_vec().unwrap(),
        p2.wait().unwrap().to_vec().unwrap(),
    );
    assert!(x1.iter().chain(&x2).all(|&v| v > 0.0 && v <= 1.0));
    assert_ne!(x1, x2, "the second call continued the sequence");
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_generator_is_used_again_after_an_inner_guard_pops() {
    // Positive twin of ui-tests/curand/c25_rng_not_send.rs: the generator stays on its thread,
    // and a nested push of another context ends before it is used again.
    let ctx = context();
    let other = context();
    let mut stack = Stack::new().unwrap();
    let mut guard = stack.push(&ctx).unwrap();
    guard
        .with_pushed(&other, |inner| {
            let rng = inner.rng(Pseudo::Xorwow, 1)?;
            let mut x = inner.alloc::<f32>(256)?;
            inner
                .stream()?
                .scope(|s| rng.uniform(s, s.bind_mut(&mut x)))??;
            rng.destroy()
        })
        .unwrap()
        .unwrap();
    let rng = guard.rng(Pseudo::Xorwow, 1).unwrap();
    let mut x = guard.alloc::<f32>(256).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| rng.uniform(s, s.bind_mut(&mut x)))
        .unwrap()
        .unwrap();
    assert!(x.to_vec().unwrap().iter().all(|&v| v > 0.0 && v <= 1.0));
    rng.destroy().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn mt19937_generators_on_four_threads_give_each_its_own_sequence() {
    // cuRAND's host API is not thread safe with MT19937 generators, even different ones:
    // custack serializes their calls process-wide. Four threads, each with its own generator
    // (two seeds, so two pairs must agree), create, fill and destroy at once, many times.
    let ctx = context();
    let n = 1 << 14;
    let run = |seed: u64| -> Vec<u32> {
        let mut stack = Stack::new().unwrap();
        let guard = stack.push(&ctx).unwrap();
        let stream = guard.stream().unwrap();
        let mut last = Vec::new();
        for _ in 0..8 {
            let rng = guard.rng(Pseudo::Mt19937, seed).unwrap();
            let mut out = guard.alloc::<u32>(n).unwrap();
            stream
                .scope(|s| rng.bits(s, s.bind_mut(&mut out)))
                .unwrap()
                .unwrap();
            rng.destroy().unwrap();
            let v = out.to_vec().unwrap();
            if !last.is_empty() {
                assert_eq!(
                    v, last,
                    "seed {seed}: a new generator gave another sequence"
                );
            }
            last = v;
        }
        last
    };
    let results: Vec<Vec<u32>> = std::thread::scope(|scope| {
        let handles: Vec<_> = [1u64, 2, 1, 2]
            .into_iter()
            .map(|seed| scope.spawn(move || run(seed)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(results[0], results[2]);
    assert_eq!(results[1], results[3]);
    assert_ne!(results[0], results[1]);
    // The same sequences as one thread alone.
    assert_eq!(run(1), results[0]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_generator_outlives_the_streams_it_was_used_on() {
    // Fills on three streams, each destroyed before the next fill and before the generator:
    // the generator keeps the stream of its last call set in cuRAND until it needs another, and
    // neither a later call nor its destruction touches a destroyed one (compute-sanitizer
    // reports any API error this makes: `SANITIZE=1 bash .gpu/run.sh`). The sequence goes on
    // across the streams as on one.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let n = 1024;
    let rng = guard.rng(Pseudo::Philox4x32_10, 99).unwrap();
    let mut got = Vec::new();
    for _ in 0..3 {
        let stream = guard.stream().unwrap();
        let mut out = guard.alloc::<u32>(n).unwrap();
        stream
            .scope(|s| rng.bits(s, s.bind_mut(&mut out)))
            .unwrap()
            .unwrap();
        stream.destroy().unwrap();
        got.extend(out.to_vec().unwrap());
    }
    rng.destroy().unwrap();
    assert!(take_drop_errors().is_empty());
    let one = guard.rng(Pseudo::Philox4x32_10, 99).unwrap();
    let mut whole = guard.alloc::<u32>(3 * n).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| one.bits(s, s.bind_mut(&mut whole)))
        .unwrap()
        .unwrap();
    assert_eq!(got, whole.to_vec().unwrap());
}

const ORDERINGS: [Ordering; 6] = [
    Ordering::PseudoBest,
    Ordering::PseudoDefault,
    Ordering::PseudoSeeded,
    Ordering::PseudoLegacy,
    Ordering::PseudoDynamic,
    Ordering::QuasiDefault,
];

/// cuRAND's value of an ordering, written out here to call cuRAND directly.
fn raw_ordering(o: Ordering) -> curandOrdering_t {
    match o {
        Ordering::PseudoBest => curandOrdering_t::CURAND_ORDERING_PSEUDO_BEST,
        Ordering::PseudoDefault => curandOrdering_t::CURAND_ORDERING_PSEUDO_DEFAULT,
        Ordering::PseudoSeeded => curandOrdering_t::CURAND_ORDERING_PSEUDO_SEEDED,
        Ordering::PseudoLegacy => curandOrdering_t::CURAND_ORDERING_PSEUDO_LEGACY,
        Ordering::PseudoDynamic => curandOrdering_t::CURAND_ORDERING_PSEUDO_DYNAMIC,
        Ordering::QuasiDefault => curandOrdering_t::CURAND_ORDERING_QUASI_DEFAULT,
        _ => unreachable!("an ordering this test does not know"),
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn orderings_custack_refuses_are_those_curand_refuses() {
    // Every kind, ordering and place (device, host): where custack sets the ordering, cuRAND
    // accepted it; where custack refuses, cuRAND itself answers CURAND_STATUS_OUT_OF_RANGE.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let kinds = PSEUDO.into_iter().map(Kind::Pseudo).chain(
        [
            Quasi::Sobol32,
            Quasi::ScrambledSobol32,
            Quasi::Sobol64,
            Quasi::ScrambledSobol64,
        ]
        .into_iter()
        .map(|q| Kind::Quasi(q, 1)),
    );
    let (mut set, mut refused) = (0, 0);
    for kind in kinds {
        for o in ORDERINGS {
            let mut device = match kind {
                Kind::Pseudo(p) => guard.rng(p, 1).unwrap(),
                Kind::Quasi(q, d) => guard.quasi_rng(q, d).unwrap(),
            };
            let mut host = match kind {
                Kind::Pseudo(p) => HostRng::pseudo(p, 1).unwrap(),
                Kind::Quasi(q, d) => HostRng::quasi(q, d).unwrap(),
            };
            for (place, result, raw) in [
                ("device", device.set_ordering(o), device.as_raw()),
                ("host", host.set_ordering(o), host.as_raw()),
            ] {
                match result {
                    Ok(()) => set += 1,
                    Err(e) => {
                        refused += 1;
                        assert_eq!(e.kind(), ErrorKind::InvalidValue, "{kind:?} {o:?} {place}");
                        // SAFETY: a live generator, no call of it running; an ordering only
                        // changes host-side state.
                        let status = unsafe {
                            custack::ffi::curand::curandSetGeneratorOrdering(raw, raw_ordering(o))
                        };
                        assert_eq!(
                            status,
                            curandStatus_t::CURAND_STATUS_OUT_OF_RANGE,
                            "{kind:?} {o:?} {place}: custack refused what cuRAND takes"
                        );
                    }
                }
            }
        }
    }
    eprintln!("{set} orderings set, {refused} refused as cuRAND refuses them");
    assert_eq!(set + refused, 9 * 6 * 2);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_host_generator_gives_the_device_generators_values() {
    // cuRAND's Host API Overview: the same setup gives the same sequence on the device and on
    // the host CPU. Bits and uniform values are compared exactly; normal values only against
    // their distribution (cuRAND documents slight differences there: the CPU's transcendental
    // functions are not the GPU's). Fixed seeds: the values, and so the outcome, are
    // deterministic.
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let n = 1 << 18;
    let mut cases = Vec::new();
    for kind in PSEUDO {
        for o in [
            Ordering::PseudoBest,
            Ordering::PseudoDefault,
            Ordering::PseudoSeeded,
            Ordering::PseudoLegacy,
        ] {
            cases.push((Kind::Pseudo(kind), o));
        }
    }
    cases.push((Kind::Quasi(Quasi::Sobol32, 1), Ordering::QuasiDefault));
    cases.push((
        Kind::Quasi(Quasi::ScrambledSobol32, 4),
        Ordering::QuasiDefault,
    ));
    let mut compared = 0;
    for (kind, o) in cases {
        let mut host = match kind {
            Kind::Pseudo(p) => HostRng::pseudo(p, 1234).unwrap(),
            Kind::Quasi(q, d) => HostRng::quasi(q, d).unwrap(),
        };
        if host.set_ordering(o).is_err() {
            // Not one the host takes (PseudoSeeded but for XORWOW, PseudoBest for MT19937).
            continue;
        }
        let mut device = match kind {
            Kind::Pseudo(p) => guard.rng(p, 1234).unwrap(),
            Kind::Quasi(q, d) => guard.quasi_rng(q, d).unwrap(),
        };
        device.set_ordering(o).unwrap();
        let (mut bits, mut uniform) = (
            guard.alloc::<u32>(n).unwrap(),
            guard.alloc::<f32>(n).unwrap(),
        );
        stream
            .scope(|s| {
                device.bits(s, s.bind_mut(&mut bits))?;
                device.uniform(s, s.bind_mut(&mut uniform))
            })
            .unwrap()
            .unwrap();
        let mut host_bits = vec![0_u32; n];
        let mut host_uniform = vec![-1.0_f32; n];
        let mut host_normal = vec![f64::NAN; n];
        host.bits(&mut host_bits).unwrap();
        host.uniform(&mut host_uniform).unwrap();
        host.normal(&mut host_normal, 2.0, 0.5).unwrap();
        assert!(
            bits.to_vec().unwrap() == host_bits,
            "{kind:?} {o:?}: bits differ"
        );
        assert!(
            uniform.to_vec().unwrap() == host_uniform,
            "{kind:?} {o:?}: uniform values differ"
        );
        compared += 1;
        // The host's own values: uniform in (0, 1] with the uniform's mean; normal with its
        // mean and variance (six standard errors, as above).
        assert!(
            host_uniform.iter().all(|&x| x > 0.0 && x <= 1.0),
            "{kind:?}"
        );
        let (mean, _, count) = moments(host_uniform.iter().map(|&x| f64::from(x)));
        within(
            &format!("{kind:?} {o:?} host uniform mean"),
            mean,
            0.5,
            1.0 / 12.0,
            count,
        );
        let (mean, _, count) = moments(host_normal.iter().copied());
        within(
            &format!("{kind:?} {o:?} host normal mean"),
            mean,
            2.0,
            0.25,
            count,
        );
        let (var, _, _) = moments(host_normal.iter().map(|x| (x - 2.0) * (x - 2.0)));
        within(
            &format!("{kind:?} {o:?} host normal variance"),
            var,
            0.25,
            2.0 * 0.5_f64.powi(4),
            count,
        );
    }
    // 5 kinds × default and legacy, best for all but MT19937, seeded for XORWOW; two Sobol'.
    assert_eq!(compared, 10 + 4 + 1 + 2);
    assert!(take_drop_errors().is_empty());
}

/// An odd count of normal values from the device generators that take one (Philox, MTGP32,
/// MT19937: not in pairs, `Kind::normals_in_pairs`) writes exactly that many: the elements
/// around the binding, in the same allocation, keep their sentinel, for counts of every
/// remainder by 4 and bindings starting at every offset by 4 (cuRAND writes normals in pairs or
/// fours internally). The host generators' twin: `rand::host`'s unit test.
#[test]
#[ignore = "needs a CUDA device"]
fn an_odd_count_of_normals_writes_nothing_past_its_binding() {
    use custack::DeviceMemoryMut;
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    for kind in [Pseudo::Philox4x32_10, Pseudo::Mtgp32, Pseudo::Mt19937] {
        let rng = guard.rng(kind, 11).unwrap();
        for start in 0..4 {
            for n in [1usize, 3, 5, 999, 1001, 1003] {
                let len = start + n + 8;
                let mut buf = guard.alloc_from(&vec![1.0e30_f32; len]).unwrap();
                let mut dbuf = guard.alloc_from(&vec![1.0e300_f64; len]).unwrap();
                let mut part = buf.slice_mut(start..start + n).unwrap();
                let mut dpart = dbuf.slice_mut(start..start + n).unwrap();
                stream
                    .scope(|s| {
                        rng.normal(s, s.bind_mut(&mut part), 0.0, 1.0)?;
                        rng.normal(s, s.bind_mut(&mut dpart), 0.0, 1.0)
                    })
                    .unwrap()
                    .unwrap();
                let v = buf.to_vec().unwrap();
                let d = dbuf.to_vec().unwrap();
                assert!(
                    v[start..start + n]
                        .iter()
                        .all(|&x| x.to_bits() != 1.0e30_f32.to_bits()),
                    "{kind:?}: every value written"
                );
                assert!(
                    v[..start]
                        .iter()
                        .chain(&v[start + n..])
                        .all(|&x| x.to_bits() == 1.0e30_f32.to_bits()),
                    "{kind:?}: {n} normals at {start} wrote outside their binding"
                );
                assert!(
                    d[..start]
                        .iter()
                        .chain(&d[start + n..])
                        .all(|&x| x.to_bits() == 1.0e300_f64.to_bits()),
                    "{kind:?}: {n} double normals at {start} wrote outside their binding"
                );
            }
        }
    }
}
