//! cuDNN through custack against the raw cuDNN calls and cudarc's cuDNN wrapper, in one
//! process, on one GPU.
//!
//! ```text
//! cargo bench -p custack-benches --features cudnn --bench cudnn  # needs a GPU and cuDNN 9
//! ```
//!
//! Rows: a 3×3 convolution (padding 1) with bias and ReLU of 32 images of 64 × 64 × 256
//! channels into 256 channels, `f32`, NHWC, tensor cores allowed (one call a rep); the same in
//! NCHW with FMA math only; and a small one (8 images of 16 × 16 × 32, 100 calls a rep, where
//! the per-call cost shows); and a batched matmul through the graph API, 32 products of
//! 512 × 512 · 512 × 512 `f32`, TF32 allowed (one call a rep; raw and custack only: cudarc has
//! no matmul of cuDNN's). Each rep enqueues its calls on one stream and waits for it; the
//! time is the host's, from the first call to the end of the wait. Every side uses the device's
//! primary context, the same input, each its own buffers, stream and handle.
//!
//! - raw: `cudnnCreate`, the descriptors set as custack sets them, the algorithm custack's plan
//!   chose (so all three run the same kernel) and its workspace (`cuMemAlloc`),
//!   `cudnnSetStream` once, then `cudnnConvolutionBiasActivationForward` through
//!   `custack::ffi::cudnn` (`z` is `y`, scaled by 0), and `cuStreamSynchronize`.
//! - raw matmul: `cudnnCreate`, the graph-API descriptors set as custack sets them (tensors,
//!   operation, graph, heuristics mode A), the execution plan of the first engine configuration
//!   that finalizes (custack's choice too when TF32 is allowed, so both run the same engine), its
//!   workspace, one variant pack made once for the fixed buffers, `cudnnSetStream` once, then
//!   `cudnnBackendExecute` and `cuStreamSynchronize`. custack's `MatmulPlan::run` makes,
//!   finalizes and destroys a variant pack each run (its buffers are the run's), a cost this row
//!   shows.
//! - custack: `guard.conv_plan` (its own handle and workspace), one `Stream::scope` a rep (its
//!   end is the wait), the runs on bound buffers (every extent and alignment checked; the
//!   handle's stream set once, for the first run, since every rep's scope is on the same
//!   stream).
//! - cudarc (0.19, its `cudnn` feature, which this crate's `cudnn` feature turns on):
//!   `Cudnn::new(stream)`, the descriptors made as its `cudnn` module's documentation says
//!   (`create_4d_tensor_ex`, `create_4d_filter`, `create_conv2d` with `set_math_type`,
//!   `create_activation`), a `ConvBiasActivationForward` over them, its `get_workspace_size`
//!   and the workspace (`alloc_zeros`), once; then `ConvBiasActivationForward::launch` (unsafe
//!   in cudarc) and `stream.synchronize()`. The algorithm is custack's plan's, as raw's, not
//!   cudarc's `pick_algorithm` (which would ask cuDNN's heuristics again, and could pick
//!   another kernel). Its `launch` takes `z` as a shared borrow beside `y`'s mutable one, so
//!   `z` is a zeroed buffer of its own the size of `y` (scaled by 0, as on the other sides).
//!   Each launch records cudarc's events on its buffers (its default), as in its other benches.
//!
//! After a warm-up of each, the three outputs must agree (custack's and cudarc's each within
//! `1e-3` of the largest value of raw's). The order rotates each rep; reported: the median over
//! `CUSTACK_CUDNN_REPS` reps (default 30), the spread and the ratios to raw. Nothing asserts a
//! time. Without `--bench` (as `cargo test --all-targets` runs it) it prints how to run it and
//! exits before its first CUDA or cuDNN call: no GPU work.
#![allow(
    clippy::many_single_char_names,
    clippy::multiple_unsafe_ops_per_block,
    clippy::too_many_lines,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss
)]

#[path = "common/mod.rs"]
mod common;

use common::{cu, header, must, print, reps, rotate, running};
use core::ffi::c_void;
use cudarc::cudnn::{ConvBiasActivationForward, Cudnn, sys as cusys};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use custack::dnn::{Conv2d, ConvPlan, Layout, Matmul};
use custack::ffi::cudnn as dn;
use custack::{Context, DeviceBuffer, DeviceMemory, Driver, PushedGuard, Stack, Stream, ffi};
use std::cell::RefCell;
use std::sync::Arc;

