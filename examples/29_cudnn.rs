//! cuDNN under the guard: a 3×3 convolution with bias and ReLU, `y = max(0, conv(x, w) +
//! bias)`, and a batched matmul `C[i] = A[i] · B[i]` (cuDNN's graph API: its legacy API has no
//! matmul), with `custack::dnn` on custack device buffers in a custack stream scope, each
//! checked against the CPU. No `unsafe`.
//!
//! ```text
//! cargo run --release --features cudnn --example 29_cudnn
//! ```
//!
//! Requires the feature `cudnn`, under which the build script finds cuDNN 9 and links it into
//! custack: `CUSTACK_CUDNN_LIB_DIR` (the directory holding `libcudnn.so.9` and its
//! sub-libraries), else the toolkit, conda or the distro, else the `nvidia-cudnn-cu13` (or
//! `-cu12`) Python wheel (`<site-packages>/nvidia/cudnn/lib`) of `python3`. Without it the
//! build warns and `guard.conv_plan` returns an error saying what to set. No rpath is set, so
//! the loader must find cuDNN at run time:
//!
//! ```text
//! NV=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])')   # the wheels' nvidia/
//! LD_LIBRARY_PATH=$NV/cudnn/lib:$NV/cu13/lib:$LD_LIBRARY_PATH cargo run --release --features cudnn --example 29_cudnn
//! ```
//!
//! What it shows: the plan is made by the guard (handle, descriptors, algorithm, workspace)
//! and borrows it; the tensors are bound to a stream scope, so they stay borrowed until the
//! convolution is complete; every buffer is checked against the plan's extents before anything
//! is enqueued. Without a driver, a device or cuDNN it says so in one line and exits with 1.

use custack::dnn::{Conv2d, Layout, Matmul};
use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
use std::process::ExitCode;

const N: usize = 2;
const C: usize = 8;
const H: usize = 16;
const W: usize = 16;
const K: usize = 16;
const R: usize = 3;

/// Multiples of 1/8 in [-1, 1]: every product is a multiple of 1/64 and every sum of the 72
/// taps is exact in f32, in any order, so the GPU's result must equal the CPU's.
fn value(i: usize, mul: usize, add: usize) -> f32 {
    f32::from(((i * mul + add) % 17) as u8) / 8.0 - 1.0
}

/// The CPU's convolution (NCHW, padding 1, stride 1), bias and ReLU, in f64.
#[allow(
    clippy::many_single_char_names,
    reason = "the convolution's names: x, w, y, n, c, h, k, p, q, r, s, v"
)]
fn reference(x: &[f32], w: &[f32], bias: &[f32]) -> Vec<f64> {
    let mut y = vec![0f64; N * K * H * W];
    for n in 0..N {
        for k in 0..K {
            for p in 0..H {
                for q in 0..W {
                    let mut acc = f64::from(bias[k]);
                    for c in 0..C {
                        for r in 0..R {
                            for s in 0..R {
                                let (h, v) = ((p + r).wrapping_sub(1), (q + s).wrapping_sub(1));
                                if h < H && v < W {
                                    acc += f64::from(x[((n * C + c) * H + h) * W + v])
                                        * f64::from(w[((k * C + c) * R + r) * R + s]);
                                }
                            }
                        }
                    }
                    y[((n * K + k) * H + p) * W + q] = acc.max(0.0);
                }
            }
        }
    }
    y
}

/// Runs the convolution and the matmul; returns the convolution's algorithm and workspace
/// bytes and the largest difference of either from the CPU's result.
#[allow(
    clippy::many_single_char_names,
    reason = "the operations' own names: x, w, y and a, b, c"
)]
fn run() -> custack::Result<(i32, usize, f64)> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let conv = Conv2d::new([N, C, H, W], [K, R, R])
        .padding(1, 1)
        .layout(Layout::Nchw);
    let plan = guard.conv_plan(&conv)?;
    println!(
        "device 0: {}, cuDNN {} linked from {}",
        device.name()?,
        custack::dnn::version()?,
        env!("CUSTACK_CUDNN_FOUND")
    );
    let x: Vec<f32> = (0..plan.input_len()).map(|i| value(i, 7, 3)).collect();
    let w: Vec<f32> = (0..plan.filter_len()).map(|i| value(i, 5, 11)).collect();
    let bias: Vec<f32> = (0..plan.bias_len()).map(|i| value(i, 3, 1)).collect();
    let (dx, dw, db) = (
        guard.alloc_from(&x)?,
        guard.alloc_from(&w)?,
        guard.alloc_from(&bias)?,
    );
    let mut dy = guard.alloc_zeroed::<f32>(plan.output_len())?;
    guard.stream()?.scope(|s| {
        plan.run(
            s,
            s.bind(&dx),
            s.bind(&dw),
            s.bind(&db),
            s.bind_mut(&mut dy),
        )
    })??; // the scope waited for the stream: `dy` holds the result
    let got = dy.to_vec()?;
    let want = reference(&x, &w, &bias);
    let max_error = got
        .iter()
        .zip(&want)
        .map(|(g, w)| (f64::from(*g) - w).abs())
        .fold(0.0, f64::max);
    // The batched matmul: 2 products of a 16 × 8 by an 8 × 16 matrix, row-major.
    let (mb, mm, mn, mk) = (2, 16, 16, 8);
    let mplan = guard.matmul_plan(&Matmul::new(mb, mm, mn, mk))?;
    let a: Vec<f32> = (0..mplan.a_len()).map(|i| value(i, 7, 2)).collect();
    let b: Vec<f32> = (0..mplan.b_len()).map(|i| value(i, 3, 5)).collect();
    let (da, db2) = (guard.alloc_from(&a)?, guard.alloc_from(&b)?);
    let mut dc = guard.alloc_zeroed::<f32>(mplan.c_len())?;
    guard
        .stream()?
        .scope(|s| mplan.run(s, s.bind(&da), s.bind(&db2), s.bind_mut(&mut dc)))??;
    let c = dc.to_vec()?;
    let mut matmul_error = 0f64;
    for i in 0..mb {
        for row in 0..mm {
            for col in 0..mn {
                let want: f64 = (0..mk)
                    .map(|j| {
                        f64::from(a[(i * mm + row) * mk + j])
                            * f64::from(b[(i * mk + j) * mn + col])
                    })
                    .sum();
                let got = f64::from(c[(i * mm + row) * mn + col]);
                matmul_error = matmul_error.max((got - want).abs());
            }
        }
    }
    println!(
        "cudnn: matmul {mb} x {mm}x{mk} * {mk}x{mn} through the graph API ({} bytes of \
         workspace), max error {matmul_error:e} vs the CPU",
        mplan.workspace_bytes()
    );
    Ok((
        plan.algorithm().0,
        plan.workspace_bytes(),
        max_error.max(matmul_error),
    ))
}

fn main() -> ExitCode {
    match run() {
        Ok((algo, bytes, max_error)) if max_error <= 1e-4 => {
            println!(
                "cudnn: {N}x{C}x{H}x{W} * {K}x{C}x{R}x{R} + bias, ReLU on a custack stream \
                 (algorithm {algo}, {bytes} bytes of workspace), max error {max_error:e} vs the CPU"
            );
            ExitCode::SUCCESS
        }
        Ok((_, _, max_error)) => {
            eprintln!("29_cudnn: the GPU result differs from the CPU's by up to {max_error:e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("29_cudnn: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
