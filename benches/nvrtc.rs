//! NVRTC compile time: `Program::compile` against the raw NVRTC calls it makes, in one process.
//!
//! ```text
//! cargo bench -p custack-benches --features nvrtc --bench nvrtc  # no GPU: NVRTC runs on the CPU
//! ```
//!
//! The program is `examples/kernels/clock.cu` (the kernel of `examples/18_nvrtc_clock.rs`),
//! compiled for `sm_80` (a cubin and, where NVRTC emits it, PTX). custack: `Program::new` and
//! `compile` (create, compile, log, PTX, cubin, destroy, the version). Raw: the same calls
//! through `custack::ffi::nvrtc`: `nvrtcCreateProgram`, `nvrtcCompileProgram`, the log, PTX and
//! cubin sizes and copies, `nvrtcDestroyProgram`. Alternating order after a warm-up of each;
//! reported: the median over `CUSTACK_NVRTC_REPS` (default 20), the spread (p10–p90 ÷ 2 of the
//! median) and custack's median over raw's. Nothing asserts a time. Without `--bench` (as
//! `cargo test --all-targets` runs it) it prints how to run it and exits.
#![allow(clippy::cast_precision_loss, clippy::multiple_unsafe_ops_per_block)]

use core::ffi::c_char;
use custack::ComputeCapability;
use custack::ffi::nvrtc as ffi;
use custack::nvrtc::{Arch, Options, Program};
use std::ffi::CString;
use std::time::Instant;

const SOURCE: &str = include_str!("../examples/kernels/clock.cu");

fn stats(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let median = at(0.5);
    (median, (at(0.9) - at(0.1)) / 2.0 / median)
}

fn ok(r: ffi::nvrtcResult, what: &str) {
    assert!(r == ffi::nvrtcResult::NVRTC_SUCCESS, "{what}: {r:?}");
}

/// The raw calls: returns the cubin's length.
fn raw(source: &CString, name: &CString, option: &CString) -> usize {
    let mut program = core::ptr::null_mut();
    let options: [*const c_char; 1] = [option.as_ptr()];
    let (mut log, mut ptx, mut cubin) = (0usize, 0usize, 0usize);
    // SAFETY: the NVRTC calls in order, on a live program, with valid pointers and buffers of
    // the sizes NVRTC reports.
    unsafe {
        ok(
            ffi::nvrtcCreateProgram(
                &raw mut program,
                source.as_ptr(),
                name.as_ptr(),
                0,
                core::ptr::null(),
                core::ptr::null(),
            ),
            "create",
        );
        ok(
            ffi::nvrtcCompileProgram(program, 1, options.as_ptr()),
            "compile",
        );
        ok(
            ffi::nvrtcGetProgramLogSize(program, &raw mut log),
            "log size",
        );
        let mut text = vec![0u8; log];
        ok(
            ffi::nvrtcGetProgramLog(program, text.as_mut_ptr().cast()),
            "log",
        );
        let r = ffi::nvrtcGetPTXSize(program, &raw mut ptx);
        if r == ffi::nvrtcResult::NVRTC_SUCCESS && ptx > 0 {
            let mut text = vec![0u8; ptx];
            ok(ffi::nvrtcGetPTX(program, text.as_mut_ptr().cast()), "ptx");
        }
        ok(
            ffi::nvrtcGetCUBINSize(program, &raw mut cubin),
            "cubin size",
        );
        let mut image = vec![0u8; cubin];
        ok(
            ffi::nvrtcGetCUBIN(program, image.as_mut_ptr().cast()),
            "cubin",
        );
        ok(ffi::nvrtcDestroyProgram(&raw mut program), "destroy");
    }
    cubin
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "benches/nvrtc: run with `cargo bench -p custack-benches --features nvrtc --bench nvrtc`"
        );
        return;
    }
    let reps: usize = std::env::var("CUSTACK_NVRTC_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let arch = ComputeCapability { major: 8, minor: 0 };
    let options = Options::new().arch(Arch::Real(arch));
    let (source, name) = (
        CString::new(SOURCE).unwrap(),
        CString::new("clock.cu").unwrap(),
    );
    let option = CString::new("--gpu-architecture=sm_80").unwrap();
    let program = || Program::new("clock.cu", SOURCE).unwrap();
    // Warm-up, and both make the same cubin size.
    let ours = program().compile(&options).unwrap();
    assert_eq!(
        ours.cubin().map(<[u8]>::len),
        Some(raw(&source, &name, &option))
    );
    let (mut t_custack, mut t_raw) = (Vec::new(), Vec::new());
    for i in 0..2 * reps {
        let start = Instant::now();
        if i % 2 == 0 {
            std::hint::black_box(program().compile(&options).unwrap());
            t_custack.push(start.elapsed().as_secs_f64());
        } else {
            std::hint::black_box(raw(&source, &name, &option));
            t_raw.push(start.elapsed().as_secs_f64());
        }
    }
    let (c, cs) = stats(&mut t_custack);
    let (r, rs) = stats(&mut t_raw);
    println!(
        "NVRTC {} compiling clock.cu for sm_80, {reps} reps each: custack {:.2} ms (±{:.1}%), \
         raw {:.2} ms (±{:.1}%), ratio {:.3}",
        custack::nvrtc::version().unwrap(),
        c * 1e3,
        cs * 100.0,
        r * 1e3,
        rs * 100.0,
        c / r
    );
}