fn st(r: dn::cudnnStatus_t, what: &str) {
    common::check(r, dn::cudnnStatus_t::CUDNN_STATUS_SUCCESS, what);
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

/// One row's sizes.
#[derive(Clone, Copy)]
struct Row {
    n: usize,
    c: usize,
    hw: usize,
    k: usize,
    layout: Layout,
    tensor_cores: bool,
    calls: usize,
}

/// The raw side: a handle, its descriptors, its stream, the buffers and the workspace.
struct Raw {
    handle: dn::cudnnHandle_t,
    stream: ffi::CUstream,
    x: dn::cudnnTensorDescriptor_t,
    y: dn::cudnnTensorDescriptor_t,
    bias: dn::cudnnTensorDescriptor_t,
    w: dn::cudnnFilterDescriptor_t,
    conv: dn::cudnnConvolutionDescriptor_t,
    act: dn::cudnnActivationDescriptor_t,
    algo: dn::cudnnConvolutionFwdAlgo_t,
    work: (ffi::CUdeviceptr, usize),
    buffers: Vec<ffi::CUdeviceptr>,
}

/// Packed strides of `n, c, h, w` in the layout, in `n, c, h, w` order.
fn strides(c: i32, h: i32, w: i32, layout: Layout) -> [i32; 4] {
    match layout {
        Layout::Nchw => [c * h * w, h * w, w, 1],
        Layout::Nhwc => [h * w * c, 1, w * c, c],
    }
}

impl Raw {
    fn new(r: Row, algo: dn::cudnnConvolutionFwdAlgo_t) -> Self {
        let (n, c, hw, k) = (r.n as i32, r.c as i32, r.hw as i32, r.k as i32);
        let float = dn::cudnnDataType_t::CUDNN_DATA_FLOAT;
        let null = core::ptr::null_mut();
        let mut raw = Self {
            handle: null,
            stream: null.cast(),
            x: null,
            y: null,
            bias: null,
            w: null,
            conv: null,
            act: null,
            algo,
            work: (0, 0),
            buffers: Vec::new(),
        };
        let format = match r.layout {
            Layout::Nchw => dn::cudnnTensorFormat_t::CUDNN_TENSOR_NCHW,
            Layout::Nhwc => dn::cudnnTensorFormat_t::CUDNN_TENSOR_NHWC,
        };
        // SAFETY: out-pointers to fields; plain values; the primary context is current (the
        // guard); the workspace is allocated to the size cuDNN asks for.
        unsafe {
            cu(
                ffi::cuStreamCreate(&raw mut raw.stream, 0),
                "cuStreamCreate",
            );
            st(dn::cudnnCreate(&raw mut raw.handle), "cudnnCreate");
            st(dn::cudnnCreateTensorDescriptor(&raw mut raw.x), "create x");
            st(dn::cudnnCreateTensorDescriptor(&raw mut raw.y), "create y");
            st(
                dn::cudnnCreateTensorDescriptor(&raw mut raw.bias),
                "create bias",
            );
            st(dn::cudnnCreateFilterDescriptor(&raw mut raw.w), "create w");
            st(
                dn::cudnnCreateConvolutionDescriptor(&raw mut raw.conv),
                "create conv",
            );
            st(
                dn::cudnnCreateActivationDescriptor(&raw mut raw.act),
                "create act",
            );
            let [a, b, cc, d] = strides(c, hw, hw, r.layout);
            st(
                dn::cudnnSetTensor4dDescriptorEx(raw.x, float, n, c, hw, hw, a, b, cc, d),
                "set x",
            );
            let [a, b, cc, d] = strides(k, hw, hw, r.layout);
            st(
                dn::cudnnSetTensor4dDescriptorEx(raw.y, float, n, k, hw, hw, a, b, cc, d),
                "set y",
            );
            st(
                dn::cudnnSetTensor4dDescriptorEx(raw.bias, float, 1, k, 1, 1, k, 1, 1, 1),
                "set bias",
            );
            st(
                dn::cudnnSetFilter4dDescriptor(raw.w, float, format, k, c, 3, 3),
                "set w",
            );
            st(
                dn::cudnnSetConvolution2dDescriptor(
                    raw.conv,
                    1,
                    1,
                    1,
                    1,
                    1,
                    1,
                    dn::cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION,
                    float,
                ),
                "set conv",
            );
            let math = if r.tensor_cores {
                dn::cudnnMathType_t::CUDNN_DEFAULT_MATH
            } else {
                dn::cudnnMathType_t::CUDNN_FMA_MATH
            };
            st(dn::cudnnSetConvolutionMathType(raw.conv, math), "set math");
            st(
                dn::cudnnSetActivationDescriptor(
                    raw.act,
                    dn::cudnnActivationMode_t::CUDNN_ACTIVATION_RELU,
                    dn::cudnnNanPropagation_t::CUDNN_PROPAGATE_NAN,
                    0.0,
                ),
                "set act",
            );
            let mut bytes = 0usize;
            st(
                dn::cudnnGetConvolutionForwardWorkspaceSize(
                    raw.handle,
                    raw.x,
                    raw.w,
                    raw.conv,
                    raw.y,
                    algo,
                    &raw mut bytes,
                ),
                "workspace size",
            );
            if bytes > 0 {
                let mut p = 0;
                cu(ffi::cuMemAlloc_v2(&raw mut p, bytes), "cuMemAlloc_v2");
                raw.work = (p, bytes);
            }
            st(dn::cudnnSetStream(raw.handle, raw.stream), "cudnnSetStream");
        }
        raw
    }

    fn upload(&mut self, host: &[f32]) -> ffi::CUdeviceptr {
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

    fn download(p: ffi::CUdeviceptr, len: usize) -> Vec<f32> {
        let mut v = vec![0f32; len];
        // SAFETY: `p` holds at least `len` floats (uploaded with as many).
        cu(
            unsafe { ffi::cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), p, len * 4) },
            "cuMemcpyDtoH_v2",
        );
        v
    }

    /// One fused call, `y = max(0, conv(x, w) + bias)`, `z = y` scaled by 0.
    fn run(
        &self,
        x: ffi::CUdeviceptr,
        w: ffi::CUdeviceptr,
        b: ffi::CUdeviceptr,
        y: ffi::CUdeviceptr,
    ) {
        let (one, zero) = (1.0f32, 0.0f32);
        let p = |d: ffi::CUdeviceptr| d as usize as *mut c_void;
        // SAFETY: live descriptors and handle, buffers of the sizes the descriptors reach, the
        // workspace the algorithm asked for; host scalars.
        st(
            unsafe {
                dn::cudnnConvolutionBiasActivationForward(
                    self.handle,
                    (&raw const one).cast(),
                    self.x,
                    p(x),
                    self.w,
                    p(w),
                    self.conv,
                    self.algo,
                    p(self.work.0),
                    self.work.1,
                    (&raw const zero).cast(),
                    self.y,
                    p(y),
                    self.bias,
                    p(b),
                    self.act,
                    self.y,
                    p(y),
                )
            },
            "cudnnConvolutionBiasActivationForward",
        );
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
            if self.work.1 > 0 {
                cu(ffi::cuMemFree_v2(self.work.0), "cuMemFree_v2");
            }
            st(dn::cudnnDestroyTensorDescriptor(self.x), "destroy x");
            st(dn::cudnnDestroyTensorDescriptor(self.y), "destroy y");
            st(dn::cudnnDestroyTensorDescriptor(self.bias), "destroy bias");
            st(dn::cudnnDestroyFilterDescriptor(self.w), "destroy w");
            st(
                dn::cudnnDestroyConvolutionDescriptor(self.conv),
                "destroy conv",
            );
            st(
                dn::cudnnDestroyActivationDescriptor(self.act),
                "destroy act",
            );
            st(dn::cudnnDestroy(self.handle), "cudnnDestroy");
            cu(ffi::cuStreamDestroy_v2(self.stream), "cuStreamDestroy_v2");
        }
    }
}

