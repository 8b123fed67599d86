//! cuSOLVER through custack against the raw cuSOLVER calls, in one process, on one GPU.
//!
//! ```text
//! cargo bench -p custack-benches --features cusolver --bench cusolver  # needs a GPU and cuSOLVER
//! ```
//!
//! Rows, all `f64`: the LU factorization (`getrf`) and the Cholesky factorization (`potrf`)
//! of one 4096 × 4096 matrix (one call a rep), and of 100 matrices of 64 × 64 (100 calls a
//! rep, where the per-call cost shows). Each call first restores its matrix from a pristine
//! copy (`cuMemcpyDtoDAsync`, on both sides alike), since a factorization overwrites it. Each
//! rep enqueues its work on one stream and waits for it; the time is the host's, from the first
//! call to the end of the wait. Both sides use the device's primary context and the same input,
//! each its own buffers, stream and handle. cudarc's column is `n/a`: cudarc 0.19 has no safe
//! factorization, its `cudarc::cusolver::safe` module wraps the handles only (`DnHandle`,
//! `DnParams`, `SpHandle`, `RfHandle`), `cudarc::cusolver::result` their creation and streams,
//! and `getrf`/`potrf` are in the raw bindings `cudarc::cusolver::sys` alone.
//!
//! - raw: `cusolverDnCreate`, `cusolverDnSetStream` once, the workspace from
//!   `cusolverDnDgetrf_bufferSize`/`potrf_bufferSize` allocated once, a device array of one
//!   info word a call; each rep, the calls through `custack::ffi::cusolver`, one
//!   `cuMemcpyDtoHAsync` of all the info words, and `cuStreamSynchronize` (reading the infos
//!   is what makes a raw factorization's result usable, as custack's does).
//! - custack: `guard.lu_plan`/`cholesky_plan` (the workspace allocated with the plan), one
//!   `SolverInfos` array of a slot a call (allocated once), one `Stream::scope` a rep (its end
//!   is the wait), an `InfoBatch` opened on it, the calls on bound buffers (every length
//!   checked; each call writes its own slot; the batch's drop enqueues one copy of them all),
//!   then every info checked on the host.
//!
//! After a warm-up of each, both outputs must agree (within `1e-9` of the largest value) and
//! every info must be 0. The order rotates each rep; reported: the median over
//! `CUSTACK_SOLVER_REPS` reps (default 30), the spread and the ratio to raw. Nothing asserts a
//! time. Without `--bench` (as `cargo test --all-targets` runs it) it prints how to run it and
//! exits.
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
use custack::ffi::cusolver as cs;
use custack::solver::{Fill, Matrix};
use custack::{Context, DeviceBuffer, DeviceMemory, Driver, PushedGuard, Stack, Stream, ffi};
use std::cell::RefCell;

fn st(r: cs::cusolverStatus_t, what: &str) {
    common::check(r, cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS, what);
}

/// A symmetric, diagonally dominant `n × n` matrix: positive definite, so both factorizations
/// succeed.
fn spd(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 52) as f64 - 0.5
    };
    let mut a = vec![0.0; n * n];
    for j in 0..n {
        for i in j..n {
            let v = next() + if i == j { n as f64 } else { 0.0 };
            a[i + j * n] = v;
            a[j + i * n] = v;
        }
    }
    a
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Lu,
    Cholesky,
}

/// The raw side: a handle, its stream, workspace, and the buffers of `count` matrices.
struct Raw {
    handle: cs::cusolverDnHandle_t,
    stream: ffi::CUstream,
    work: ffi::CUdeviceptr,
    lwork: i32,
    pristine: Vec<ffi::CUdeviceptr>,
    a: Vec<ffi::CUdeviceptr>,
    ipiv: ffi::CUdeviceptr,
    info: ffi::CUdeviceptr,
    host_info: Vec<i32>,
}

fn alloc(bytes: usize) -> ffi::CUdeviceptr {
    let mut p = 0;
    // SAFETY: an out-pointer to a local; the primary context is current.
    cu(
        unsafe { ffi::cuMemAlloc_v2(&raw mut p, bytes) },
        "cuMemAlloc_v2",
    );
    p
}

