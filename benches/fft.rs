//! cuFFT through custack against the raw cuFFT calls and cudarc's wrapper, in one process, on
//! one GPU.
//!
//! ```text
//! cargo bench -p custack-benches --features cufft --bench fft  # needs a GPU and cuFFT
//! ```
//!
//! Rows: complex-to-complex `f32` transforms of 4096 points, a batch of 1024 (one execution a
//! rep); a real-to-complex `f32` transform of 1024 × 1024 (one a rep); complex-to-complex
//! transforms of 256 points (100 executions a rep, where the per-call cost shows). Each rep
//! enqueues its executions on one stream and waits for it; the time is the host's, from the
//! first execution to the end of the wait. All three use the device's primary context and the
//! same input, each its own buffers, stream and plan.
//!
//! - raw: `cufftCreate` and `cufftMakePlanMany64` (cuFFT allocates the work area),
//!   `cufftSetStream` once, then `cufftExecC2C`/`cufftExecR2C` through `custack::ffi::cufft`,
//!   and `cuStreamSynchronize`.
//! - custack: `guard.fft_plan` (its own work area), one `Stream::scope` a rep (its end is the
//!   wait), the executions on bound buffers (every length and alignment checked; the plan's
//!   stream set once, for the first execution, since every rep's scope is on the same stream).
//! - cudarc: `CudaFft::plan_1d`/`plan_2d` on its stream, `exec_c2c`/`exec_r2c`,
//!   `stream.synchronize()`.
//!
//! After a warm-up of each, the three outputs must agree (within `1e-4` of the largest value).
//! The order rotates each rep; reported: the median over `CUSTACK_FFT_REPS` reps (default 30),
//! the spread and the ratios to raw. Nothing asserts a time. Without `--bench` (as `cargo test
//! --all-targets` runs it) it prints how to run it and exits.
#![allow(
    clippy::multiple_unsafe_ops_per_block,
    clippy::too_many_lines,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss
)]

#[path = "common/mod.rs"]
mod common;

use common::{cu, header, must, print, reps, rotate, running};
use cudarc::cufft::{CudaFft, FftDirection, sys as cusys};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use custack::ffi::cufft as cf;
use custack::fft::{C2c, Complex32, Direction, Fft, FftPlan, R2c, Transform};
use custack::{Context, DeviceBuffer, DeviceMemory, Driver, PushedGuard, Stack, Stream, ffi};
use std::cell::RefCell;
use std::sync::Arc;

fn st(r: cf::cufftResult, what: &str) {
    common::check(r, cf::cufftResult::CUFFT_SUCCESS, what);
}

/// Values in [-1, 1).
fn values(len: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// The raw side: a plan and its stream.
struct Raw {
    plan: cf::cufftHandle,
    stream: ffi::CUstream,
    buffers: Vec<ffi::CUdeviceptr>,
}

impl Raw {
    /// A contiguous plan of `dims`, `batch` of them, of type `t` (`n/2 + 1` complex values in
    /// the last dimension of a real transform's output).
    fn new(dims: &[usize], batch: usize, t: cf::cufftType, real: bool) -> Self {
        let rank = dims.len();
        let mut n = [1i64; 3];
        for (to, &d) in n.iter_mut().zip(dims) {
            *to = d as i64;
        }
        let mut out = n;
        if real {
            out[rank - 1] = n[rank - 1] / 2 + 1;
        }
        let (idist, odist) = (
            n[..rank].iter().product::<i64>(),
            out[..rank].iter().product::<i64>(),
        );
        let mut inembed = n;
        let (mut plan, mut stream, mut work) = (0, core::ptr::null_mut(), 0usize);
        // SAFETY: out-pointers to locals, arrays of 3 sizes (rank ≤ 3); the primary context
        // is current (the guard).
        unsafe {
            cu(ffi::cuStreamCreate(&raw mut stream, 0), "cuStreamCreate");
            st(cf::cufftCreate(&raw mut plan), "cufftCreate");
            st(
                cf::cufftMakePlanMany64(
                    plan,
                    rank as i32,
                    n.as_mut_ptr(),
                    inembed.as_mut_ptr(),
                    1,
                    idist,
                    out.as_mut_ptr(),
                    1,
                    odist,
                    t,
                    batch as i64,
                    &raw mut work,
                ),
                "cufftMakePlanMany64",
            );
            st(cf::cufftSetStream(plan, stream), "cufftSetStream");
        }
        Self {
            plan,
            stream,
            buffers: Vec::new(),
        }
    }

    fn upload<T: Copy>(&mut self, host: &[T]) -> ffi::CUdeviceptr {
        let bytes = core::mem::size_of_val(host);
        let mut p = 0;
        // SAFETY: a fresh allocation of `bytes`, filled from `host` of as many bytes.
        unsafe {
            cu(ffi::cuMemAlloc_v2(&raw mut p, bytes), "cuMemAlloc_v2");
            cu(
                ffi::cuMemcpyHtoD_v2(p, host.as_ptr().cast(), bytes),
                "cuMemcpyHtoD_v2",
            );
        }
        self.buffers.push(p);
        p
    }

    fn download(p: ffi::CUdeviceptr, len: usize) -> Vec<Complex32> {
        let mut v = vec![Complex32::default(); len];
        // SAFETY: `p` holds at least `len` complex values (uploaded with as many).
        cu(
            unsafe { ffi::cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), p, len * 8) },
            "cuMemcpyDtoH_v2",
        );
        v
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
        // SAFETY: all live, made by `new`/`upload`; the stream is idle (each rep waits).
        unsafe {
            for &p in &self.buffers {
                cu(ffi::cuMemFree_v2(p), "cuMemFree_v2");
            }
            st(cf::cufftDestroy(self.plan), "cufftDestroy");
            cu(ffi::cuStreamDestroy_v2(self.stream), "cuStreamDestroy_v2");
        }
    }
}

