//! cuRAND through custack against the raw cuRAND calls and cudarc's wrapper, in one process, on
//! one GPU.
//!
//! ```text
//! cargo bench -p custack-benches --features curand --bench rand  # needs a GPU and cuRAND
//! ```
//!
//! Rows: uniform and normal `f32` fills of 2^24 values (one call a rep), and uniform fills of
//! 1,024 values (100 calls a rep, where the per-call cost shows). Each rep enqueues its calls on
//! one stream and waits for it; the time is the host's, from the first call to the end of the
//! wait. All three use the device's primary context and an XORWOW generator (cuRAND's default,
//! the kind cudarc's `CudaRng` makes) seeded alike, each with its own buffers and stream.
//!
//! - raw: `curandCreateGenerator`, the seed, offset 0 and `curandSetStream` once, then the
//!   `curandGenerate*` calls through `custack::ffi::curand`, and `cuStreamSynchronize`.
//! - custack: `guard.rng(Pseudo::Xorwow, seed)`, one `Stream::scope` a rep (its end is the
//!   wait), the fills on bound buffers (every length checked; the generator's stream set once,
//!   for the first call, since every rep's scope is on the same stream).
//! - cudarc: `CudaRng::new(seed, stream)`, `fill_with_uniform`/`fill_with_normal`,
//!   `stream.synchronize()`.
//!
//! Each row's first call of each (a warm-up) must write the same values in all three: the same
//! kind, seed and offset, and as many calls before. The order rotates each rep; reported: the
//! median over `CUSTACK_RAND_REPS` reps (default 30), the spread and the ratios to raw. Nothing
//! asserts a time. Without `--bench` (as `cargo test --all-targets` runs it) it prints how to
//! run it and exits.
#![allow(clippy::multiple_unsafe_ops_per_block, clippy::too_many_lines)]

#[path = "common/mod.rs"]
mod common;

use common::{cu, header, must, print, reps, rotate, running};
use cudarc::curand::CudaRng;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use custack::ffi::curand as cr;
use custack::rand::{Pseudo, Rng};
use custack::{Context, DeviceBuffer, DeviceMemory, Driver, Stack, Stream, ffi};
use std::cell::RefCell;
use std::sync::Arc;

const SEED: u64 = 2026;

fn st(r: cr::curandStatus_t, what: &str) {
    common::check(r, cr::curandStatus_t::CURAND_STATUS_SUCCESS, what);
}

/// The raw side: its generator and stream.
struct Raw {
    rng: cr::curandGenerator_t,
    stream: ffi::CUstream,
}

impl Raw {
    fn new() -> Self {
        let mut rng = core::ptr::null_mut();
        let mut stream = core::ptr::null_mut();
        // SAFETY: out-pointers to locals; the primary context is current (the guard).
        unsafe {
            cu(ffi::cuStreamCreate(&raw mut stream, 0), "cuStreamCreate");
            st(
                cr::curandCreateGenerator(
                    &raw mut rng,
                    cr::curandRngType_t::CURAND_RNG_PSEUDO_XORWOW,
                ),
                "curandCreateGenerator",
            );
            st(
                cr::curandSetPseudoRandomGeneratorSeed(rng, SEED),
                "curandSetPseudoRandomGeneratorSeed",
            );
            st(
                cr::curandSetGeneratorOffset(rng, 0),
                "curandSetGeneratorOffset",
            );
            st(cr::curandSetStream(rng, stream), "curandSetStream");
        }
        Self { rng, stream }
    }

    fn sync(&self) {
        // SAFETY: a live stream.
        cu(
            unsafe { ffi::cuStreamSynchronize(self.stream) },
            "cuStreamSynchronize",
        );
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: both live, made by `new`; the stream is idle (each rep waits).
        unsafe {
            st(
                cr::curandDestroyGenerator(self.rng),
                "curandDestroyGenerator",
            );
            cu(ffi::cuStreamDestroy_v2(self.stream), "cuStreamDestroy_v2");
        }
    }
}

/// A raw device buffer of `len` floats.
struct RawBuffer(ffi::CUdeviceptr, usize);

impl RawBuffer {
    fn new(len: usize) -> Self {
        let mut p = 0;
        // SAFETY: an out-pointer to a local; the primary context is current.
        cu(
            unsafe { ffi::cuMemAlloc_v2(&raw mut p, len * 4) },
            "cuMemAlloc_v2",
        );
        Self(p, len)
    }

    fn to_vec(&self) -> Vec<f32> {
        let mut v = vec![0.0f32; self.1];
        // SAFETY: the buffer holds `self.1` floats; nothing writes it now.
        cu(
            unsafe { ffi::cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), self.0, self.1 * 4) },
            "cuMemcpyDtoH_v2",
        );
        v
    }
}

impl Drop for RawBuffer {
    fn drop(&mut self) {
        // SAFETY: a live allocation; its stream is idle.
        cu(unsafe { ffi::cuMemFree_v2(self.0) }, "cuMemFree_v2");
    }
}

#[derive(Clone, Copy)]
enum Fill {
    Uniform,
    Normal,
}

