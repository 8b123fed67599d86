//! cuBLASLt through custack against the raw cuBLASLt calls and cudarc's wrapper, in one
//! process, on one GPU.
//!
//! ```text
//! cargo bench -p custack-benches --features cublaslt --bench blaslt  # needs a GPU and cuBLASLt
//! ```
//!
//! Rows: an `F16` 4096³ matmul with a bias and ReLU into `F16` (one a rep), an `f32` 4096³
//! matmul in `f32` arithmetic and one on TF32 tensor cores (one a rep), and `f32` 64³ matmuls on
//! TF32 (100 a rep, where the per-call cost shows). Each rep
//! enqueues its matmuls on one stream and waits for it; the time is the host's, from the first
//! call to the end of the wait. All three use the device's primary context, the same operands
//! (multiples of 1/8, so every sum is exact in `f32` whatever the algorithm) and workspaces of
//! the same size (the handle's default), each its own buffers and stream.
//!
//! - raw: `cublasLtCreate`, the descriptor, layouts, preference (the workspace's size) and the
//!   heuristic's algorithm made once, the workspace allocated once; then `cublasLtMatmul`
//!   through `custack::ffi::cublaslt` and `cuStreamSynchronize`.
//! - custack: `guard.blas_lt()` and `lt.matmul_plan` once; one `Stream::scope` a rep (its end is
//!   the wait) with `plan.run_in_place` on bound buffers (every extent and alignment checked).
//! - cudarc: `CudaBlasLT::new(stream)` and its `Matmul::matmul` (unsafe in cudarc), which makes
//!   the descriptor, layouts and preference and asks the heuristic on every call, then
//!   `stream.synchronize()`. Its `f32` matmul always computes on TF32 tensor cores
//!   (`CUBLAS_COMPUTE_32F_FAST_TF32`), so it has a column in the TF32 rows only; its half types
//!   need its `f16` feature and the `half` crate, which custack does not depend on: the `F16`
//!   row has no cudarc column either.
//!
//! After a warm-up of each, the outputs must be equal. The order rotates each rep; reported:
//! the median over `CUSTACK_BLASLT_REPS` reps (default 30), the spread and the ratios to raw.
//! Nothing asserts a time. Without `--bench` (as `cargo test --all-targets` runs it) it prints
//! how to run it and exits.
#![allow(
    clippy::multiple_unsafe_ops_per_block,
    clippy::too_many_lines,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    clippy::many_single_char_names,
    clippy::too_many_arguments
)]

#[path = "common/mod.rs"]
mod common;

use common::{cu, header, must, print, reps, rotate, running};
use core::ffi::c_void;
use cudarc::cublaslt::{Activation, CudaBlasLT, Matmul as _, MatmulConfig};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use custack::blas::{F16, Gemm};
use custack::blaslt::{Bias, BlasLt, Epilogue, Matmul, MatmulInput, MatmulOutput};
use custack::ffi::cublas as cb;
use custack::ffi::cublaslt as lt;
use custack::{Context, DeviceBuffer, DeviceMemory, Driver, PushedGuard, Stack, Stream, ffi};
use std::cell::RefCell;
use std::sync::Arc;

fn st(r: cb::cublasStatus_t, what: &str) {
    common::check(r, cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS, what);
}

/// Multiples of 1/8 in [-1, 1].
fn eighths(len: usize, mul: usize, add: usize) -> Vec<f32> {
    (0..len)
        .map(|i| f32::from(((i * mul + add) % 17) as u8) / 8.0 - 1.0)
        .collect()
}

/// The raw side of one row: its handle, stream, descriptors, algorithm and buffers.
struct Raw {
    handle: lt::cublasLtHandle_t,
    stream: ffi::CUstream,
    desc: lt::cublasLtMatmulDesc_t,
    layouts: [lt::cublasLtMatrixLayout_t; 2],
    algo: lt::cublasLtMatmulAlgo_t,
    workspace: ffi::CUdeviceptr,
    workspace_bytes: usize,
    buffers: Vec<ffi::CUdeviceptr>,
}