fn largest_difference(a: &[Complex32], b: &[Complex32]) -> (f32, f32) {
    let diff = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x.re - y.re).abs().max((x.im - y.im).abs()))
        .fold(0.0, f32::max);
    let scale = a
        .iter()
        .map(|x| x.re.abs().max(x.im.abs()))
        .fold(1.0, f32::max);
    (diff, scale)
}

/// The three outputs agree, or the bench ends.
fn agree(row: &str, raw: &[Complex32], ours: &[Complex32], theirs: &[Complex32]) {
    for (who, other) in [("custack", ours), ("cudarc", theirs)] {
        let (diff, scale) = largest_difference(raw, other);
        if diff > 1e-4 * scale {
            eprintln!("benches/fft: {row}: {who}'s output differs from raw's by {diff}");
            std::process::exit(1)
        }
    }
}

struct Sides<'a, 'g> {
    guard: &'a PushedGuard<'g, 'g>,
    stream: &'a Stream<'a>,
    cu_stream: &'a Arc<CudaStream>,
    reps: usize,
}

fn c2c_row(sides: &Sides<'_, '_>, n: usize, batch: usize, calls: usize) {
    let len = n * batch;
    let host: Vec<Complex32> = values(2 * len, 1)
        .chunks(2)
        .map(|p| Complex32::new(p[0], p[1]))
        .collect();
    let mut raw = Raw::new(&[n], batch, cf::cufftType::CUFFT_C2C, false);
    let (ri, ro) = (
        raw.upload(&host),
        raw.upload(&vec![Complex32::default(); len]),
    );
    let plan: FftPlan<'_, C2c<f32>> = must(
        sides.guard.fft_plan(&Fft::new(&[n]).batch(batch)),
        "fft_plan",
    );
    let ci = must(sides.guard.alloc_from(&host), "alloc_from");
    let co: RefCell<DeviceBuffer<'_, Complex32>> =
        RefCell::new(must(sides.guard.alloc_zeroed(len), "alloc_zeroed"));
    let cu_fft = must(
        CudaFft::plan_1d(
            n as i32,
            cusys::cufftType::CUFFT_C2C,
            batch as i32,
            sides.cu_stream.clone(),
        ),
        "cudarc plan_1d",
    );
    let as_float2: Vec<cusys::float2> = host
        .iter()
        .map(|c| cusys::float2 { x: c.re, y: c.im })
        .collect();
    let di = RefCell::new(must(
        sides.cu_stream.clone_htod(&as_float2),
        "cudarc clone_htod",
    ));
    let dout: RefCell<CudaSlice<cusys::float2>> =
        RefCell::new(must(sides.cu_stream.alloc_zeros(len), "cudarc alloc_zeros"));
    let mut op_raw = || {
        for _ in 0..calls {
            // SAFETY: a live plan with its stream set, two buffers of `len` complex values.
            st(
                unsafe {
                    cf::cufftExecC2C(raw.plan, ri as *mut _, ro as *mut _, cf::CUFFT_FORWARD)
                },
                "cufftExecC2C",
            );
        }
        raw.sync();
    };
    let mut op_custack = || {
        let mut out = co.borrow_mut();
        let done = sides.stream.scope(|s| -> custack::Result<()> {
            let (i, mut o) = (s.bind(&ci), s.bind_mut(&mut *out));
            for _ in 0..calls {
                plan.run(s, i, &mut o, Direction::Forward)?;
            }
            Ok(())
        });
        must(must(done, "scope"), "custack exec");
    };
    let mut op_cudarc = || {
        let (mut i, mut o) = (di.borrow_mut(), dout.borrow_mut());
        for _ in 0..calls {
            must(
                cu_fft.exec_c2c(&mut *i, &mut *o, FftDirection::Forward),
                "cudarc exec_c2c",
            );
        }
        must(sides.cu_stream.synchronize(), "cudarc synchronize");
    };
    op_raw();
    op_custack();
    op_cudarc();
    let row = if calls == 1 {
        format!("C2C f32 {n} ×{batch} batch")
    } else {
        format!("C2C f32 {n}, {calls} execs")
    };
    let theirs: Vec<Complex32> = must(sides.cu_stream.clone_dtoh(&*dout.borrow()), "clone_dtoh")
        .iter()
        .map(|c| Complex32::new(c.x, c.y))
        .collect();
    agree(
        &row,
        &Raw::download(ro, len),
        &must(co.borrow().to_vec(), "to_vec"),
        &theirs,
    );
    let f = rotate(
        sides.reps,
        &mut [
            Some(&mut op_raw),
            Some(&mut op_custack),
            Some(&mut op_cudarc),
        ],
    );
    print(&row, &f);
}