/// custack's algorithm as cudarc's enum (the same `cudnnConvolutionFwdAlgo_t` value).
fn cudarc_algo(a: dn::cudnnConvolutionFwdAlgo_t) -> cusys::cudnnConvolutionFwdAlgo_t {
    use cusys::cudnnConvolutionFwdAlgo_t as A;
    match a.0 {
        0 => A::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
        1 => A::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
        2 => A::CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
        3 => A::CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
        4 => A::CUDNN_CONVOLUTION_FWD_ALGO_FFT,
        5 => A::CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,
        6 => A::CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,
        7 => A::CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
        other => {
            eprintln!("benches/cudnn: custack's plan chose algorithm {other}, unknown to cudarc");
            std::process::exit(1)
        }
    }
}

/// The largest difference of `ours` from `theirs`; infinite where the lengths differ or a
/// difference is NaN (which `f32::max` would otherwise skip).
fn max_diff(theirs: &[f32], ours: &[f32]) -> f32 {
    if theirs.len() != ours.len() {
        return f32::INFINITY;
    }
    theirs
        .iter()
        .zip(ours)
        .map(|(a, b)| {
            let d = (a - b).abs();
            if d.is_nan() { f32::INFINITY } else { d }
        })
        .fold(0.0, f32::max)
}

fn row(
    guard: &PushedGuard<'_, '_>,
    stream: &Stream<'_>,
    cu_stream: &Arc<CudaStream>,
    cu_dnn: &Arc<Cudnn>,
    reps: usize,
    r: Row,
) {
    let conv = Conv2d::new([r.n, r.c, r.hw, r.hw], [r.k, 3, 3])
        .padding(1, 1)
        .layout(r.layout)
        .tensor_cores(r.tensor_cores);
    let plan: ConvPlan<'_> = must(guard.conv_plan(&conv), "conv_plan");
    let (x, w, b) = (
        values(plan.input_len(), 1),
        values(plan.filter_len(), 2),
        values(plan.bias_len(), 3),
    );
    let mut raw = Raw::new(r, plan.algorithm());
    let (rx, rw, rb, ry) = (
        raw.upload(&x),
        raw.upload(&w),
        raw.upload(&b),
        raw.upload(&vec![0.0; plan.output_len()]),
    );
    let (cx, cw, cb) = (
        must(guard.alloc_from(&x), "alloc_from"),
        must(guard.alloc_from(&w), "alloc_from"),
        must(guard.alloc_from(&b), "alloc_from"),
    );
    let cy: RefCell<DeviceBuffer<'_, f32>> =
        RefCell::new(must(guard.alloc_zeroed(plan.output_len()), "alloc_zeroed"));
    let mut op_raw = || {
        for _ in 0..r.calls {
            raw.run(rx, rw, rb, ry);
        }
        raw.sync();
    };
    let mut op_custack = || {
        let mut out = cy.borrow_mut();
        let done = stream.scope(|s| -> custack::Result<()> {
            let (x, w, b, mut y) = (s.bind(&cx), s.bind(&cw), s.bind(&cb), s.bind_mut(&mut *out));
            for _ in 0..r.calls {
                plan.run(s, x, w, b, &mut y)?;
            }
            Ok(())
        });
        must(must(done, "scope"), "custack run");
    };
    // cudarc: its descriptors, set as raw's are; the fused operation over them; its workspace.
    let (n, c, hw, k) = (r.n as i32, r.c as i32, r.hw as i32, r.k as i32);
    let format = match r.layout {
        Layout::Nchw => cusys::cudnnTensorFormat_t::CUDNN_TENSOR_NCHW,
        Layout::Nhwc => cusys::cudnnTensorFormat_t::CUDNN_TENSOR_NHWC,
    };
    let x_desc = must(
        cu_dnn.create_4d_tensor_ex::<f32>([n, c, hw, hw], strides(c, hw, hw, r.layout)),
        "cudarc create_4d_tensor_ex x",
    );
    let y_desc = must(
        cu_dnn.create_4d_tensor_ex::<f32>([n, k, hw, hw], strides(k, hw, hw, r.layout)),
        "cudarc create_4d_tensor_ex y",
    );
    let bias_desc = must(
        cu_dnn.create_4d_tensor_ex::<f32>([1, k, 1, 1], [k, 1, 1, 1]),
        "cudarc create_4d_tensor_ex bias",
    );
    let w_desc = must(
        cu_dnn.create_4d_filter::<f32>(format, [k, c, 3, 3]),
        "cudarc create_4d_filter",
    );
    let mut conv_desc = must(
        cu_dnn.create_conv2d::<f32>(
            [1, 1],
            [1, 1],
            [1, 1],
            cusys::cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION,
        ),
        "cudarc create_conv2d",
    );
    must(
        conv_desc.set_math_type(if r.tensor_cores {
            cusys::cudnnMathType_t::CUDNN_DEFAULT_MATH
        } else {
            cusys::cudnnMathType_t::CUDNN_FMA_MATH
        }),
        "cudarc set_math_type",
    );
    let act_desc = must(
        cu_dnn.create_activation::<f32>(
            cusys::cudnnActivationMode_t::CUDNN_ACTIVATION_RELU,
            cusys::cudnnNanPropagation_t::CUDNN_PROPAGATE_NAN,
            0.0,
        ),
        "cudarc create_activation",
    );
    let op = ConvBiasActivationForward {
        conv: &conv_desc,
        act: &act_desc,
        x: &x_desc,
        w: &w_desc,
        y: &y_desc,
        z: &y_desc,
        bias: &bias_desc,
    };
    let algo = cudarc_algo(plan.algorithm());
    let work_bytes = must(op.get_workspace_size(algo), "cudarc get_workspace_size");
    let mut work: Option<CudaSlice<u8>> =
        (work_bytes > 0).then(|| must(cu_stream.alloc_zeros(work_bytes), "cudarc alloc_zeros"));
    let (dx, dw, db): (CudaSlice<f32>, CudaSlice<f32>, CudaSlice<f32>) = (
        must(cu_stream.clone_htod(&x), "cudarc clone_htod"),
        must(cu_stream.clone_htod(&w), "cudarc clone_htod"),
        must(cu_stream.clone_htod(&b), "cudarc clone_htod"),
    );
    let dz: CudaSlice<f32> = must(
        cu_stream.alloc_zeros(plan.output_len()),
        "cudarc alloc_zeros",
    );
    let dy: RefCell<CudaSlice<f32>> = RefCell::new(must(
        cu_stream.alloc_zeros(plan.output_len()),
        "cudarc alloc_zeros",
    ));
    let mut op_cudarc = || {
        let mut out = dy.borrow_mut();
        for _ in 0..r.calls {
            // SAFETY: cudarc's contract: the buffers hold `f32` in the layouts and extents the
            // descriptors give (`x`, `w`, `bias` uploaded from the plan's lengths, `z` and `y`
            // of the output's); the workspace is the size cudarc asked cuDNN for.
            must(
                unsafe {
                    op.launch(
                        algo,
                        work.as_mut(),
                        (1.0, 0.0),
                        &dx,
                        &dw,
                        &dz,
                        &db,
                        &mut *out,
                    )
                },
                "cudarc ConvBiasActivationForward::launch",
            );
        }
        must(cu_stream.synchronize(), "cudarc synchronize");
    };
    op_raw();
    op_custack();
    op_cudarc();
    let name = format!(
        "conv3×3+bias+ReLU f32 {}×{}×{}×{} → {} {:?}{}{}",
        r.n,
        r.hw,
        r.hw,
        r.c,
        r.k,
        r.layout,
        if r.tensor_cores { ", TF32" } else { ", FMA" },
        if r.calls > 1 {
            format!(", {} calls", r.calls)
        } else {
            String::new()
        },
    );
    let theirs = Raw::download(ry, plan.output_len());
    let ours = must(cy.borrow().to_vec(), "to_vec");
    let cudarc_out = must(cu_stream.clone_dtoh(&*dy.borrow()), "cudarc clone_dtoh");
    let (d_custack, d_cudarc) = (max_diff(&theirs, &ours), max_diff(&theirs, &cudarc_out));
    let scale = theirs.iter().map(|a| a.abs()).fold(1.0, f32::max);
    if d_custack > 1e-3 * scale || d_cudarc > 1e-3 * scale {
        eprintln!(
            "benches/cudnn: {name}: outputs differ from raw's: custack's by {d_custack}, \
             cudarc's by {d_cudarc}"
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
    print(&name, &f);
}

/// Device buffers of the raw side, freed when dropped.
struct Buffers(Vec<ffi::CUdeviceptr>);

impl Buffers {
    fn upload(&mut self, host: &[f32]) -> ffi::CUdeviceptr {
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
        self.0.push(p);
        p
    }
}

impl Drop for Buffers {
    fn drop(&mut self) {
        for &p in &self.0 {
            // SAFETY: live, made by `upload`; no work pending (each rep waits).
            cu(unsafe { ffi::cuMemFree_v2(p) }, "cuMemFree_v2");
        }
    }
}

/// The raw graph-API matmul: every descriptor (destroyed last made first), the execution
/// plan, the variant pack of fixed buffers, the workspace, a handle and a stream.
struct RawMatmul {
    handle: dn::cudnnHandle_t,
    stream: ffi::CUstream,
    descs: Vec<dn::cudnnBackendDescriptor_t>,
    plan: dn::cudnnBackendDescriptor_t,
    pack: dn::cudnnBackendDescriptor_t,
    work: ffi::CUdeviceptr,
}

impl RawMatmul {
    fn make(&mut self, kind: dn::cudnnBackendDescriptorType_t) -> dn::cudnnBackendDescriptor_t {
        let mut d = core::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        st(
            unsafe { dn::cudnnBackendCreateDescriptor(kind, &raw mut d) },
            "cudnnBackendCreateDescriptor",
        );
        self.descs.push(d);
        d
    }

    /// Sets `values` of type `ty` (the caller matches `T` to it).
    fn set<T>(
        d: dn::cudnnBackendDescriptor_t,
        name: dn::cudnnBackendAttributeName_t,
        ty: dn::cudnnBackendAttributeType_t,
        values: &[T],
    ) {
        // SAFETY: a live descriptor; `values` of the C type `ty` names (the caller's).
        st(
            unsafe {
                dn::cudnnBackendSetAttribute(
                    d,
                    name,
                    ty,
                    values.len() as i64,
                    values.as_ptr().cast(),
                )
            },
            "cudnnBackendSetAttribute",
        );
    }

    fn new(dims: [usize; 4], [a, b, c]: [ffi::CUdeviceptr; 3]) -> Self {
        use dn::cudnnBackendAttributeName_t as N;
        use dn::cudnnBackendAttributeType_t as T;
        use dn::cudnnBackendDescriptorType_t as K;
        let [batch, m, n, k] = dims.map(|v| v as i64);
        let null = core::ptr::null_mut();
        let mut raw = Self {
            handle: null,
            stream: null.cast(),
            descs: Vec::new(),
            plan: null,
            pack: null,
            work: 0,
        };
        // SAFETY: out-pointers to fields; the primary context is current (the guard).
        unsafe {
            cu(
                ffi::cuStreamCreate(&raw mut raw.stream, 0),
                "cuStreamCreate",
            );
            st(dn::cudnnCreate(&raw mut raw.handle), "cudnnCreate");
        }
        let float = [dn::cudnnDataType_t::CUDNN_DATA_FLOAT];
        let mut tensors = Vec::new();
        for (uid, (rows, cols)) in [(1i64, (m, k)), (2, (k, n)), (3, (m, n))] {
            let t = raw.make(K::CUDNN_BACKEND_TENSOR_DESCRIPTOR);
            Self::set(
                t,
                N::CUDNN_ATTR_TENSOR_DATA_TYPE,
                T::CUDNN_TYPE_DATA_TYPE,
                &float,
            );
            Self::set(
                t,
                N::CUDNN_ATTR_TENSOR_DIMENSIONS,
                T::CUDNN_TYPE_INT64,
                &[batch, rows, cols],
            );
            Self::set(
                t,
                N::CUDNN_ATTR_TENSOR_STRIDES,
                T::CUDNN_TYPE_INT64,
                &[rows * cols, cols, 1],
            );
            Self::set(
                t,
                N::CUDNN_ATTR_TENSOR_UNIQUE_ID,
                T::CUDNN_TYPE_INT64,
                &[uid],
            );
            Self::set(
                t,
                N::CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT,
                T::CUDNN_TYPE_INT64,
                &[16i64],
            );
            // Finalized before another descriptor names it (cuDNN refuses a descriptor that is
            // not: CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED).
            // SAFETY: a live descriptor, every attribute it needs set.
            st(unsafe { dn::cudnnBackendFinalize(t) }, "finalize tensor");
            tensors.push(t);
        }
        let mm = raw.make(K::CUDNN_BACKEND_MATMUL_DESCRIPTOR);
        Self::set(
            mm,
            N::CUDNN_ATTR_MATMUL_COMP_TYPE,
            T::CUDNN_TYPE_DATA_TYPE,
            &float,
        );
        // SAFETY: a live descriptor, every attribute it needs set.
        st(unsafe { dn::cudnnBackendFinalize(mm) }, "finalize matmul");
        let op = raw.make(K::CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
        let d = T::CUDNN_TYPE_BACKEND_DESCRIPTOR;
        Self::set(op, N::CUDNN_ATTR_OPERATION_MATMUL_ADESC, d, &tensors[0..1]);
        Self::set(op, N::CUDNN_ATTR_OPERATION_MATMUL_BDESC, d, &tensors[1..2]);
        Self::set(op, N::CUDNN_ATTR_OPERATION_MATMUL_CDESC, d, &tensors[2..3]);
        Self::set(op, N::CUDNN_ATTR_OPERATION_MATMUL_DESC, d, &[mm]);
        // SAFETY: a live descriptor, every attribute it needs set.
        st(
            unsafe { dn::cudnnBackendFinalize(op) },
            "finalize operation",
        );
        let graph = raw.make(K::CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
        Self::set(
            graph,
            N::CUDNN_ATTR_OPERATIONGRAPH_HANDLE,
            T::CUDNN_TYPE_HANDLE,
            &[raw.handle],
        );
        Self::set(graph, N::CUDNN_ATTR_OPERATIONGRAPH_OPS, d, &[op]);
        // SAFETY: a live descriptor, every attribute it needs set.
        st(unsafe { dn::cudnnBackendFinalize(graph) }, "finalize graph");
        let heur = raw.make(K::CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
        Self::set(heur, N::CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, d, &[graph]);
        Self::set(
            heur,
            N::CUDNN_ATTR_ENGINEHEUR_MODE,
            T::CUDNN_TYPE_HEUR_MODE,
            &[dn::cudnnBackendHeurMode_t::CUDNN_HEUR_MODE_A],
        );
        let mut cfgs: Vec<_> = (0..16)
            .map(|_| raw.make(K::CUDNN_BACKEND_ENGINECFG_DESCRIPTOR))
            .collect();
        let mut listed = 0i64;
        // SAFETY: live descriptors, the heuristics' every attribute set; `cfgs` holds 16 live
        // engine configurations for the results; valid out-pointers.
        unsafe {
            st(dn::cudnnBackendFinalize(heur), "finalize heuristics");
            st(
                dn::cudnnBackendGetAttribute(
                    heur,
                    N::CUDNN_ATTR_ENGINEHEUR_RESULTS,
                    d,
                    16,
                    &raw mut listed,
                    cfgs.as_mut_ptr().cast(),
                ),
                "heuristics' results",
            );
        }
        for &cfg in cfgs.iter().take(listed.clamp(0, 16) as usize) {
            let plan = raw.make(K::CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
            Self::set(
                plan,
                N::CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
                T::CUDNN_TYPE_HANDLE,
                &[raw.handle],
            );
            Self::set(plan, N::CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, d, &[cfg]);
            // SAFETY: a live execution plan.
            if unsafe { dn::cudnnBackendFinalize(plan) } == dn::cudnnStatus_t::CUDNN_STATUS_SUCCESS
            {
                raw.plan = plan;
                break;
            }
        }
        assert!(!raw.plan.is_null(), "no engine configuration finalizes");
        let (mut bytes, mut count) = (0i64, 0i64);
        // SAFETY: a finalized plan; valid out-pointers.
        st(
            unsafe {
                dn::cudnnBackendGetAttribute(
                    raw.plan,
                    N::CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                    T::CUDNN_TYPE_INT64,
                    1,
                    &raw mut count,
                    (&raw mut bytes).cast(),
                )
            },
            "workspace size",
        );
        if bytes > 0 {
            // SAFETY: a valid out-pointer.
            cu(
                unsafe { ffi::cuMemAlloc_v2(&raw mut raw.work, bytes as usize) },
                "cuMemAlloc_v2",
            );
        }
        let pack = raw.make(K::CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
        let p = |x: ffi::CUdeviceptr| x as usize as *mut c_void;
        Self::set(
            pack,
            N::CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
            T::CUDNN_TYPE_INT64,
            &[1i64, 2, 3],
        );
        Self::set(
            pack,
            N::CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
            T::CUDNN_TYPE_VOID_PTR,
            &[p(a), p(b), p(c)],
        );
        Self::set(
            pack,
            N::CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
            T::CUDNN_TYPE_VOID_PTR,
            &[p(raw.work)],
        );
        // SAFETY: a live variant pack; a live handle and stream.
        unsafe {
            st(dn::cudnnBackendFinalize(pack), "finalize pack");
            st(dn::cudnnSetStream(raw.handle, raw.stream), "cudnnSetStream");
        }
        raw.pack = pack;
        raw
    }

    fn run(&self) {
        // SAFETY: a live handle, finalized plan and pack whose buffers hold the tensors.
        st(
            unsafe { dn::cudnnBackendExecute(self.handle, self.plan, self.pack) },
            "cudnnBackendExecute",
        );
    }

    fn sync(&self) {
        // SAFETY: a live stream.
        cu(
            unsafe { ffi::cuStreamSynchronize(self.stream) },
            "cuStreamSynchronize",
        );
    }
}

impl Drop for RawMatmul {
    fn drop(&mut self) {
        // SAFETY: all live, made by `new`; the stream is idle (each rep waits).
        unsafe {
            while let Some(d) = self.descs.pop() {
                st(
                    dn::cudnnBackendDestroyDescriptor(d),
                    "cudnnBackendDestroyDescriptor",
                );
            }
            if self.work != 0 {
                cu(ffi::cuMemFree_v2(self.work), "cuMemFree_v2");
            }
            st(dn::cudnnDestroy(self.handle), "cudnnDestroy");
            cu(ffi::cuStreamDestroy_v2(self.stream), "cuStreamDestroy_v2");
        }
    }
}

/// The matmul row: 32 products of 512 × 512 · 512 × 512, TF32 allowed, raw against custack.
fn matmul_row(guard: &PushedGuard<'_, '_>, stream: &Stream<'_>, reps: usize) {
    let dims = [32, 512, 512, 512];
    let plan = must(
        guard.matmul_plan(&Matmul::new(dims[0], dims[1], dims[2], dims[3]).tf32(true)),
        "matmul_plan",
    );
    let (a, b) = (values(plan.a_len(), 4), values(plan.b_len(), 5));
    // The raw side's buffers, freed after the raw matmul.
    let mut owner = Buffers(Vec::new());
    let (ra, rb, rc) = (
        owner.upload(&a),
        owner.upload(&b),
        owner.upload(&vec![0.0; plan.c_len()]),
    );
    let raw = RawMatmul::new(dims, [ra, rb, rc]);
    let (ca, cb) = (
        must(guard.alloc_from(&a), "alloc_from"),
        must(guard.alloc_from(&b), "alloc_from"),
    );
    let cc: RefCell<DeviceBuffer<'_, f32>> =
        RefCell::new(must(guard.alloc_zeroed(plan.c_len()), "alloc_zeroed"));
    let mut op_raw = || {
        raw.run();
        raw.sync();
    };
    let mut op_custack = || {
        let mut out = cc.borrow_mut();
        let done = stream.scope(|s| plan.run(s, s.bind(&ca), s.bind(&cb), s.bind_mut(&mut *out)));
        must(must(done, "scope"), "custack run");
    };
    op_raw();
    op_custack();
    let name = "matmul f32 32 × 512×512·512×512, TF32";
    let (theirs, ours) = (
        Raw::download(rc, plan.c_len()),
        must(cc.borrow().to_vec(), "to_vec"),
    );
    let diff = max_diff(&theirs, &ours);
    let scale = theirs.iter().map(|x| x.abs()).fold(1.0, f32::max);
    if diff > 1e-3 * scale {
        eprintln!("benches/cudnn: {name}: custack's output differs from raw's by {diff}");
        std::process::exit(1)
    }
    let f = rotate(reps, &mut [Some(&mut op_raw), Some(&mut op_custack), None]);
    print(name, &f);
    drop(raw);
    drop(owner);
}

fn main() {
    if !running("cargo bench -p custack-benches --features cudnn --bench cudnn") {
        return;
    }
    let reps = reps("CUSTACK_CUDNN_REPS");
    let driver = must(Driver::init(), "Driver::init");
    let device = must(driver.device(0), "device 0");
    let ctx = must(Context::primary(device), "Context::primary");
    let mut stack = must(Stack::new(), "Stack::new");
    let guard = must(stack.push(&ctx), "push");
    let stream = must(guard.stream(), "stream");
    // cudarc on the same primary context (`CudaContext::new` retains it and makes it current,
    // which leaves custack's pushed guard on the same context), its own stream and handle.
    let cu_ctx = must(CudaContext::new(0), "cudarc CudaContext::new");
    let cu_stream = must(cu_ctx.new_stream(), "cudarc new_stream");
    let cu_dnn = must(Cudnn::new(cu_stream.clone()), "cudarc Cudnn::new");
    println!(
        "cuDNN {} on {}, driver {}; {reps} reps a row, medians (±spread), ratios to raw\n",
        must(custack::dnn::version(), "version"),
        must(device.name(), "name"),
        must(driver.version(), "driver version"),
    );
    // cudarc dlopens the first of its candidate names that loads (`libcudnn.so.9` among them,
    // which the process already has, linked by custack): the same cuDNN, or the bench stops.
    // SAFETY: no arguments; a host call.
    let linked = unsafe { dn::cudnnGetVersion() };
    let theirs = cudarc::cudnn::result::get_version();
    if theirs != linked {
        eprintln!("benches/cudnn: cudarc loaded cuDNN {theirs}, custack links cuDNN {linked}");
        std::process::exit(1)
    }
    header();
    let big = Row {
        n: 32,
        c: 256,
        hw: 64,
        k: 256,
        layout: Layout::Nhwc,
        tensor_cores: true,
        calls: 1,
    };
    row(&guard, &stream, &cu_stream, &cu_dnn, reps, big);
    row(
        &guard,
        &stream,
        &cu_stream,
        &cu_dnn,
        reps,
        Row {
            layout: Layout::Nchw,
            tensor_cores: false,
            ..big
        },
    );
    row(
        &guard,
        &stream,
        &cu_stream,
        &cu_dnn,
        reps,
        Row {
            n: 8,
            c: 32,
            hw: 16,
            k: 32,
            calls: 100,
            ..big
        },
    );
    matmul_row(&guard, &stream, reps);
}
