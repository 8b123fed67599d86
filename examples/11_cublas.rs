//! cuBLAS under the guard: a 512×512×512 SGEMM with `custack::blas` on custack device
//! buffers, in a custack stream scope, timed with custack events and checked against the CPU.
//! No `unsafe`.
//!
//! ```text
//! cargo run --release --features cublas --example 11_cublas
//! ```
//!
//! Requires the feature `cublas`, under which the build script finds cuBLAS and links it into
//! custack: `CUSTACK_CUBLAS_LIB_DIR` (the directory holding `libcublas.so`, `libcublas.so.13` or
//! `libcublas.so.12`), else the CUDA toolkit, else the `nvidia-cublas` Python wheel
//! (`<site-packages>/nvidia/cu13/lib`) of `python3`. Without it the build warns and
//! `guard.blas()` returns an error saying what to set. No rpath is set, so the loader must find
//! cuBLAS at run time:
//!
//! ```text
//! NV=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])')   # the wheels' nvidia/
//! LD_LIBRARY_PATH=$NV/cu13/lib:$LD_LIBRARY_PATH cargo run --release --features cublas --example 11_cublas
//! ```
//!
//! What it shows: the cuBLAS handle is lent by the guard (created while its context is
//! current, and borrowing it like a stream); the operands are bound to a stream scope, so they
//! stay borrowed until the SGEMM is complete; the shapes are checked against the buffers before
//! anything is enqueued; and the row-major product is computed by cuBLAS's column-major GEMM
//! with the operands swapped.

use custack::blas::Gemm;
use custack::{Context, ContextFlags, Driver, EventFlags, Stack};
use std::process::ExitCode;

const M: usize = 512;
const N: usize = 512;
const K: usize = 512;

/// Multiples of 1/8 in [-1, 1]: every product and partial sum of the SGEMM is exact in f32
/// (and TF32), in any order, so the GPU result must equal the CPU's.
fn value(i: usize, mul: usize, add: usize) -> f32 {
    f32::from(((i * mul + add) % 17) as u8) / 8.0 - 1.0
}

/// Runs the SGEMM; returns the time of one SGEMM in ms and the largest difference from the
/// CPU's result.
fn run() -> custack::Result<(f32, f64)> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let blas = guard.blas()?; // ctx is current: the handle is bound to it, and borrows `guard`
    println!(
        "device 0: {}, cuBLAS {} linked from {}",
        device.name()?,
        custack::blas::version()?,
        env!("CUSTACK_CUBLAS_FOUND")
    );

    let mut a = guard.alloc_pinned::<f32>(M * K)?;
    let mut b = guard.alloc_pinned::<f32>(K * N)?;
    let mut c = guard.alloc_pinned::<f32>(M * N)?;
    for (i, x) in a.iter_mut().enumerate() {
        *x = value(i, 7, 3);
    }
    for (i, x) in b.iter_mut().enumerate() {
        *x = value(i, 5, 11);
    }
    let mut da = guard.alloc::<f32>(M * K)?;
    let mut db = guard.alloc::<f32>(K * N)?;
    let mut dc = guard.alloc::<f32>(M * N)?;
    let (start, stop) = (
        guard.event(EventFlags::empty())?,
        guard.event(EventFlags::empty())?,
    );

    // cuBLAS is column-major: the row-major `c = a·b` (m×k by k×n) is the column-major
    // `cᵀ = bᵀ·aᵀ`, and a row-major matrix read column-major is its transpose. So: an n×m
    // result, `b` first.
    let shape = Gemm::new(N, M, K);
    stream.scope(|s| -> custack::Result<()> {
        let (mut da, mut db, mut dc) = (
            s.bind_mut(&mut da),
            s.bind_mut(&mut db),
            s.bind_mut(&mut dc),
        );
        s.copy_to_device(&mut da, &a)?;
        s.copy_to_device(&mut db, &b)?;
        blas.gemm(s, &shape, &db, &da, &mut dc)?; // warm-up: loads cuBLAS's kernels
        s.record(&start)?;
        blas.gemm(s, &shape, &db, &da, &mut dc)?;
        s.record(&stop)?;
        s.copy_to_host(&mut c, &dc)
    })??; // the scope waited for the stream: `c` holds the result
    let ms = start.elapsed_ms(&stop)?;

    let mut max_error = 0f64;
    for i in 0..M {
        for j in 0..N {
            let expected: f64 = (0..K)
                .map(|l| f64::from(a[i * K + l]) * f64::from(b[l * N + j]))
                .sum();
            max_error = max_error.max((f64::from(c[i * N + j]) - expected).abs());
        }
    }
    Ok((ms, max_error))
}

fn main() -> ExitCode {
    match run() {
        Ok((ms, max_error)) if max_error <= 1e-3 => {
            let gflops = 2.0 * f64::from((M * N * K) as u32) / (f64::from(ms) * 1e6);
            println!(
                "cublas: {M}x{N}x{K} SGEMM on a custack stream in {ms:.3} ms ({gflops:.0} GFLOP/s), \
                 max error {max_error:e} vs the CPU"
            );
            ExitCode::SUCCESS
        }
        Ok((_, max_error)) => {
            eprintln!("11_cublas: the GPU result differs from the CPU's by up to {max_error:e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("11_cublas: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
