//! A sum in one cooperative launch: blocks reduce their shares, the whole grid synchronizes
//! (cooperative groups' `grid.sync()`, from `examples/kernels/reduce.cu`), block 0 adds the
//! partial sums. The grid is sized from the occupancy API so every block is resident, which
//! `launch_cooperative` checks before launching. Checked against the CPU.
//!
//! `cargo run --release --example 05_reduction`
use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
use std::process::ExitCode;

const PTX: &str = include_str!("kernels/reduce.ptx");
const N: usize = 1 << 24;
const BLOCK: u32 = 256;

custack::kernel_contract! {
    /// `reduce_grid(const unsigned* x, unsigned n, unsigned long long* partial,
    /// unsigned long long* total)`: reads `x[0..n)`, writes `partial[blockIdx.x]` (one per
    /// block) and `total[0]`, with one `unsigned long long` of dynamic shared memory per thread.
    unsafe kernel ReduceGrid = "reduce_grid"(
        x: &[u32; n],
        n: u32,
        partial: &mut [u64; blocks],
        total: &mut [u64; 1],
    ) shared(block * 8);
}

fn run() -> custack::Result<bool> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!("device 0: {}", device.name()?);
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(PTX)?;
    let reduce = module.declared::<ReduceGrid>()?; // checked against the kernel once, here
    let shared = BLOCK * 8; // one u64 per thread
    let per_sm = reduce
        .function()
        .max_active_blocks_per_sm(BLOCK, shared as usize)?;
    let sms = device.attribute(custack::DeviceAttribute::MultiprocessorCount)? as u32;
    let grid = per_sm * sms; // every block resident at once
    let host: Vec<u32> = (0..N as u32).map(|i| i % 1000).collect();
    let x = guard.alloc_from(&host)?;
    let mut partial = guard.alloc::<u64>(grid as usize)?;
    let mut total = guard.alloc_zeroed::<u64>(1)?;
    let cfg = LaunchConfig {
        grid: (grid, 1, 1),
        block: (BLOCK, 1, 1),
        shared_mem_bytes: shared,
    };
    guard.stream()?.scope(|s| {
        // Every block synchronizes with the grid: a cooperative launch. The buffers' lengths and
        // the shared memory are checked against the contract first.
        s.run_cooperative(
            &reduce,
            cfg,
            (
                s.bind(&x),
                N as u32,
                &mut s.bind_mut(&mut partial),
                &mut s.bind_mut(&mut total),
            ),
        )
    })??;
    let gpu = total.to_vec()?.first().copied().unwrap_or_default();
    let cpu: u64 = host.iter().map(|&v| u64::from(v)).sum();
    if gpu == cpu {
        println!(
            "reduction: {N} values summed to {gpu} by {grid} blocks ({per_sm} per SM x {sms} SMs) with one grid-wide sync, equal to the CPU sum"
        );
    } else {
        eprintln!("05_reduction: GPU sum {gpu}, CPU sum {cpu}");
    }
    Ok(gpu == cpu)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("05_reduction: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