fn r2c_row(sides: &Sides<'_, '_>, nx: usize, ny: usize) {
    let (len, out_len) = (nx * ny, nx * (ny / 2 + 1));
    let host = values(len, 2);
    let mut raw = Raw::new(&[nx, ny], 1, cf::cufftType::CUFFT_R2C, true);
    let (ri, ro) = (
        raw.upload(&host),
        raw.upload(&vec![Complex32::default(); out_len]),
    );
    let plan: FftPlan<'_, R2c<f32>> = must(sides.guard.fft_plan(&Fft::new(&[nx, ny])), "fft_plan");
    debug_assert_eq!(<R2c<f32> as Transform>::EXEC, "cufftExecR2C");
    let ci = must(sides.guard.alloc_from(&host), "alloc_from");
    let co: RefCell<DeviceBuffer<'_, Complex32>> =
        RefCell::new(must(sides.guard.alloc_zeroed(out_len), "alloc_zeroed"));
    let cu_fft = must(
        CudaFft::plan_2d(
            nx as i32,
            ny as i32,
            cusys::cufftType::CUFFT_R2C,
            sides.cu_stream.clone(),
        ),
        "cudarc plan_2d",
    );
    let di = must(sides.cu_stream.clone_htod(&host), "cudarc clone_htod");
    let dout: RefCell<CudaSlice<cusys::float2>> = RefCell::new(must(
        sides.cu_stream.alloc_zeros(out_len),
        "cudarc alloc_zeros",
    ));
    let mut op_raw = || {
        // SAFETY: a live plan with its stream set, `len` reals in, `out_len` complex out.
        st(
            unsafe { cf::cufftExecR2C(raw.plan, ri as *mut f32, ro as *mut _) },
            "cufftExecR2C",
        );
        raw.sync();
    };
    let mut op_custack = || {
        let mut out = co.borrow_mut();
        let done = sides
            .stream
            .scope(|s| plan.run(s, s.bind(&ci), s.bind_mut(&mut *out)));
        must(must(done, "scope"), "custack exec");
    };
    let mut op_cudarc = || {
        must(
            cu_fft.exec_r2c(&di, &mut *dout.borrow_mut()),
            "cudarc exec_r2c",
        );
        must(sides.cu_stream.synchronize(), "cudarc synchronize");
    };
    op_raw();
    op_custack();
    op_cudarc();
    let row = format!("R2C f32 {nx}×{ny}");
    let theirs: Vec<Complex32> = must(sides.cu_stream.clone_dtoh(&*dout.borrow()), "clone_dtoh")
        .iter()
        .map(|c| Complex32::new(c.x, c.y))
        .collect();
    agree(
        &row,
        &Raw::download(ro, out_len),
        &must(co.borrow().to_vec(), "to_vec"),
        &theirs,
    );
    let f = rotate(
        sides.reps,
        &mut [
            Some(&mut op_raw),
            Some(&mut op_custack),
            Some(&mut op_cudarc),
        ],
    );
    print(&row, &f);
}

fn main() {
    if !running("cargo bench -p custack-benches --features cufft --bench fft") {
        return;
    }
    let reps = reps("CUSTACK_FFT_REPS");
    let driver = must(Driver::init(), "Driver::init");
    let device = must(driver.device(0), "device 0");
    // Everyone's context: the device's primary context (cudarc's `CudaContext::new` retains it
    // too and makes it current, which leaves custack's pushed guard on the same context).
    let ctx = must(Context::primary(device), "Context::primary");
    let mut stack = must(Stack::new(), "Stack::new");
    let guard = must(stack.push(&ctx), "push");
    let stream = must(guard.stream(), "stream");
    let cu_ctx = must(CudaContext::new(0), "cudarc CudaContext::new");
    let cu_stream = must(cu_ctx.new_stream(), "cudarc new_stream");
    println!(
        "cuFFT {} on {}, driver {}; {reps} reps a row, medians (±spread), ratios to raw\n",
        must(custack::fft::version(), "version"),
        must(device.name(), "name"),
        must(driver.version(), "driver version"),
    );
    header();
    let sides = Sides {
        guard: &guard,
        stream: &stream,
        cu_stream: &cu_stream,
        reps,
    };
    c2c_row(&sides, 4096, 1024, 1);
    r2c_row(&sides, 1024, 1024);
    c2c_row(&sides, 256, 1, 100);
}
