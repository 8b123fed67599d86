//! One frame of example 22 under the restricted profile, timed against the same loop written in
//! C against the raw driver (`benches/safety_frame.c`), which `scripts/frame-bench.sh` runs
//! beside this one, alternately, on the GPU machine. Counts the host allocations and the change
//! in the device's free memory over the timed frames.
//!
//! `safety_frame CUBIN FRAMES REPS`, or `--bench` (as `.gpu/run.sh` runs benches) with the
//! cubin from `CUSTACK_FRAME_CUBIN`. Prints one line per repetition and a final line:
//! `frame rust ns_per_frame=… min=… max=… reps=… frames=… device_bytes_delta=… host_allocs_per_frame=…`.

#[path = "../examples/22_safety_frame/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bench = std::env::args().any(|a| a == "--bench");
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if !bench && args.is_empty() {
        // `cargo test --all-targets` runs benches without arguments: nothing to test here.
        println!(
            "safety_frame: a benchmark; run it on a GPU machine with `cargo bench -p custack-benches --bench \
             safety_frame` (and CUSTACK_FRAME_CUBIN) or scripts/frame-bench.sh"
        );
        return Ok(());
    }
    let path = match args.first() {
        Some(path) => path.clone(),
        None => std::env::var("CUSTACK_FRAME_CUBIN")
            .map_err(|_| "safety_frame: give CUBIN FRAMES REPS, or set CUSTACK_FRAME_CUBIN")?,
    };
    let frames: u32 = args.get(1).map_or(Ok(200), |a| a.parse())?;
    let reps: usize = args.get(2).map_or(Ok(5), |a| a.parse())?;
    let cubin = std::fs::read(&path)?;
    let profile = custack::safety::Profile::init(1)?;
    let (mut times, allocs, device_bytes) = pipeline::run(profile, &cubin, |run, frame| {
        for _ in 0..20 {
            frame()?;
        }
        let mut times = Vec::with_capacity(reps);
        let (free_before, _) = run.memory_info()?;
        let allocs_before = ALLOCATIONS.load(Ordering::Relaxed);
        for _ in 0..reps {
            let start = Instant::now();
            for _ in 0..frames {
                frame()?;
            }
            times.push(start.elapsed().as_nanos() / u128::from(frames.max(1)));
        }
        let allocs = ALLOCATIONS.load(Ordering::Relaxed) - allocs_before;
        let (free_after, _) = run.memory_info()?;
        Ok((times, allocs, free_before.abs_diff(free_after)))
    })?;
    for (k, t) in times.iter().enumerate() {
        println!("frame rust rep={k} ns_per_frame={t}");
    }
    times.sort_unstable();
    let median = times.get(times.len() / 2).copied().unwrap_or(0);
    let (min, max) = (
        times.first().copied().unwrap_or(0),
        times.last().copied().unwrap_or(0),
    );
    let per_frame = allocs / (u64::from(frames) * reps as u64).max(1);
    println!(
        "frame rust ns_per_frame={median} min={min} max={max} reps={reps} frames={frames} \
         device_bytes_delta={device_bytes} host_allocs_per_frame={per_frame} host_allocs={allocs}"
    );
    Ok(())
}
