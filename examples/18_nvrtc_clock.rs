//! CUDA C++ compiled at run time by NVRTC and launched safely: the shape of NVIDIA's
//! `clock_nvrtc` sample. Each of 64 blocks reduces the same 512 floats to their minimum in
//! shared memory and times itself with `clock64()`; the example checks every block's minimum
//! and prints the average number of clocks a block took.
//!
//! ```text
//! cargo run --release --features nvrtc --example 18_nvrtc_clock
//! ```
//!
//! Requires the feature `nvrtc`, under which the build script finds and links libnvrtc
//! (`CUSTACK_NVRTC_LIB_DIR`, else the CUDA toolkit, else the `nvidia-cuda-nvrtc` Python wheel);
//! at run time the loader must find it (`LD_LIBRARY_PATH`). No nvcc is needed: the kernel
//! (`examples/kernels/clock.cu`) is compiled for the device's own architecture when the
//! example runs, its contract checked against NVRTC's PTX, then once more at lookup.
use custack::nvrtc::{Options, Program};
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
use std::process::ExitCode;

const SOURCE: &str = include_str!("kernels/clock.cu");
const BLOCKS: u32 = 64;
const THREADS: u32 = 256;

custack::kernel_contract! {
    /// `timedReduction(const float* input, float* output, long long* timer)`: every block
    /// reads `input[0 .. 2 * blockDim.x]` into `2 * blockDim.x` floats of dynamic shared memory,
    /// writes `output[blockIdx.x]`, and `timer[blockIdx.x]` and `timer[blockIdx.x + gridDim.x]`.
    unsafe kernel TimedReduction = "timedReduction"(
        input: &[f32; 2 * block], output: &mut [f32; blocks], timer: &mut [i64; 2 * blocks],
    ) shared(block * 8);
}

/// Compiles, loads and runs the kernel; returns the average clocks per block and how many
/// blocks found a wrong minimum.
fn run() -> custack::Result<(f64, usize)> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let started = std::time::Instant::now();
    let compiled = Program::new("clock.cu", SOURCE)?.compile(&Options::new().arch_for(device)?)?;
    println!(
        "device 0: {} (compute {}), driver API {}; NVRTC {} compiled clock.cu in {:.1} ms",
        device.name()?,
        device.compute_capability()?,
        driver.version()?,
        compiled.nvrtc_version(),
        started.elapsed().as_secs_f64() * 1e3
    );
    compiled.check::<TimedReduction>()?; // the declaration against NVRTC's PTX

    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_compiled(&compiled)?; // the cubin NVRTC wrote: no JIT
    let timed_reduction = module.declared::<TimedReduction>()?;

    // 512 values, the smallest (-1) in the middle.
    let input: Vec<f32> = (0..2 * THREADS)
        .map(|i| {
            if i == THREADS {
                -1.0
            } else {
                f32::from(i as u16)
            }
        })
        .collect();
    let dinput = guard.alloc_from(&input)?;
    let mut doutput = guard.alloc::<f32>(BLOCKS as usize)?;
    let mut dtimer = guard.alloc::<i64>(2 * BLOCKS as usize)?;
    let mut output = vec![0f32; BLOCKS as usize];
    let mut timer = vec![0i64; 2 * BLOCKS as usize];

    let config = LaunchConfig {
        grid: (BLOCKS, 1, 1),
        block: (THREADS, 1, 1),
        shared_mem_bytes: 2 * THREADS * 4,
    };
    guard.stream()?.scope(|s| -> custack::Result<()> {
        let (dinput, mut doutput, mut dtimer) = (
            s.bind(&dinput),
            s.bind_mut(&mut doutput),
            s.bind_mut(&mut dtimer),
        );
        // A safe launch: the buffers' lengths and the shared memory are checked first.
        s.run(
            &timed_reduction,
            config,
            (dinput, &mut doutput, &mut dtimer),
        )?;
        s.copy_to_host(&mut output, &doutput)?;
        s.copy_to_host(&mut timer, &dtimer)
    })??;

    let wrong = output
        .iter()
        .filter(|&&m| m.to_bits() != (-1f32).to_bits())
        .count();
    let (starts, ends) = timer.split_at(BLOCKS as usize);
    let clocks: f64 = starts
        .iter()
        .zip(ends)
        .map(|(s, e)| f64::from(u32::try_from(e - s).unwrap_or(u32::MAX)))
        .sum::<f64>()
        / f64::from(BLOCKS);
    Ok((clocks, wrong))
}

fn main() -> ExitCode {
    match run() {
        Ok((clocks, 0)) => {
            println!(
                "18_nvrtc_clock: {BLOCKS} blocks of {THREADS} threads each found the minimum; \
                 average clocks per block: {clocks:.0}"
            );
            ExitCode::SUCCESS
        }
        Ok((_, wrong)) => {
            eprintln!("18_nvrtc_clock: {wrong} of {BLOCKS} blocks found a wrong minimum");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("18_nvrtc_clock: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
