//! cuBLAS through custack against the raw cuBLAS calls and cudarc's cuBLAS wrapper, in one
//! process, on one GPU.
//!
//! ```text
//! cargo bench -p custack-benches --features cublas --bench blas  # needs a GPU and cuBLAS
//! ```
//!
//! Rows: SGEMM and DGEMM at 4096³ (one call a rep), SGEMM at 64³ (100 calls a rep, where the
//! per-call cost shows) and SAXPY on 2^24 elements (10 calls a rep). Each rep enqueues its calls
//! on one stream and waits for it; the time is the host's, from the first call to the end of
//! the wait. All three use the device's primary context and operands filled with the same
//! values, and each gets its own buffers and stream.
//!
//! - raw: `cublasCreate_v2`, `cublasSetStream_v2` once, then the `cublas?gemm_v2` /
//!   `cublasSaxpy_v2` calls through `custack::ffi::cublas`, and `cuStreamSynchronize`.
//! - custack: `guard.blas()`, one `Stream::scope` a rep (its end is the wait), the calls on
//!   bound buffers (every shape checked; the handle's stream and workspace set when the stream
//!   changes: once, for the first call, since every rep's scope is on the same stream).
//! - cudarc: `CudaBlas::new(stream)`, `Gemm::gemm` with a `GemmConfig` (unsafe in cudarc),
//!   `stream.synchronize()`. cudarc has no AXPY: that row has no cudarc column.
//!
//! The order of the three rotates each rep, after a warm-up of each whose results are compared
//! (the same GEMM must give the same matrix in all three). Reported: the median over
//! `CUSTACK_BLAS_REPS` reps (default 30), the spread (p10–p90 ÷ 2 of the median) and the
//! ratios to raw. Nothing asserts a time. Without `--bench` (as `cargo test --all-targets` runs
//! it) it prints how to run it and exits.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::multiple_unsafe_ops_per_block,
    clippy::too_many_lines,
    clippy::many_single_char_names,
    clippy::too_many_arguments
)]

#[path = "common/mod.rs"]
mod common;

use common::{cu, header, must, print, reps, rotate, running};
use core::ffi::c_int;
use cudarc::cublas::{CudaBlas, Gemm as _, GemmConfig, sys as cusys};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use custack::blas::Gemm;
use custack::ffi::cublas as cb;
use custack::{Context, DeviceBuffer, DeviceMemory, Driver, PushedGuard, Stack, Stream, ffi};
use std::cell::RefCell;
use std::sync::Arc;

fn st(r: cb::cublasStatus_t, what: &str) {
    common::check(r, cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS, what);
}

/// The scalar types of the rows, with their raw calls.
trait Scalar: custack::blas::BlasScalar + cudarc::driver::DeviceRepr + Copy + PartialEq {
    const NAME: &'static str;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    /// # Safety
    /// The cuBLAS call's: live handle, device pointers of `n·n` elements each.
    unsafe fn raw_gemm(
        h: cb::cublasHandle_t,
        n: c_int,
        a: u64,
        b: u64,
        c: u64,
    ) -> cb::cublasStatus_t;
}

impl Scalar for f32 {
    const NAME: &'static str = "SGEMM";
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    unsafe fn raw_gemm(
        h: cb::cublasHandle_t,
        n: c_int,
        a: u64,
        b: u64,
        c: u64,
    ) -> cb::cublasStatus_t {
        let (alpha, beta) = (1.0f32, 0.0f32);
        let op = cb::cublasOperation_t::CUBLAS_OP_N;
        // SAFETY: the caller's.
        unsafe {
            cb::cublasSgemm_v2(
                h,
                op,
                op,
                n,
                n,
                n,
                &raw const alpha,
                a as *const f32,
                n,
                b as *const f32,
                n,
                &raw const beta,
                c as *mut f32,
                n,
            )
        }
    }
}

impl Scalar for f64 {
    const NAME: &'static str = "DGEMM";
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    unsafe fn raw_gemm(
        h: cb::cublasHandle_t,
        n: c_int,
        a: u64,
        b: u64,
        c: u64,
    ) -> cb::cublasStatus_t {
        let (alpha, beta) = (1.0f64, 0.0f64);
        let op = cb::cublasOperation_t::CUBLAS_OP_N;
        // SAFETY: the caller's.
        unsafe {
            cb::cublasDgemm_v2(
                h,
                op,
                op,
                n,
                n,
                n,
                &raw const alpha,
                a as *const f64,
                n,
                b as *const f64,
                n,
                &raw const beta,
                c as *mut f64,
                n,
            )
        }
    }
}

/// Values in [-1, 1), the same for every library.
fn values<T: Scalar>(len: usize, seed: u64) -> Vec<T> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            T::from_f64((x >> 11) as f64 / (1u64 << 52) as f64 - 1.0)
        })
        .collect()
}

