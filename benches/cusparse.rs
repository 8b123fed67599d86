//! cuSPARSE through custack against the raw cuSPARSE calls, in one process, on one GPU.
//!
//! ```text
//! cargo bench -p custack-benches --features cusparse --bench cusparse  # needs a GPU and cuSPARSE
//! ```
//!
//! Rows: `SpMV` `y = A·x` in `f32` of a CSR matrix of 1,000,000 rows and columns with 10
//! non-zeros a row at random columns (one `SpMV` a rep); the same with 20 `SpMV`s a rep; a matrix
//! of 10,000 rows with 100 `SpMV`s a rep, where the per-call cost shows. Each rep enqueues its
//! calls on one stream and waits for it; the time is the host's, from the first call to the
//! end of the wait. Both sides use the device's primary context, the same matrix and vector,
//! each its own buffers, stream and handle.
//!
//! - raw: `cusparseCreate`, `cusparseSetStream`, `cusparseCreateConstCsr`,
//!   `cusparseCreateDnVec` for `x` and `y`, `cusparseSpMV_bufferSize` and the buffer, once;
//!   then `cusparseSpMV` through `custack::ffi::cusparse`, and `cuStreamSynchronize`.
//! - custack: the pattern checked on the host (`guard.csr_pattern`) and the plan
//!   (`guard.spmv_plan`), once; each rep one `Stream::scope` (its end is the wait) making the
//!   matrix descriptor over the bound values, then `plan.run` on bound vectors (each call
//!   checks the lengths, makes and destroys the two dense-vector descriptors and asks cuSPARSE
//!   the workspace size again: what custack adds to each call).
//! - cudarc: no column (n/a). cudarc 0.19 has no safe cuSPARSE API: its `cusparse` module is
//!   the raw bindings `cudarc::cusparse::sys` (where `cusparseSpMV` is) and
//!   `cudarc::cusparse::result` (a handle's create and destroy), no `safe` module.
//!
//! After a warm-up of each, the two outputs must agree (within `1e-4` of the largest value).
//! The order rotates each rep; reported: the median over `CUSTACK_CUSPARSE_REPS` reps (default
//! 30), the spread and the ratio to raw. Nothing asserts a time. Without `--bench` (as `cargo
//! test --all-targets` runs it) it prints how to run it and exits.
#![allow(
    clippy::multiple_unsafe_ops_per_block,
    clippy::too_many_lines,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss,
    clippy::many_single_char_names
)]

#[path = "common/mod.rs"]
mod common;

use common::{cu, header, must, print, reps, rotate, running};
use core::ffi::c_void;
use custack::ffi::cusparse as sp;
use custack::sparse::{SpMv, SparseMatrix};
use custack::{Context, DeviceMemory, Driver, PushedGuard, Stack, Stream, ffi};
use std::cell::RefCell;

fn st(r: sp::cusparseStatus_t, what: &str) {
    common::check(r, sp::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS, what);
}

/// A xorshift stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn value(&mut self) -> f32 {
        ((self.next() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

/// An `n × n` CSR matrix with `per_row` non-zeros a row at random, sorted, distinct columns.
fn matrix(n: usize, per_row: usize) -> (Vec<i32>, Vec<i32>, Vec<f32>) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut offsets, mut cols, mut values) = (vec![0i32], Vec::new(), Vec::new());
    for _ in 0..n {
        let mut row: Vec<i32> = (0..per_row)
            .map(|_| (rng.next() % n as u64) as i32)
            .collect();
        row.sort_unstable();
        row.dedup();
        for c in row {
            cols.push(c);
            values.push(rng.value());
        }
        offsets.push(cols.len() as i32);
    }
    (offsets, cols, values)
}

/// The raw side: a handle, descriptors and buffers made once.
struct Raw {
    handle: sp::cusparseHandle_t,
    stream: ffi::CUstream,
    a: sp::cusparseConstSpMatDescr_t,
    x: sp::cusparseDnVecDescr_t,
    y: sp::cusparseDnVecDescr_t,
    buffer: ffi::CUdeviceptr,
    buffers: Vec<ffi::CUdeviceptr>,
    y_at: ffi::CUdeviceptr,
}