impl Raw {
    /// An `n`³ matmul of inputs `a_type` into `d_type`, with a bias and ReLU if `epilogue`.
    fn new(
        n: u64,
        (a_type, d_type, compute): (cb::cudaDataType, cb::cudaDataType, cb::cublasComputeType_t),
        epilogue: lt::cublasLtEpilogue_t,
        workspace_bytes: usize,
    ) -> Self {
        let mut raw = Self {
            handle: core::ptr::null_mut(),
            stream: core::ptr::null_mut(),
            desc: core::ptr::null_mut(),
            layouts: [core::ptr::null_mut(); 2],
            algo: lt::cublasLtMatmulAlgo_t::default(),
            workspace: 0,
            workspace_bytes,
            buffers: Vec::new(),
        };
        // SAFETY: out-pointers to fields of a live local; the values match the attributes'
        // documented types (an int epilogue, a uint64 workspace size); the primary context is
        // current (the guard).
        unsafe {
            cu(
                ffi::cuStreamCreate(&raw mut raw.stream, 0),
                "cuStreamCreate",
            );
            cu(
                ffi::cuMemAlloc_v2(&raw mut raw.workspace, workspace_bytes),
                "cuMemAlloc_v2",
            );
            st(lt::cublasLtCreate(&raw mut raw.handle), "cublasLtCreate");
            st(
                lt::cublasLtMatmulDescCreate(
                    &raw mut raw.desc,
                    compute,
                    cb::cudaDataType::CUDA_R_32F,
                ),
                "cublasLtMatmulDescCreate",
            );
            st(
                lt::cublasLtMatmulDescSetAttribute(
                    raw.desc,
                    lt::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_EPILOGUE,
                    (&raw const epilogue.0).cast(),
                    4,
                ),
                "cublasLtMatmulDescSetAttribute",
            );
            let n_i = n as i64;
            st(
                lt::cublasLtMatrixLayoutCreate(&raw mut raw.layouts[0], a_type, n, n, n_i),
                "cublasLtMatrixLayoutCreate",
            );
            st(
                lt::cublasLtMatrixLayoutCreate(&raw mut raw.layouts[1], d_type, n, n, n_i),
                "cublasLtMatrixLayoutCreate",
            );
            let mut pref = core::ptr::null_mut();
            st(
                lt::cublasLtMatmulPreferenceCreate(&raw mut pref),
                "cublasLtMatmulPreferenceCreate",
            );
            let max = workspace_bytes as u64;
            st(
                lt::cublasLtMatmulPreferenceSetAttribute(
                    pref,
                    lt::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                    (&raw const max).cast(),
                    8,
                ),
                "cublasLtMatmulPreferenceSetAttribute",
            );
            let mut result = core::mem::zeroed::<lt::cublasLtMatmulHeuristicResult_t>();
            let mut found = 0;
            let [a, d] = raw.layouts;
            st(
                lt::cublasLtMatmulAlgoGetHeuristic(
                    raw.handle,
                    raw.desc,
                    a,
                    a,
                    d,
                    d,
                    pref,
                    1,
                    &raw mut result,
                    &raw mut found,
                ),
                "cublasLtMatmulAlgoGetHeuristic",
            );
            if found < 1 {
                eprintln!("benches/blaslt: the heuristic has no algorithm");
                std::process::exit(1)
            }
            raw.algo = result.algo;
            st(
                lt::cublasLtMatmulPreferenceDestroy(pref),
                "cublasLtMatmulPreferenceDestroy",
            );
        }
        raw
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
        // SAFETY: `p` holds at least `len` elements (uploaded with as many).
        cu(
            unsafe { ffi::cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), p, len * size_of::<T>()) },
            "cuMemcpyDtoH_v2",
        );
        v
    }

    /// `D = A·B` (+ bias, ReLU) in place, `calls` times, then the wait.
    fn run(
        &self,
        a: ffi::CUdeviceptr,
        d: ffi::CUdeviceptr,
        bias: Option<ffi::CUdeviceptr>,
        calls: usize,
    ) {
        let (alpha, beta) = (1.0f32, 0.0f32);
        let [la, ld] = self.layouts;
        // SAFETY: live handle, descriptor, layouts and algorithm; buffers of `n·n` elements;
        // the workspace is the algorithm's; the stream is live.
        unsafe {
            if let Some(p) = bias {
                st(
                    lt::cublasLtMatmulDescSetAttribute(
                        self.desc,
                        lt::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                        (&raw const p).cast(),
                        8,
                    ),
                    "cublasLtMatmulDescSetAttribute",
                );
            }
            for _ in 0..calls {
                st(
                    lt::cublasLtMatmul(
                        self.handle,
                        self.desc,
                        (&raw const alpha).cast(),
                        a as *const c_void,
                        la,
                        a as *const c_void,
                        la,
                        (&raw const beta).cast(),
                        d as *const c_void,
                        ld,
                        d as *mut c_void,
                        ld,
                        &raw const self.algo,
                        self.workspace as *mut c_void,
                        self.workspace_bytes,
                        self.stream,
                    ),
                    "cublasLtMatmul",
                );
            }
            cu(ffi::cuStreamSynchronize(self.stream), "cuStreamSynchronize");
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: all live, made by `new`/`upload`; the stream is idle (each rep waits).
        unsafe {
            for &p in &self.buffers {
                cu(ffi::cuMemFree_v2(p), "cuMemFree_v2");
            }
            for l in self.layouts {
                st(
                    lt::cublasLtMatrixLayoutDestroy(l),
                    "cublasLtMatrixLayoutDestroy",
                );
            }
            st(
                lt::cublasLtMatmulDescDestroy(self.desc),
                "cublasLtMatmulDescDestroy",
            );
            st(lt::cublasLtDestroy(self.handle), "cublasLtDestroy");
            cu(ffi::cuMemFree_v2(self.workspace), "cuMemFree_v2");
            cu(ffi::cuStreamDestroy_v2(self.stream), "cuStreamDestroy_v2");
        }
    }
}

