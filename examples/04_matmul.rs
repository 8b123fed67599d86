//! A tiled matrix multiply (shared-memory tiles, 16 x 16 blocks) from CUDA C compiled to PTX
//! (`examples/kernels/matmul.cu`), with its signature checked when the kernel is looked up,
//! checked against the CPU.
//!
//! `cargo run --release --example 04_matmul`
// Small integers and a small size: these casts are exact.
#![allow(clippy::cast_precision_loss)]
use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, EventFlags, LaunchConfig, Stack};
use std::process::ExitCode;

const PTX: &str = include_str!("kernels/matmul.ptx");
const N: usize = 512;
const TILE: u32 = 16;

custack::kernel_contract! {
    /// `matmul_tiled(const float* a, const float* b, float* c, unsigned n)`: `c = a * b` for
    /// row-major `n × n` matrices, every global access guarded by `row < n` and `col < n`; its
    /// static 16 × 16 shared tiles are indexed by the thread index, so blocks are at most 16 × 16.
    unsafe kernel MatmulTiled = "matmul_tiled"(
        a: &[f32; n * n],
        b: &[f32; n * n],
        c: &mut [f32; n * n],
        n: u32,
    ) max_block(16, 16, 1);
}

fn run() -> custack::Result<usize> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!("device 0: {}", device.name()?);
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(PTX)?;
    // Its parameters checked against the kernel once, here.
    let matmul = module.declared::<MatmulTiled>()?;

    // Small integers: every product and sum is exact in f32, so the GPU must match bit for bit.
    let a: Vec<f32> = (0..N * N).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..N * N).map(|i| (i % 5) as f32).collect();
    let (da, db) = (guard.alloc_from(&a)?, guard.alloc_from(&b)?);
    let mut dc = guard.alloc::<f32>(N * N)?;
    let blocks = (N as u32).div_ceil(TILE);
    let cfg = LaunchConfig {
        grid: (blocks, blocks, 1),
        block: (TILE, TILE, 1),
        shared_mem_bytes: 0,
    };
    let stream = guard.stream()?;
    let (start, end) = (
        guard.event(EventFlags::empty())?,
        guard.event(EventFlags::empty())?,
    );
    stream.scope(|s| {
        let (da, db, mut dc) = (s.bind(&da), s.bind(&db), s.bind_mut(&mut dc));
        s.record(&start)?;
        s.run(&matmul, cfg, (da, db, &mut dc, N as u32))?; // n * n elements each, checked
        s.record(&end)
    })??;
    let ms = start.elapsed_ms(&end)?;
    let c = dc.to_vec()?;

    let mut wrong = 0;
    for i in 0..N {
        for j in 0..N {
            let expected: f32 = (0..N).map(|k| a[i * N + k] * b[k * N + j]).sum();
            if c[i * N + j].to_bits() != expected.to_bits() {
                wrong += 1;
            }
        }
    }
    if wrong == 0 {
        let gflops = 2.0 * (N as f64).powi(3) / (f64::from(ms) * 1e6);
        println!(
            "matmul: {N}x{N} product with {TILE}x{TILE} shared-memory tiles in {ms:.3} ms ({gflops:.0} GFLOP/s), equal to the CPU result"
        );
    }
    Ok(wrong)
}

fn main() -> ExitCode {
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(wrong) => {
            eprintln!("04_matmul: {wrong} elements differ from the CPU result");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("04_matmul: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
