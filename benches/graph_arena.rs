//! A graph replayed over a replay arena, measured against the raw driver calls in the same
//! process: what a replay costs when its memory was reserved once.
//!
//! ```text
//! cargo bench -p custack-benches --bench graph_arena  # on a GPU machine
//! bash scripts/gpu-bundle.sh --bench graph_arena  # packs it; on the GPU machine: bash .gpu/run.sh
//! ```
//!
//! The graph is built (`PushedGuard::build_graph`) over two buffers of one `ReplayArena`: 10
//! launches of `add_u32(x, 1, n)` on 4096 `u32`s, then a device copy of `x` into `y`. One row:
//! a replay and its wait, through custack (a launch in a stream scope, `launch_graph`) and raw
//! (`cuGraphLaunch` of the same executable graph, `cuStreamSynchronize`), in alternating order
//! after one warm-up of each; each sample is 100 replays, and the row reports the median per
//! replay over `CUSTACK_GRAPH_REPS` (default 50) samples, the spread (p10–p90 ÷ 2 of the median),
//! custack's median over raw's, and the host allocations of custack's replays (a counting
//! global allocator, this thread), which must be 0. The addresses of the arena's buffers are
//! checked unchanged after every sample, and the result once against the CPU (not with
//! `CUSTACK_GRAPH_UNCHECKED=1`, for a run against the do-nothing driver of `checkdriver`). Nothing
//! here asserts a time. Without `--bench` (as `cargo test --all-targets` runs it) it prints how to
//! run it and exits.

#![allow(clippy::cast_precision_loss, clippy::many_single_char_names)]

use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack, ffi};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Instant;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const N: usize = 4096;
const N32: u32 = N as u32;
const NODES: u32 = 10;
const REPLAYS: u32 = 100;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Median and spread (p10–p90 ÷ 2, relative to the median) of a set of times in seconds.
fn stats(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let median = at(0.5);
    (median, (at(0.9) - at(0.1)) / 2.0 / median)
}

fn ok(r: ffi::CUresult, what: &str) -> custack::Result<()> {
    if r == ffi::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(custack::Error::from_kind(custack::ErrorKind::Unknown)
            .with_detail(format!("{what}: {r:?}")))
    }
}

fn run(reps: usize) -> custack::Result<()> {
    let checked = std::env::var_os("CUSTACK_GRAPH_UNCHECKED").is_none();
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let stream = guard.stream()?;
    let arena = guard.replay_arena(2 * N * 4)?;
    let (mut x, y) = (arena.buffer::<u32>(N)?, arena.buffer::<u32>(N)?);
    let at = (x.device_ptr(), y.device_ptr());
    x.copy_from_host(&vec![0u32; N])?;
    let payload = (x, y, module.declared::<AddU32>()?);
    let graph = guard.build_graph(payload, |b, (mut x, mut y, add)| {
        let cfg = LaunchConfig::for_elements(N32);
        let mut last = b.kernel(&add, cfg, (&mut x, 1u32, N32), &[])?;
        for _ in 1..NODES {
            last = b.kernel(&add, cfg, (&mut x, 1u32, N32), &[last])?;
        }
        b.copy_device(&mut y, &x, &[last])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    exec.upload(&stream)?;
    let (raw_exec, raw_stream) = (exec.as_raw(), stream.as_raw());
    let mut custack_replays = || -> custack::Result<(f64, u64)> {
        let before = allocations();
        let start = Instant::now();
        for _ in 0..REPLAYS {
            stream.scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))??;
        }
        let t = start.elapsed().as_secs_f64();
        let (x, y, _) = exec.payload();
        assert_eq!(
            (x.device_ptr(), y.device_ptr()),
            at,
            "the arena's addresses"
        );
        Ok((t, allocations() - before))
    };
    let raw_replays = || -> custack::Result<f64> {
        let start = Instant::now();
        for _ in 0..REPLAYS {
            // SAFETY: a live executable graph of the current context, launched on a live stream
            // of it; its payload (the arena's buffers) lives and no host code reaches it while
            // the replay runs (it is waited for before the next statement).
            let launched = unsafe { ffi::cuGraphLaunch(raw_exec, raw_stream) };
            ok(launched, "cuGraphLaunch")?;
            // SAFETY: a live stream of the current context.
            let waited = unsafe { ffi::cuStreamSynchronize(raw_stream) };
            ok(waited, "cuStreamSynchronize")?;
        }
        Ok(start.elapsed().as_secs_f64())
    };
    let (mut raw, mut cu, mut allocs) = (Vec::new(), Vec::new(), 0u64);
    for rep in 0..=reps {
        let (r, (c, a)) = if rep % 2 == 0 {
            let c = custack_replays()?;
            (raw_replays()?, c)
        } else {
            let r = raw_replays()?;
            (r, custack_replays()?)
        };
        if rep > 0 {
            raw.push(r / f64::from(REPLAYS));
            cu.push(c / f64::from(REPLAYS));
            allocs += a;
        }
    }
    let total = (reps as u64 + 1) * 2 * u64::from(REPLAYS);
    if checked {
        let expected = u32::try_from(total * u64::from(NODES)).unwrap_or(u32::MAX);
        let (x, y, _) = exec.payload();
        assert!(
            x.to_vec()?.iter().all(|&v| v == expected),
            "x after {total} replays"
        );
        assert!(
            y.to_vec()?.iter().all(|&v| v == expected),
            "y after {total} replays"
        );
    }
    let (r, rs) = stats(&mut raw);
    let (c, cs) = stats(&mut cu);
    println!(
        "| operation | raw | custack | custack/raw | spread (raw · custack) | host allocations per replay |"
    );
    println!("| --- | ---: | ---: | ---: | --- | ---: |");
    println!(
        "| replay from the arena + wait ({NODES} kernel nodes, 1 copy) | {:.2} µs | {:.2} µs | {:.3} | ±{:.1}% · ±{:.1}% | {} |",
        r * 1e6,
        c * 1e6,
        c / r,
        rs * 100.0,
        cs * 100.0,
        allocs as f64 / (reps as f64 * f64::from(REPLAYS))
    );
    Ok(())
}

fn main() -> std::process::ExitCode {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "graph_arena: a benchmark; run it with `cargo bench -p custack-benches --bench graph_arena` on a GPU machine"
        );
        return std::process::ExitCode::SUCCESS;
    }
    let reps = std::env::var("CUSTACK_GRAPH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    match run(reps) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("graph_arena: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