struct Sides<'a, 'g> {
    guard: &'a PushedGuard<'g, 'g>,
    stream: &'a Stream<'a>,
    lt: &'a BlasLt<'a>,
    cu_stream: &'a Arc<CudaStream>,
    cu_lt: &'a CudaBlasLT,
    reps: usize,
}

/// A row of `calls` `n`³ matmuls of inputs `A` into `D`, with a bias and ReLU if `bias`, on
/// TF32 tensor cores if `tf32` (then cudarc, whose `f32` matmul computes so, has a column).
fn row<A, D>(
    sides: &Sides<'_, '_>,
    name: &str,
    n: usize,
    calls: usize,
    (bias, tf32): (bool, bool),
    to_a: fn(f32) -> A,
    to_d: fn(f32) -> D,
    from_d: fn(D) -> f32,
) where
    A: MatmulInput + Default + PartialEq,
    D: MatmulOutput<A> + Default + PartialEq + core::fmt::Debug,
{
    let len = n * n;
    let host_a: Vec<A> = eighths(len, 3, 1).into_iter().map(to_a).collect();
    let host_bias: Vec<D> = eighths(n, 7, 2).into_iter().map(to_d).collect();
    let epilogue = if bias {
        Epilogue::ReluBias
    } else {
        Epilogue::None
    };
    let raw_epilogue = if bias {
        lt::cublasLtEpilogue_t::CUBLASLT_EPILOGUE_RELU_BIAS
    } else {
        lt::cublasLtEpilogue_t::CUBLASLT_EPILOGUE_DEFAULT
    };
    let compute = if tf32 {
        cb::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32
    } else {
        cb::cublasComputeType_t::CUBLAS_COMPUTE_32F
    };
    let mut raw = Raw::new(
        n as u64,
        (A::DATA_TYPE, D::DATA_TYPE, compute),
        raw_epilogue,
        sides.lt.workspace_bytes(),
    );
    let (ra, rd) = (raw.upload(&host_a), raw.upload(&vec![D::default(); len]));
    let rb = raw.upload(&host_bias);
    let matmul = Matmul::new(Gemm::new(n, n, n)).epilogue(epilogue);
    let matmul = if tf32 { matmul.fast_tf32() } else { matmul };
    let plan = must(sides.lt.matmul_plan::<A, D>(&matmul), "matmul_plan");
    let ca = must(sides.guard.alloc_from(&host_a), "alloc_from");
    let cbias = must(sides.guard.alloc_from(&host_bias), "alloc_from");
    let cd: RefCell<DeviceBuffer<'_, D>> =
        RefCell::new(must(sides.guard.alloc_zeroed(len), "alloc_zeroed"));
    let mut op_raw = || raw.run(ra, rd, bias.then_some(rb), calls);
    let mut op_custack = || {
        let mut out = cd.borrow_mut();
        let done = sides.stream.scope(|s| -> custack::Result<()> {
            let (a, mut d) = (s.bind(&ca), s.bind_mut(&mut *out));
            for _ in 0..calls {
                if bias {
                    plan.run_in_place(s, a, a, &mut d, Bias(s.bind(&cbias)))?;
                } else {
                    plan.run_in_place(s, a, a, &mut d, ())?;
                }
            }
            Ok(())
        });
        must(must(done, "scope"), "custack run");
    };
    op_raw();
    op_custack();
    let r = Raw::download::<D>(rd, len);
    let c = must(cd.borrow().to_vec(), "to_vec");
    if r != c {
        eprintln!("benches/blaslt: {name}: custack's output differs from raw's");
        std::process::exit(1)
    }
    // cudarc, for f32 only (see the module docs).
    let host_f32: Option<Vec<f32>> =
        (A::DATA_TYPE == cb::cudaDataType::CUDA_R_32F).then(|| eighths(len, 3, 1));
    let theirs = host_f32.map(|h| {
        (
            must(sides.cu_stream.clone_htod(&h), "cudarc clone_htod"),
            RefCell::new(must(
                sides.cu_stream.alloc_zeros::<f32>(len),
                "cudarc alloc_zeros",
            )),
            must(
                sides.cu_stream.clone_htod(&eighths(n, 7, 2)),
                "cudarc clone_htod",
            ),
        )
    });
    let cfg = MatmulConfig {
        transa: false,
        transb: false,
        transc: false,
        m: n as u64,
        n: n as u64,
        k: n as u64,
        alpha: 1.0,
        lda: n as i64,
        ldb: n as i64,
        beta: 0.0,
        ldc: n as i64,
        stride_a: None,
        stride_b: None,
        stride_c: None,
        stride_bias: None,
        batch_size: None,
    };
    let mut op_cudarc = || {
        let Some((a, d, b)) = &theirs else { return };
        let mut d: std::cell::RefMut<'_, CudaSlice<f32>> = d.borrow_mut();
        for _ in 0..calls {
            // SAFETY: cudarc's contract: the shape fits the `n·n` slices and the bias of `n`.
            must(
                unsafe {
                    sides.cu_lt.matmul(
                        cfg,
                        a,
                        a,
                        &mut *d,
                        bias.then_some(b),
                        bias.then_some(&Activation::Relu),
                    )
                },
                "cudarc matmul",
            );
        }
        must(sides.cu_stream.synchronize(), "cudarc synchronize");
    };
    if let Some((_, d, _)) = &theirs {
        op_cudarc();
        let got = must(
            sides.cu_stream.clone_dtoh(&*d.borrow()),
            "cudarc clone_dtoh",
        );
        let ours: Vec<f32> = c.iter().map(|&v| from_d(v)).collect();
        if got != ours {
            eprintln!("benches/blaslt: {name}: cudarc's output differs from custack's");
            std::process::exit(1)
        }
    }
    let f = rotate(
        sides.reps,
        &mut [
            Some(&mut op_raw),
            Some(&mut op_custack),
            theirs
                .is_some()
                .then_some(&mut op_cudarc as &mut dyn FnMut()),
        ],
    );
    print(name, &f);
}

