//! cuRAND, cuFFT and cuBLASLt under one guard: a batch of noisy signals is made on the GPU,
//! low-pass filtered in the frequency domain, brought back, and fed to a dense layer (a
//! matmul with a bias and ReLU), then checked against the CPU. No `unsafe`.
//!
//! ```text
//! cargo run --release --features cufft,curand,cublaslt --example 23_signal_chain
//! ```
//!
//! Requires the features `cufft`, `curand` and `cublaslt`, under which the build script finds
//! the three libraries and links them into custack (`CUSTACK_CUFFT_LIB_DIR`,
//! `CUSTACK_CURAND_LIB_DIR`, `CUSTACK_CUBLASLT_LIB_DIR`, else the CUDA toolkit, else the
//! `nvidia-cufft`, `nvidia-curand` and `nvidia-cublas` Python wheels). No rpath is set, so the
//! loader must find them at run time (`LD_LIBRARY_PATH`, as for `11_cublas`).
//!
//! The chain, for 64 signals of 1024 samples:
//!
//! 1. noise: `Rng::normal` (Philox, seeded) fills the batch;
//! 2. spectrum: one batched real-to-complex plan, 513 bins a signal;
//! 3. low-pass: every bin from the 32nd on is zeroed (a view of each signal's high bins);
//! 4. back: one batched complex-to-real plan (which may overwrite its input: it takes the
//!    spectrum exclusively), giving 1024 × the filtered signal;
//! 5. features: `ReLU(W·x + b)` for 16 features, a cuBLASLt plan with a bias-and-ReLU epilogue.
//!
//! What it shows: three libraries' handles lent by one guard, each call on memory bound to a
//! scope (so nothing can be read or freed while the GPU works on it), every size and extent
//! checked before anything is enqueued, and the calls of each handle ordered on its stream.
#![allow(
    clippy::cast_precision_loss,
    reason = "sizes of at most a million, exact in f64"
)]

use custack::blas::Gemm;
use custack::blaslt::{Bias, Epilogue, Matmul};
use custack::fft::{C2r, Complex32, Fft, R2c};
use custack::rand::Pseudo;
use custack::{Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, EventFlags, Stack};
use std::process::ExitCode;

const SIGNALS: usize = 64;
const SAMPLES: usize = 1024;
const BINS: usize = SAMPLES / 2 + 1;
const KEPT: usize = 32;
const FEATURES: usize = 16;

/// The layer's weights, `FEATURES × SAMPLES` column-major: feature `f` correlates with a
/// cosine of frequency `f + 1`, scaled down.
fn weight(f: usize, j: usize) -> f32 {
    let phase = 2.0 * std::f64::consts::PI * ((f + 1) * j) as f64 / SAMPLES as f64;
    (phase.cos() / SAMPLES as f64) as f32
}

/// What the chain brings back: the noise, the filtered signals (scaled by `SAMPLES`), the
/// features, and the time it took in ms.
struct Output {
    noise: Vec<f32>,
    smooth: Vec<f32>,
    features: Vec<f32>,
    ms: f32,
}

/// The chain on the GPU.
fn run() -> custack::Result<Output> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    println!(
        "device 0: {}, cuRAND {}, cuFFT {}, cuBLASLt {}",
        device.name()?,
        custack::rand::version()?,
        custack::fft::version()?,
        custack::blaslt::version()?
    );
    let rng = guard.rng(Pseudo::Philox4x32_10, 2026)?;
    let shape = Fft::new(&[SAMPLES]).batch(SIGNALS);
    let forward = guard.fft_plan::<R2c<f32>>(&shape)?;
    let inverse = guard.fft_plan::<C2r<f32>>(&shape)?;
    let lt = guard.blas_lt()?;
    let layer = lt.matmul_plan::<f32, f32>(
        &Matmul::new(Gemm::new(FEATURES, SIGNALS, SAMPLES)).epilogue(Epilogue::ReluBias),
    )?;
    let w: Vec<f32> = (0..SAMPLES)
        .flat_map(|j| (0..FEATURES).map(move |f| weight(f, j)))
        .collect();
    let (w, bias) = (
        guard.alloc_from(&w)?,
        guard.alloc_from(&[0.01f32; FEATURES])?,
    );
    let mut noise = guard.alloc::<f32>(SIGNALS * SAMPLES)?;
    let mut spectrum = guard.alloc::<Complex32>(SIGNALS * BINS)?;
    let mut smooth = guard.alloc::<f32>(SIGNALS * SAMPLES)?;
    let mut features = guard.alloc::<f32>(FEATURES * SIGNALS)?;
    let (start, stop) = (
        guard.event(EventFlags::empty())?,
        guard.event(EventFlags::empty())?,
    );

    // 1, 2: noise and its spectrum.
    stream.scope(|s| -> custack::Result<()> {
        s.record(&start)?;
        let mut x = s.bind_mut(&mut noise);
        rng.normal(s, &mut x, 0.0, 1.0)?;
        forward.run(s, &x, s.bind_mut(&mut spectrum))
    })??;
    // 3: the low-pass, each signal's high bins zeroed (the scope above has waited).
    for signal in 0..SIGNALS {
        spectrum
            .slice_mut(signal * BINS + KEPT..(signal + 1) * BINS)?
            .fill_bytes(0)?;
    }
    // 4, 5: back to the time domain, and the layer.
    stream.scope(|s| -> custack::Result<()> {
        let mut y = s.bind_mut(&mut smooth);
        inverse.run(s, s.bind_mut(&mut spectrum), &mut y)?;
        layer.run_in_place(
            s,
            s.bind(&w),
            &y,
            s.bind_mut(&mut features),
            Bias(s.bind(&bias)),
        )?;
        s.record(&stop)
    })??;
    let ms = start.elapsed_ms(&stop)?;
    Ok(Output {
        noise: noise.to_vec()?,
        smooth: smooth.to_vec()?,
        features: features.to_vec()?,
        ms,
    })
}