struct Sides<'a, 'g> {
    raw: &'a Raw,
    stream: &'a Stream<'g>,
    rng: &'a Rng<'g>,
    cu_stream: &'a Arc<CudaStream>,
    cu_rng: &'a CudaRng,
}

fn row(
    sides: &Sides<'_, '_>,
    guard_buf: DeviceBuffer<'_, f32>,
    fill: Fill,
    calls: usize,
    reps: usize,
) {
    let len = guard_buf.len();
    let raw_buf = RawBuffer::new(len);
    let ours = RefCell::new(guard_buf);
    let theirs: RefCell<CudaSlice<f32>> =
        RefCell::new(must(sides.cu_stream.alloc_zeros(len), "cudarc alloc_zeros"));
    let mut op_raw = || {
        for _ in 0..calls {
            // SAFETY: a live generator whose stream is set, a buffer of `len` floats.
            let status = unsafe {
                match fill {
                    Fill::Uniform => {
                        cr::curandGenerateUniform(sides.raw.rng, raw_buf.0 as *mut f32, len)
                    }
                    Fill::Normal => cr::curandGenerateNormal(
                        sides.raw.rng,
                        raw_buf.0 as *mut f32,
                        len,
                        0.0,
                        1.0,
                    ),
                }
            };
            st(status, "raw generate");
        }
        sides.raw.sync();
    };
    let mut op_custack = || {
        let mut out = ours.borrow_mut();
        let filled = sides.stream.scope(|s| -> custack::Result<()> {
            let mut b = s.bind_mut(&mut *out);
            for _ in 0..calls {
                match fill {
                    Fill::Uniform => sides.rng.uniform(s, &mut b)?,
                    Fill::Normal => sides.rng.normal(s, &mut b, 0.0, 1.0)?,
                }
            }
            Ok(())
        });
        must(must(filled, "scope"), "custack fill");
    };
    let mut op_cudarc = || {
        let mut out = theirs.borrow_mut();
        for _ in 0..calls {
            match fill {
                Fill::Uniform => must(sides.cu_rng.fill_with_uniform(&mut *out), "cudarc fill"),
                Fill::Normal => must(
                    sides.cu_rng.fill_with_normal(&mut *out, 0.0, 1.0),
                    "cudarc fill",
                ),
            }
        }
        must(sides.cu_stream.synchronize(), "cudarc synchronize");
    };
    // Warm-up: the three generators have made as many values before, so they write the same.
    op_raw();
    op_custack();
    op_cudarc();
    let r = raw_buf.to_vec();
    let c = must(ours.borrow().to_vec(), "to_vec");
    let d = must(
        sides.cu_stream.clone_dtoh(&*theirs.borrow()),
        "cudarc clone_dtoh",
    );
    if r != c || r != d {
        eprintln!("benches/rand: the three generators wrote different values");
        std::process::exit(1)
    }
    let f = rotate(
        reps,
        &mut [
            Some(&mut op_raw),
            Some(&mut op_custack),
            Some(&mut op_cudarc),
        ],
    );
    let what = match fill {
        Fill::Uniform => "uniform",
        Fill::Normal => "normal",
    };
    let size = if len.is_power_of_two() && len > 1 << 16 {
        format!("2^{}", len.trailing_zeros())
    } else {
        len.to_string()
    };
    let name = if calls == 1 {
        format!("{what} f32 {size}")
    } else {
        format!("{what} f32 {size} ×{calls}")
    };
    print(&name, &f);
}

fn main() {
    if !running("cargo bench -p custack-benches --features curand --bench rand") {
        return;
    }
    let reps = reps("CUSTACK_RAND_REPS");
    let driver = must(Driver::init(), "Driver::init");
    let device = must(driver.device(0), "device 0");
    // Everyone's context: the device's primary context (cudarc's `CudaContext::new` retains it
    // too and makes it current, which leaves custack's pushed guard on the same context).
    let ctx = must(Context::primary(device), "Context::primary");
    let mut stack = must(Stack::new(), "Stack::new");
    let guard = must(stack.push(&ctx), "push");
    let stream = must(guard.stream(), "stream");
    let rng = must(guard.rng(Pseudo::Xorwow, SEED), "rng");
    let cu_ctx = must(CudaContext::new(0), "cudarc CudaContext::new");
    let cu_stream = must(cu_ctx.new_stream(), "cudarc new_stream");
    let cu_rng = must(CudaRng::new(SEED, cu_stream.clone()), "cudarc CudaRng::new");
    let raw = Raw::new();
    println!(
        "cuRAND {} on {}, driver {}; {reps} reps a row, medians (±spread), ratios to raw\n",
        must(custack::rand::version(), "version"),
        must(device.name(), "name"),
        must(driver.version(), "driver version"),
    );
    header();
    let sides = Sides {
        raw: &raw,
        stream: &stream,
        rng: &rng,
        cu_stream: &cu_stream,
        cu_rng: &cu_rng,
    };
    let buffer = |len| must(guard.alloc::<f32>(len), "alloc");
    row(&sides, buffer(1 << 24), Fill::Uniform, 1, reps);
    row(&sides, buffer(1 << 24), Fill::Normal, 1, reps);
    row(&sides, buffer(1024), Fill::Uniform, 100, reps);
}