fn upload<T: Copy>(buffers: &mut Vec<ffi::CUdeviceptr>, host: &[T]) -> ffi::CUdeviceptr {
    let bytes = core::mem::size_of_val(host);
    let mut p = 0;
    // SAFETY: a fresh allocation of at least `bytes`, filled from `host` of as many bytes.
    unsafe {
        cu(
            ffi::cuMemAlloc_v2(&raw mut p, bytes.max(1)),
            "cuMemAlloc_v2",
        );
        cu(
            ffi::cuMemcpyHtoD_v2(p, host.as_ptr().cast(), bytes),
            "cuMemcpyHtoD_v2",
        );
    }
    buffers.push(p);
    p
}

fn vp(p: ffi::CUdeviceptr) -> *mut c_void {
    p as usize as *mut c_void
}

static ALPHA: f32 = 1.0;
static BETA: f32 = 0.0;

impl Raw {
    fn new(n: usize, (offsets, cols, values): &(Vec<i32>, Vec<i32>, Vec<f32>), x: &[f32]) -> Self {
        let mut buffers = Vec::new();
        let (o, c, v, xa) = (
            upload(&mut buffers, offsets),
            upload(&mut buffers, cols),
            upload(&mut buffers, values),
            upload(&mut buffers, x),
        );
        let y_at = upload(&mut buffers, &vec![0.0f32; n]);
        let (mut handle, mut stream) = (core::ptr::null_mut(), core::ptr::null_mut());
        let (mut a, mut dx, mut dy) = (
            core::ptr::null(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
        );
        let mut bytes = 0usize;
        let mut buffer = 0;
        // SAFETY: out-pointers to locals; the arrays uploaded above hold the structure, values
        // and vectors of the sizes given; the primary context is current.
        unsafe {
            cu(ffi::cuStreamCreate(&raw mut stream, 0), "cuStreamCreate");
            st(sp::cusparseCreate(&raw mut handle), "cusparseCreate");
            st(sp::cusparseSetStream(handle, stream), "cusparseSetStream");
            st(
                sp::cusparseCreateConstCsr(
                    &raw mut a,
                    n as i64,
                    n as i64,
                    values.len() as i64,
                    vp(o),
                    vp(c),
                    vp(v),
                    sp::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                    sp::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                    sp::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                    sp::cudaDataType::CUDA_R_32F,
                ),
                "cusparseCreateConstCsr",
            );
            st(
                sp::cusparseCreateDnVec(
                    &raw mut dx,
                    n as i64,
                    vp(xa),
                    sp::cudaDataType::CUDA_R_32F,
                ),
                "cusparseCreateDnVec",
            );
            st(
                sp::cusparseCreateDnVec(
                    &raw mut dy,
                    n as i64,
                    vp(y_at),
                    sp::cudaDataType::CUDA_R_32F,
                ),
                "cusparseCreateDnVec",
            );
            st(
                sp::cusparseSpMV_bufferSize(
                    handle,
                    sp::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    (&raw const ALPHA).cast(),
                    a,
                    dx.cast_const(),
                    (&raw const BETA).cast(),
                    dy,
                    sp::cudaDataType::CUDA_R_32F,
                    sp::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT,
                    &raw mut bytes,
                ),
                "cusparseSpMV_bufferSize",
            );
            if bytes > 0 {
                cu(ffi::cuMemAlloc_v2(&raw mut buffer, bytes), "cuMemAlloc_v2");
            }
        }
        Self {
            handle,
            stream,
            a,
            x: dx,
            y: dy,
            buffer,
            buffers,
            y_at,
        }
    }

    fn spmv(&self) {
        st(
            // SAFETY: a live handle with its stream set, live descriptors over live buffers, a
            // workspace of the size cuSPARSE asked for, scalars in static memory.
            unsafe {
                sp::cusparseSpMV(
                    self.handle,
                    sp::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    (&raw const ALPHA).cast(),
                    self.a,
                    self.x.cast_const(),
                    (&raw const BETA).cast(),
                    self.y,
                    sp::cudaDataType::CUDA_R_32F,
                    sp::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT,
                    vp(self.buffer),
                )
            },
            "cusparseSpMV",
        );
    }

    fn sync(&self) {
        cu(
            // SAFETY: a live stream.
            unsafe { ffi::cuStreamSynchronize(self.stream) },
            "cuStreamSynchronize",
        );
    }

    fn y(&self, n: usize) -> Vec<f32> {
        let mut v = vec![0.0f32; n];
        cu(
            // SAFETY: `y_at` holds `n` floats (uploaded with as many), `v` has room for them.
            unsafe { ffi::cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), self.y_at, n * 4) },
            "cuMemcpyDtoH_v2",
        );
        v
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: all live, made by `new`, destroyed once; the stream is synchronized first.
        unsafe {
            cu(ffi::cuStreamSynchronize(self.stream), "cuStreamSynchronize");
            st(
                sp::cusparseDestroyDnVec(self.x.cast_const()),
                "cusparseDestroyDnVec",
            );
            st(
                sp::cusparseDestroyDnVec(self.y.cast_const()),
                "cusparseDestroyDnVec",
            );
            st(sp::cusparseDestroySpMat(self.a), "cusparseDestroySpMat");
            st(sp::cusparseDestroy(self.handle), "cusparseDestroy");
            if self.buffer != 0 {
                cu(ffi::cuMemFree_v2(self.buffer), "cuMemFree_v2");
            }
            for &p in &self.buffers {
                cu(ffi::cuMemFree_v2(p), "cuMemFree_v2");
            }
            cu(ffi::cuStreamDestroy_v2(self.stream), "cuStreamDestroy_v2");
        }
    }
}