fn main() {
    if !running("cargo bench -p custack-benches --features cublaslt --bench blaslt") {
        return;
    }
    let reps = reps("CUSTACK_BLASLT_REPS");
    let driver = must(Driver::init(), "Driver::init");
    let device = must(driver.device(0), "device 0");
    // Everyone's context: the device's primary context (cudarc's `CudaContext::new` retains it
    // too and makes it current, which leaves custack's pushed guard on the same context).
    let ctx = must(Context::primary(device), "Context::primary");
    let mut stack = must(Stack::new(), "Stack::new");
    let guard = must(stack.push(&ctx), "push");
    let stream = must(guard.stream(), "stream");
    let blas_lt = must(guard.blas_lt(), "blas_lt");
    let cu_ctx = must(CudaContext::new(0), "cudarc CudaContext::new");
    let cu_stream = must(cu_ctx.new_stream(), "cudarc new_stream");
    let cu_lt = must(CudaBlasLT::new(cu_stream.clone()), "cudarc CudaBlasLT::new");
    println!(
        "cuBLASLt {} on {}, driver {}; {} bytes of workspace; {reps} reps a row, medians \
         (±spread), ratios to raw\n",
        must(custack::blaslt::version(), "version"),
        must(device.name(), "name"),
        must(driver.version(), "driver version"),
        blas_lt.workspace_bytes(),
    );
    header();
    let sides = Sides {
        guard: &guard,
        stream: &stream,
        lt: &blas_lt,
        cu_stream: &cu_stream,
        cu_lt: &cu_lt,
        reps,
    };
    let (h, to_h, id) = (F16::from_f32, F16::to_f32, |x: f32| x);
    row::<F16, F16>(
        &sides,
        "F16 4096³ + bias, ReLU",
        4096,
        1,
        (true, false),
        h,
        h,
        to_h,
    );
    row::<f32, f32>(&sides, "f32 4096³", 4096, 1, (false, false), id, id, id);
    row::<f32, f32>(&sides, "f32 4096³ TF32", 4096, 1, (false, true), id, id, id);
    row::<f32, f32>(
        &sides,
        "f32 64³ ×100 TF32",
        64,
        100,
        (false, true),
        id,
        id,
        id,
    );
}
