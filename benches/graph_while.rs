//! A loop on the GPU against the same loop driven from the host: `PAIRS` pairs of Jacobi sweeps
//! (`tests/fixtures/conditional.cu`, on `N` floats) run by one launch of a graph whose WHILE node
//! repeats its body until a kernel of the body clears the condition, against a host loop that
//! enqueues each pair, reads the change back and decides (one stream scope per pair: two
//! launches, a 4-byte copy to the host, a memset and the wait).
//!
//! ```text
//! bash scripts/gpu-bundle.sh --bench graph_while   # on the GPU machine: bash .gpu/run.sh
//! CUSTACK_CONDITIONAL_CUBIN=conditional.cubin cargo bench -p custack-benches --bench graph_while
//! ```
//!
//! Both loops run exactly `PAIRS` pairs (a tolerance below zero: the change never ends them),
//! from the same start, and their results are compared bit for bit once. Reported: the median
//! over `CUSTACK_WHILE_REPS` (default 20) repetitions of each, in alternating order after one
//! warm-up of each, the spread (p10–p90 ÷ 2 of the median) and the host loop's median over
//! the graph's. The graph is built and instantiated once, outside the timing. Nothing here
//! asserts a time. Without `--bench` (as `cargo test --all-targets` runs it) it prints how to
//! run it and exits.

#![allow(clippy::cast_precision_loss)]

use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
use std::time::Instant;

custack::kernel_contract! {
    /// `jacobi_step(const float* b, const float* x, float* y, unsigned* diff, unsigned n)`.
    unsafe kernel JacobiStep = "jacobi_step"(
        b: &[f32; n], x: &[f32; n], y: &mut [f32; n], diff: &mut [u32; 1], n: u32,
    );
    /// `jacobi_check(handle cond, unsigned* diff, unsigned* iters, float tol, unsigned max)`.
    unsafe kernel JacobiCheck = "jacobi_check"(
        cond: conditional, diff: &mut [u32; 1], iters: &mut [u32; 1], tol: f32, max_iters: u32,
    );
}

const N: usize = 1 << 16;
const N32: u32 = N as u32;
const PAIRS: u32 = 1000;
/// Below any change: the loops end on the count.
const NEVER: f32 = -1.0;

/// Median and spread (p10–p90 ÷ 2, relative to the median) of a set of times in seconds.
fn stats(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let median = at(0.5);
    (median, (at(0.9) - at(0.1)) / 2.0 / median)
}