/// The raw side: its handle, stream and buffers.
struct Raw {
    handle: cb::cublasHandle_t,
    stream: ffi::CUstream,
    buffers: Vec<ffi::CUdeviceptr>,
}

impl Raw {
    fn new() -> Self {
        let mut handle = core::ptr::null_mut();
        let mut stream = core::ptr::null_mut();
        // SAFETY: out-pointers to locals; the primary context is current (the guard).
        unsafe {
            st(cb::cublasCreate_v2(&raw mut handle), "cublasCreate_v2");
            cu(ffi::cuStreamCreate(&raw mut stream, 0), "cuStreamCreate");
            st(cb::cublasSetStream_v2(handle, stream), "cublasSetStream_v2");
        }
        Self {
            handle,
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

    fn download<T: Copy + Default>(p: ffi::CUdeviceptr, len: usize) -> Vec<T> {
        let mut v = vec![T::default(); len];
        // SAFETY: `p` holds at least `len` elements (allocated by `upload` with as many).
        unsafe {
            cu(
                ffi::cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), p, len * size_of::<T>()),
                "cuMemcpyDtoH_v2",
            );
        }
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
        // SAFETY: all live, created by `new`/`upload`; the stream is idle (each rep waits).
        unsafe {
            for &p in &self.buffers {
                cu(ffi::cuMemFree_v2(p), "cuMemFree_v2");
            }
            st(cb::cublasDestroy_v2(self.handle), "cublasDestroy_v2");
            cu(ffi::cuStreamDestroy_v2(self.stream), "cuStreamDestroy_v2");
        }
    }
}

fn max_diff<T: Scalar>(a: &[T], b: &[T]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x.to_f64() - y.to_f64()).abs())
        .fold(0.0, f64::max)
}