/// The low-pass of one signal on the CPU, scaled by `SAMPLES` as cuFFT's unnormalized inverse
/// is: the DFT's first `KEPT` bins, and the real signal they make.
fn low_pass(x: &[f32]) -> Vec<f64> {
    let n = SAMPLES as f64;
    let bins: Vec<(f64, f64)> = (0..KEPT)
        .map(|k| {
            x.iter().enumerate().fold((0.0, 0.0), |(re, im), (j, &v)| {
                let phase = -2.0 * std::f64::consts::PI * (j * k) as f64 / n;
                (
                    re + f64::from(v) * phase.cos(),
                    im + f64::from(v) * phase.sin(),
                )
            })
        })
        .collect();
    (0..SAMPLES)
        .map(|j| {
            bins.iter().enumerate().fold(0.0, |acc, (k, &(re, im))| {
                let phase = 2.0 * std::f64::consts::PI * (j * k) as f64 / n;
                let term = re * phase.cos() - im * phase.sin();
                // Bin 0 once; the others stand for themselves and their mirror images.
                acc + if k == 0 { term } else { 2.0 * term }
            })
        })
        .collect()
}

fn main() -> ExitCode {
    let Output {
        noise,
        smooth,
        features,
        ms,
    } = match run() {
        Ok(out) => out,
        Err(e) => {
            eprintln!("23_signal_chain: no GPU work done: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The CPU's chain for every signal, in f64.
    let mut worst_signal = 0f64;
    let mut worst_feature = 0f64;
    for signal in 0..SIGNALS {
        let x = &noise[signal * SAMPLES..(signal + 1) * SAMPLES];
        let want = low_pass(x);
        let got = &smooth[signal * SAMPLES..(signal + 1) * SAMPLES];
        let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for (g, w) in got.iter().zip(&want) {
            worst_signal = worst_signal.max((f64::from(*g) - w).abs() / scale);
        }
        for f in 0..FEATURES {
            // From the GPU's filtered signal, so that each step is checked on its own.
            let dot: f64 = (0..SAMPLES)
                .map(|j| f64::from(weight(f, j)) * f64::from(got[j]))
                .sum();
            let want = (dot + 0.01).max(0.0);
            let g = f64::from(features[f + signal * FEATURES]);
            worst_feature = worst_feature.max((g - want).abs() / (1.0 + want.abs()));
        }
    }
    let energy = |v: &[f32]| v.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>();
    let kept = energy(&smooth) / (SAMPLES as f64 * SAMPLES as f64) / energy(&noise);
    println!(
        "23_signal_chain: {SIGNALS} signals of {SAMPLES} samples: noise (cuRAND) → spectrum \
         (cuFFT) → low-pass ({KEPT} of {BINS} bins) → back (cuFFT) → {FEATURES} features \
         (cuBLASLt, bias + ReLU) in {ms:.3} ms; {:.1}% of the energy kept; largest relative \
         error against the CPU: {worst_signal:.1e} (signals), {worst_feature:.1e} (features)",
        100.0 * kept
    );
    if worst_signal > 1e-4 || worst_feature > 1e-4 {
        eprintln!("23_signal_chain: the GPU's results differ from the CPU's");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