fn row(guard: &PushedGuard<'_, '_>, stream: &Stream<'_>, reps: usize, n: usize, calls: usize) {
    let host = matrix(n, 10);
    let mut rng = Rng(7);
    let x0: Vec<f32> = (0..n).map(|_| rng.value()).collect();
    let raw = Raw::new(n, &host, &x0);
    let pattern = must(guard.csr_pattern(n, n, &host.0, &host.1), "csr_pattern");
    let values = must(guard.alloc_from(&host.2), "alloc_from");
    let x = must(guard.alloc_from(&x0), "alloc_from");
    let y = RefCell::new(must(guard.alloc_zeroed::<f32>(n), "alloc_zeroed"));
    let d = SpMv::new(ALPHA, BETA);
    let y_plan = must(guard.alloc_zeroed::<f32>(n), "alloc_zeroed");
    let plan = must(
        must(
            stream.scope(|s| {
                let a = SparseMatrix::csr(s, &pattern, s.bind(&values))?;
                guard.spmv_plan(&d, &a, s.bind(&x), s.bind(&y_plan))
            }),
            "scope",
        ),
        "spmv_plan",
    );
    let mut op_raw = || {
        for _ in 0..calls {
            raw.spmv();
        }
        raw.sync();
    };
    let mut op_custack = || {
        let mut y = y.borrow_mut();
        let done = stream.scope(|s| -> custack::Result<()> {
            let a = SparseMatrix::csr(s, &pattern, s.bind(&values))?;
            let (x, mut y) = (s.bind(&x), s.bind_mut(&mut *y));
            for _ in 0..calls {
                plan.run(s, &d, &a, x, &mut y)?;
            }
            Ok(())
        });
        must(must(done, "scope"), "custack spmv");
    };
    op_raw();
    op_custack();
    let name = format!("SpMV f32 CSR {n} rows × 10 nnz, {calls} call(s)");
    let (theirs, ours) = (raw.y(n), must(y.borrow().to_vec(), "to_vec"));
    let scale = theirs.iter().fold(1.0f32, |m, v| m.max(v.abs()));
    let diff = theirs
        .iter()
        .zip(&ours)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    if diff > 1e-4 * scale {
        eprintln!("benches/cusparse: {name}: custack's output differs from raw's by {diff}");
        std::process::exit(1)
    }
    let f = rotate(reps, &mut [Some(&mut op_raw), Some(&mut op_custack), None]);
    print(&name, &f);
}

fn main() {
    if !running("cargo bench -p custack-benches --features cusparse --bench cusparse") {
        return;
    }
    let reps = reps("CUSTACK_CUSPARSE_REPS");
    let driver = must(Driver::init(), "Driver::init");
    let device = must(driver.device(0), "device 0");
    let ctx = must(Context::primary(device), "Context::primary");
    let mut stack = must(Stack::new(), "Stack::new");
    let guard = must(stack.push(&ctx), "push");
    let stream = must(guard.stream(), "stream");
    println!(
        "cuSPARSE {} on {}, driver {}; {reps} reps a row, medians (±spread), ratios to raw\n",
        must(custack::sparse::version(), "version"),
        must(device.name(), "name"),
        must(driver.version(), "driver version"),
    );
    header();
    row(&guard, &stream, reps, 1_000_000, 1);
    row(&guard, &stream, reps, 1_000_000, 20);
    row(&guard, &stream, reps, 10_000, 100);
}
