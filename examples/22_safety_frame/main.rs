//! A camera-frame filter at a fixed rate under the restricted safety profile
//! (`custack::safety::Profile`): NVIDIA's safety subset and a fixed-resource run phase, stated
//! in the types.
//!
//! The init phase loads a cubin built ahead of time by nvcc (never PTX: nothing is compiled at
//! run time), looks up its two declared kernels, makes a stream, page-locked and device memory,
//! and captures the blur into a graph, all within the budget stated when the context was made
//! (`pipeline::budget`: every resource, nothing made past it); then it is sealed, and
//! the run phase can only launch, copy, and wait. Each frame uploads, launches the graph and the
//! gain kernel directly, downloads, and checks pixels against the CPU's, every 10 ms. The only
//! `unsafe` is the image load (and the contracts that vouch for the kernels).
//!
//! ```text
//! nvcc -cubin -arch=sm_90 examples/kernels/frame.cu -o frame.cubin
//! cargo run --example 22_safety_frame -- frame.cubin      # or CUSTACK_FRAME_CUBIN=frame.cubin
//! ```

mod pipeline;

use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Frames processed.
const FRAMES: u64 = 100;
/// The frame period: a 100 Hz camera.
const PERIOD: Duration = Duration::from_millis(10);

fn main() -> ExitCode {
    let Some(path) = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("CUSTACK_FRAME_CUBIN").ok())
    else {
        eprintln!(
            "22_safety_frame: no cubin given. Build one for your GPU with nvcc \
             (nvcc -cubin -arch=sm_XY examples/kernels/frame.cu -o frame.cubin) and pass its \
             path, or set CUSTACK_FRAME_CUBIN"
        );
        return ExitCode::from(2);
    };
    let cubin = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("22_safety_frame: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let profile = match custack::safety::Profile::init(1) {
        Ok(profile) => profile,
        Err(e) => {
            eprintln!("22_safety_frame: no CUDA driver or device: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = pipeline::run(profile, &cubin, |run, frame| {
        let (free_before, _) = run.memory_info()?;
        let start = Instant::now();
        let mut late = 0u32;
        for k in 1..=FRAMES {
            frame()?;
            let due = start + PERIOD * u32::try_from(k).unwrap_or(u32::MAX);
            match due.checked_duration_since(Instant::now()) {
                Some(rest) => std::thread::sleep(rest),
                None => late += 1,
            }
        }
        let (free_after, _) = run.memory_info()?;
        Ok((late, free_before.abs_diff(free_after)))
    });
    match outcome {
        Ok((late, device_bytes)) => {
            println!(
                "22_safety_frame: {FRAMES} frames of {}x{} at {} Hz, {} pixels each checked \
                 against the CPU; {late} late; device memory changed by {device_bytes} bytes \
                 during the run phase",
                pipeline::WIDTH,
                pipeline::HEIGHT,
                1000 / PERIOD.as_millis(),
                pipeline::CHECKED,
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("22_safety_frame: {e}");
            ExitCode::FAILURE
        }
    }
}