#[allow(clippy::too_many_lines)]
fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "graph_while: a benchmark; run it on a GPU machine with `cargo bench -p \
             custack-benches --bench graph_while` (CUSTACK_CONDITIONAL_CUBIN: \
             tests/fixtures/conditional.cu built with nvcc -cubin)"
        );
        return;
    }
    let reps: usize = std::env::var("CUSTACK_WHILE_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let path = std::env::var("CUSTACK_CONDITIONAL_CUBIN")
        .expect("CUSTACK_CONDITIONAL_CUBIN: set by scripts/gpu-bundle.sh's run.sh, with nvcc");
    let image = std::fs::read(&path).unwrap();
    let ctx = Context::new(
        Driver::init().unwrap().device(0).unwrap(),
        ContextFlags::empty(),
    )
    .unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    // SAFETY: a cubin nvcc wrote for this device, read whole.
    let module = unsafe { guard.load_cubin(&image) }.unwrap();
    let step = module.declared::<JacobiStep>().unwrap();
    let check = module.declared::<JacobiCheck>().unwrap();
    let b_host: Vec<f32> = (0..N).map(|i| ((i % 17) as f32 - 8.0) / 8.0).collect();
    let cfg = LaunchConfig::for_elements(N32);
    let one = LaunchConfig::for_elements(1);
    let stream = guard.stream().unwrap();

    // The loop on the GPU: one graph, built and instantiated once.
    let payload = (
        (
            guard.alloc_from(&b_host).unwrap(),
            guard.alloc::<f32>(N).unwrap(),
            guard.alloc::<f32>(N).unwrap(),
            guard.alloc::<u32>(1).unwrap(),
            guard.alloc::<u32>(1).unwrap(),
        ),
        (step, check),
        vec![0u32; 1],
    );
    let graph = guard
        .build_graph(
            payload,
            move |g, ((b, mut x, mut y, mut diff, mut iters), (step, check), count)| {
                let clear = [
                    g.fill_u32(&mut x, 0, &[])?,
                    g.fill_u32(&mut diff, 0, &[])?,
                    g.fill_u32(&mut iters, 0, &[])?,
                ];
                let cond = g.condition(1, true)?;
                let handle = cond.handle();
                let looped = g.while_loop(cond, &clear, |body| {
                    let a = body.kernel(&step, cfg, (&b, &x, &mut y, &mut diff, N32), &[])?;
                    let c = body.kernel(&step, cfg, (&b, &y, &mut x, &mut diff, N32), &[a])?;
                    let args = (handle, &mut diff, &mut iters, NEVER, PAIRS);
                    body.kernel(&check, one, args, &[c])?;
                    Ok(())
                })?;
                g.copy_to_host(count, &iters, &[looped])?;
                Ok(())
            },
        )
        .unwrap();
    let mut exec = Some(graph.instantiate().unwrap());
    let mut on_gpu = || {
        let start = Instant::now();
        let e = exec.take().unwrap();
        let e = stream
            .submit(e, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        let t = start.elapsed().as_secs_f64();
        assert_eq!(e.payload().2[0], PAIRS);
        exec = Some(e);
        t
    };

    // The loop driven from the host: the same kernels, a scope per pair.
    let b = guard.alloc_from(&b_host).unwrap();
    let mut x = guard.alloc::<f32>(N).unwrap();
    let mut y = guard.alloc::<f32>(N).unwrap();
    let mut diff = guard.alloc::<u32>(1).unwrap();
    let mut change = [0u32; 1];
    let mut on_host = || {
        let start = Instant::now();
        x.fill_u32(0).unwrap();
        diff.fill_u32(0).unwrap();
        let mut pairs = 0u32;
        loop {
            stream
                .scope(|s| {
                    let bb = s.bind(&b);
                    let mut xx = s.bind_mut(&mut x);
                    let mut yy = s.bind_mut(&mut y);
                    let mut dd = s.bind_mut(&mut diff);
                    s.run(&step, cfg, (bb, &xx, &mut yy, &mut dd, N32))?;
                    s.run(&step, cfg, (bb, &yy, &mut xx, &mut dd, N32))?;
                    s.copy_to_host(&mut change[..], &dd)?;
                    s.fill_u32(&mut dd, 0)
                })
                .unwrap()
                .unwrap();
            pairs += 1;
            if !(f32::from_bits(change[0]) > NEVER && pairs < PAIRS) {
                break;
            }
        }
        let t = start.elapsed().as_secs_f64();
        assert_eq!(pairs, PAIRS);
        t
    };

    let (mut gpu, mut host) = (Vec::new(), Vec::new());
    for rep in 0..=reps {
        let (on_device, from_host) = if rep % 2 == 0 {
            let first = on_gpu();
            (first, on_host())
        } else {
            let first = on_host();
            (on_gpu(), first)
        };
        if rep > 0 {
            gpu.push(on_device);
            host.push(from_host);
        }
    }
    // Both loops computed the same thing.
    let from_host = x.to_vec().unwrap();
    let from_graph = exec.as_ref().unwrap().payload().0.1.to_vec().unwrap();
    assert!(
        from_host
            .iter()
            .zip(&from_graph)
            .all(|(a, c)| a.to_bits() == c.to_bits()),
        "the graph's loop and the host's disagree"
    );
    let (graph_median, g_spread) = stats(&mut gpu);
    let (host_median, h_spread) = stats(&mut host);
    println!(
        "| loop of {PAIRS} Jacobi sweep pairs on {N} floats | WHILE node, one graph launch (per \
         pair) | host loop, a scope per pair, the change read back (per pair) | host ÷ graph | \
         spread |"
    );
    println!("| --- | --- | --- | --- | --- |");
    println!(
        "| | {:.2} µs | {:.2} µs | {:.2} | ±{:.1}% · ±{:.1}% |",
        graph_median * 1e6 / f64::from(PAIRS),
        host_median * 1e6 / f64::from(PAIRS),
        host_median / graph_median,
        g_spread * 100.0,
        h_spread * 100.0
    );
    println!(
        "total: graph {:.3} ms, host loop {:.3} ms ({reps} repetitions each, medians)",
        graph_median * 1e3,
        host_median * 1e3
    );
}