impl Raw {
    fn new(op: Op, n: usize, count: usize, host: &[f64]) -> Self {
        let (mut handle, mut stream, mut lwork) = (core::ptr::null_mut(), core::ptr::null_mut(), 0);
        let bytes = n * n * 8;
        let mut pristine = Vec::new();
        let mut a = Vec::new();
        for _ in 0..count {
            let p = alloc(bytes);
            // SAFETY: `p` holds `bytes`, `host` as many.
            cu(
                unsafe { ffi::cuMemcpyHtoD_v2(p, host.as_ptr().cast(), bytes) },
                "cuMemcpyHtoD_v2",
            );
            pristine.push(p);
            a.push(alloc(bytes));
        }
        // SAFETY: out-pointers to locals; the primary context is current; the queries read
        // only the dimensions.
        unsafe {
            cu(ffi::cuStreamCreate(&raw mut stream, 0), "cuStreamCreate");
            st(cs::cusolverDnCreate(&raw mut handle), "cusolverDnCreate");
            st(
                cs::cusolverDnSetStream(handle, stream),
                "cusolverDnSetStream",
            );
            let ni = n as i32;
            match op {
                Op::Lu => st(
                    cs::cusolverDnDgetrf_bufferSize(
                        handle,
                        ni,
                        ni,
                        a[0] as *mut f64,
                        ni,
                        &raw mut lwork,
                    ),
                    "cusolverDnDgetrf_bufferSize",
                ),
                Op::Cholesky => st(
                    cs::cusolverDnDpotrf_bufferSize(
                        handle,
                        cs::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
                        ni,
                        a[0] as *mut f64,
                        ni,
                        &raw mut lwork,
                    ),
                    "cusolverDnDpotrf_bufferSize",
                ),
            }
        }
        Self {
            handle,
            stream,
            work: alloc((lwork.max(1) as usize) * 8),
            lwork,
            pristine,
            a,
            ipiv: alloc(n * 4),
            info: alloc(count * 4),
            host_info: vec![-1; count],
        }
    }

    fn run(&mut self, op: Op, n: usize) {
        let ni = n as i32;
        for (k, (&a, &p)) in self.a.iter().zip(&self.pristine).enumerate() {
            let info = (self.info + (k * 4) as u64) as *mut i32;
            // SAFETY: live buffers of `n·n` doubles, a workspace of `lwork`, `n` pivots, one
            // info word each; the handle's stream is `self.stream`.
            unsafe {
                cu(
                    ffi::cuMemcpyDtoDAsync_v2(a, p, n * n * 8, self.stream),
                    "cuMemcpyDtoDAsync_v2",
                );
                match op {
                    Op::Lu => st(
                        cs::cusolverDnDgetrf(
                            self.handle,
                            ni,
                            ni,
                            a as *mut f64,
                            ni,
                            self.work as *mut f64,
                            self.ipiv as *mut i32,
                            info,
                        ),
                        "cusolverDnDgetrf",
                    ),
                    Op::Cholesky => st(
                        cs::cusolverDnDpotrf(
                            self.handle,
                            cs::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
                            ni,
                            a as *mut f64,
                            ni,
                            self.work as *mut f64,
                            self.lwork,
                            info,
                        ),
                        "cusolverDnDpotrf",
                    ),
                }
            }
        }
        // SAFETY: `host_info` holds one int a call, the device array as many; then the wait.
        unsafe {
            cu(
                ffi::cuMemcpyDtoHAsync_v2(
                    self.host_info.as_mut_ptr().cast(),
                    self.info,
                    self.host_info.len() * 4,
                    self.stream,
                ),
                "cuMemcpyDtoHAsync_v2",
            );
            cu(ffi::cuStreamSynchronize(self.stream), "cuStreamSynchronize");
        }
        if self.host_info.iter().any(|&i| i != 0) {
            eprintln!("benches/cusolver: raw info {:?}", self.host_info);
            std::process::exit(1)
        }
    }

    fn download(&self, n: usize) -> Vec<f64> {
        let mut v = vec![0.0; n * n];
        // SAFETY: the last matrix holds `n·n` doubles; the stream is idle.
        cu(
            unsafe {
                ffi::cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), self.a[self.a.len() - 1], n * n * 8)
            },
            "cuMemcpyDtoH_v2",
        );
        v
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: all live, made by `new`; the stream is idle (each rep waits).
        unsafe {
            for &p in self
                .a
                .iter()
                .chain(&self.pristine)
                .chain([&self.work, &self.ipiv, &self.info])
            {
                cu(ffi::cuMemFree_v2(p), "cuMemFree_v2");
            }
            st(cs::cusolverDnDestroy(self.handle), "cusolverDnDestroy");
            cu(ffi::cuStreamDestroy_v2(self.stream), "cuStreamDestroy_v2");
        }
    }
}