/// A GEMM row: `calls` GEMMs of `n`³ a rep.
fn gemm_row<T: Scalar + Default + cudarc::driver::ValidAsZeroBits>(
    guard: &PushedGuard<'_, '_>,
    stream: &Stream<'_>,
    blas: &custack::blas::Blas<'_>,
    cu_stream: &Arc<CudaStream>,
    cu_blas: &CudaBlas,
    n: usize,
    calls: usize,
    reps: usize,
) where
    CudaBlas: cudarc::cublas::Gemm<T>,
{
    let (ha, hb) = (values::<T>(n * n, 1), values::<T>(n * n, 2));
    let mut raw = Raw::new();
    let (ra, rb) = (raw.upload(&ha), raw.upload(&hb));
    let rc = raw.upload(&vec![T::default(); n * n]);
    let (ca, cb_) = (
        must(guard.alloc_from(&ha), "alloc_from"),
        must(guard.alloc_from(&hb), "alloc_from"),
    );
    let cc: RefCell<DeviceBuffer<'_, T>> =
        RefCell::new(must(guard.alloc_zeroed(n * n), "alloc_zeroed"));
    let (da, db): (CudaSlice<T>, CudaSlice<T>) = (
        must(cu_stream.clone_htod(&ha), "cudarc clone_htod"),
        must(cu_stream.clone_htod(&hb), "cudarc clone_htod"),
    );
    let dc: RefCell<CudaSlice<T>> =
        RefCell::new(must(cu_stream.alloc_zeros(n * n), "cudarc alloc_zeros"));
    let shape = Gemm::<T>::new(n, n, n);
    let ni = n as c_int;
    let cfg = GemmConfig {
        transa: cusys::cublasOperation_t::CUBLAS_OP_N,
        transb: cusys::cublasOperation_t::CUBLAS_OP_N,
        m: ni,
        n: ni,
        k: ni,
        alpha: T::from_f64(1.0),
        lda: ni,
        ldb: ni,
        beta: T::from_f64(0.0),
        ldc: ni,
    };
    let mut op_raw = || {
        for _ in 0..calls {
            // SAFETY: live handle, three `n·n` buffers of the current context.
            st(
                unsafe { T::raw_gemm(raw.handle, ni, ra, rb, rc) },
                "raw gemm",
            );
        }
        raw.sync();
    };
    let mut op_custack = || {
        let mut out = cc.borrow_mut();
        must(
            stream.scope(|s| -> custack::Result<()> {
                let (a, b, mut c) = (s.bind(&ca), s.bind(&cb_), s.bind_mut(&mut *out));
                for _ in 0..calls {
                    blas.gemm(s, &shape, a, b, &mut c)?;
                }
                Ok(())
            }),
            "scope",
        )
        .unwrap_or_else(|e| {
            eprintln!("benches/blas: custack gemm: {e}");
            std::process::exit(1)
        });
    };
    let mut op_cudarc = || {
        for _ in 0..calls {
            // SAFETY: cudarc's contract: the shape fits the three `n·n` slices.
            must(
                unsafe { cu_blas.gemm(cfg, &da, &db, &mut *dc.borrow_mut()) },
                "cudarc gemm",
            );
        }
        must(cu_stream.synchronize(), "cudarc synchronize");
    };
    // Warm-up (cuBLAS loads its kernels), then the three results must agree.
    op_raw();
    op_custack();
    op_cudarc();
    let r = Raw::download::<T>(rc, n * n);
    let c = must(cc.borrow().to_vec(), "to_vec");
    let d = must(cu_stream.clone_dtoh(&*dc.borrow()), "cudarc clone_dtoh");
    let (dc_, dd) = (max_diff(&r, &c), max_diff(&r, &d));
    if dc_ > 0.0 || dd > 0.0 {
        eprintln!(
            "benches/blas: {} {n}³ results differ from raw's: custack by {dc_}, cudarc by {dd}",
            T::NAME
        );
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
    let row = if calls == 1 {
        format!("{} {n}³", T::NAME)
    } else {
        format!("{} {n}³ ×{calls}", T::NAME)
    };
    print(&row, &f);
}

fn saxpy_row(
    guard: &PushedGuard<'_, '_>,
    stream: &Stream<'_>,
    blas: &custack::blas::Blas<'_>,
    len: usize,
    calls: usize,
    reps: usize,
) {
    let (hx, hy) = (values::<f32>(len, 3), values::<f32>(len, 4));
    let mut raw = Raw::new();
    let (rx, ry) = (raw.upload(&hx), raw.upload(&hy));
    let cx = must(guard.alloc_from(&hx), "alloc_from");
    let cy = RefCell::new(must(guard.alloc_from(&hy), "alloc_from"));
    let alpha = 0.5f32;
    let n = len as c_int;
    let mut op_raw = || {
        for _ in 0..calls {
            // SAFETY: live handle, two `len`-element buffers of the current context.
            st(
                unsafe {
                    cb::cublasSaxpy_v2(
                        raw.handle,
                        n,
                        &raw const alpha,
                        rx as *const f32,
                        1,
                        ry as *mut f32,
                        1,
                    )
                },
                "cublasSaxpy_v2",
            );
        }
        raw.sync();
    };
    let mut op_custack = || {
        let mut out = cy.borrow_mut();
        must(
            stream.scope(|s| -> custack::Result<()> {
                let (x, mut y) = (s.bind(&cx), s.bind_mut(&mut *out));
                for _ in 0..calls {
                    blas.axpy(s, len, alpha, x, 1, &mut y, 1)?;
                }
                Ok(())
            }),
            "scope",
        )
        .unwrap_or_else(|e| {
            eprintln!("benches/blas: custack axpy: {e}");
            std::process::exit(1)
        });
    };
    op_raw();
    op_custack();
    let (r, c) = (
        Raw::download::<f32>(ry, len),
        must(cy.borrow().to_vec(), "to_vec"),
    );
    let d = max_diff(&r, &c);
    if d > 0.0 {
        eprintln!("benches/blas: SAXPY results differ from raw's by {d}");
        std::process::exit(1)
    }
    let f = rotate(reps, &mut [Some(&mut op_raw), Some(&mut op_custack), None]);
    print(&format!("SAXPY 2^{} ×{calls}", len.trailing_zeros()), &f);
}

fn main() {
    if !running("cargo bench -p custack-benches --features cublas --bench blas") {
        return;
    }
    let reps = reps("CUSTACK_BLAS_REPS");
    let driver = must(Driver::init(), "Driver::init");
    let device = must(driver.device(0), "device 0");
    // Everyone's context: the device's primary context (cudarc's `CudaContext::new` retains it
    // too and makes it current, which leaves custack's pushed guard on the same context).
    let ctx = must(Context::primary(device), "Context::primary");
    let mut stack = must(Stack::new(), "Stack::new");
    let guard = must(stack.push(&ctx), "push");
    let stream = must(guard.stream(), "stream");
    let blas = must(guard.blas(), "blas");
    let cu_ctx = must(CudaContext::new(0), "cudarc CudaContext::new");
    let cu_stream = must(cu_ctx.new_stream(), "cudarc new_stream");
    let cu_blas = must(CudaBlas::new(cu_stream.clone()), "cudarc CudaBlas::new");
    println!(
        "cuBLAS {} on {}, driver {}; {reps} reps a row, medians (±spread), ratios to raw\n",
        must(custack::blas::version(), "version"),
        must(device.name(), "name"),
        must(driver.version(), "driver version"),
    );
    header();
    gemm_row::<f32>(&guard, &stream, &blas, &cu_stream, &cu_blas, 4096, 1, reps);
    gemm_row::<f64>(&guard, &stream, &blas, &cu_stream, &cu_blas, 4096, 1, reps);
    gemm_row::<f32>(&guard, &stream, &blas, &cu_stream, &cu_blas, 64, 100, reps);
    saxpy_row(&guard, &stream, &blas, 1 << 24, 10, reps);
}