fn row(
    guard: &PushedGuard<'_, '_>,
    stream: &Stream<'_>,
    reps: usize,
    op: Op,
    n: usize,
    count: usize,
) {
    let host = spd(n, 7);
    let raw = RefCell::new(Raw::new(op, n, count, &host));
    let pristine: Vec<DeviceBuffer<'_, f64>> = (0..count)
        .map(|_| must(guard.alloc_from(&host), "alloc_from"))
        .collect();
    let a: RefCell<Vec<DeviceBuffer<'_, f64>>> = RefCell::new(
        (0..count)
            .map(|_| must(guard.alloc_zeroed(n * n), "alloc_zeroed"))
            .collect(),
    );
    let mut ipiv = must(guard.lu_pivots(Matrix::square(n)), "lu_pivots");
    let infos = RefCell::new(must(guard.solver_infos(count), "solver_infos"));
    let shape = Matrix::square(n);
    let lu = (op == Op::Lu).then(|| must(guard.lu_plan::<f64>(shape), "lu_plan"));
    let chol = (op == Op::Cholesky).then(|| {
        must(
            guard.cholesky_plan::<f64>(shape, Fill::Lower),
            "cholesky_plan",
        )
    });
    let ipiv = RefCell::new(&mut ipiv);
    let mut op_raw = || raw.borrow_mut().run(op, n);
    let mut op_custack = || {
        let (mut a, mut infos, mut ipiv) = (a.borrow_mut(), infos.borrow_mut(), ipiv.borrow_mut());
        let done = stream.scope(|s| -> custack::Result<()> {
            let mut p = s.bind_pivots(&mut ipiv);
            let batch = infos.open(s);
            for (m, src) in a.iter_mut().zip(&pristine) {
                let mut m = s.bind_mut(m);
                s.copy_device(&mut m, s.bind(src))?;
                match (&lu, &chol) {
                    (Some(lu), _) => lu.getrf(s, &mut m, &mut p, &batch)?,
                    (_, Some(chol)) => chol.potrf(s, &mut m, &batch)?,
                    _ => unreachable!(),
                }
            }
            Ok(())
        });
        must(must(done, "scope"), "custack call");
        must(infos.ensure_success(), "info");
    };
    op_raw();
    op_custack();
    let name = match op {
        Op::Lu => "getrf",
        Op::Cholesky => "potrf",
    };
    let label = if count == 1 {
        format!("D{name} {n}×{n}")
    } else {
        format!("D{name} {n}×{n}, {count} calls")
    };
    let (ours, theirs) = (
        must(a.borrow()[count - 1].to_vec(), "to_vec"),
        raw.borrow().download(n),
    );
    let scale = theirs.iter().fold(1.0, |m: f64, v| m.max(v.abs()));
    let diff = ours
        .iter()
        .zip(&theirs)
        .fold(0.0, |m: f64, (x, y)| m.max((x - y).abs()));
    if diff > 1e-9 * scale {
        eprintln!("benches/cusolver: {label}: custack's factor differs from raw's by {diff}");
        std::process::exit(1)
    }
    let f = rotate(reps, &mut [Some(&mut op_raw), Some(&mut op_custack), None]);
    print(&label, &f);
}

fn main() {
    if !running("cargo bench -p custack-benches --features cusolver --bench cusolver") {
        return;
    }
    let reps = reps("CUSTACK_SOLVER_REPS");
    let driver = must(Driver::init(), "Driver::init");
    let device = must(driver.device(0), "device 0");
    let ctx = must(Context::primary(device), "Context::primary");
    let mut stack = must(Stack::new(), "Stack::new");
    let guard = must(stack.push(&ctx), "push");
    let stream = must(guard.stream(), "stream");
    println!(
        "cuSOLVER {} on {}, driver {}; {reps} reps a row, medians (±spread), ratios to raw\n",
        must(custack::solver::version(), "version"),
        must(device.name(), "name"),
        must(driver.version(), "driver version"),
    );
    header();
    for op in [Op::Lu, Op::Cholesky] {
        row(&guard, &stream, reps, op, 4096, 1);
        row(&guard, &stream, reps, op, 64, 100);
    }
}
