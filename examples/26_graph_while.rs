//! A loop that stays on the GPU: Jacobi iteration for the tridiagonal system
//! `4 x[i] - x[i-1] - x[i+1] = b[i]` in a graph whose WHILE node runs pairs of sweeps until the
//! largest change of a pair is at most a tolerance. A kernel of the loop's body decides, on the
//! device, whether to go on (`cudaGraphSetConditional`, `tests/fixtures/conditional.cu`): one
//! graph launch runs the whole loop, and the host waits once. The result is checked against the
//! same iteration on the CPU.
//!
//! ```text
//! nvcc -cubin -arch=sm_90 tests/fixtures/conditional.cu -o conditional.cubin
//! cargo run --release --example 26_graph_while -- conditional.cubin [N]
//! ```
//!
//! The cubin may also come from `CUSTACK_CONDITIONAL_CUBIN`. Without a driver or a device it
//! says so in one line and exits with 1; without a cubin, with 2. With `CUSTACK_GRAPH_DOT=PATH`
//! it also writes the graph, the WHILE node's body included, as the driver draws it
//! (`cuGraphDebugDotPrint`; `docs/graph_while.dot`).

use custack::graph::DotFlags;
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
use std::process::ExitCode;
use std::time::Instant;

custack::kernel_contract! {
    /// `jacobi_step(const float* b, const float* x, float* y, unsigned* diff, unsigned n)`: one
    /// sweep from `x` into `y`, the largest change into `diff[0]`.
    unsafe kernel JacobiStep = "jacobi_step"(
        b: &[f32; n], x: &[f32; n], y: &mut [f32; n], diff: &mut [u32; 1], n: u32,
    );
    /// `jacobi_check(handle cond, unsigned* diff, unsigned* iters, float tol, unsigned max)`:
    /// counts the pair, clears `diff[0]` and sets the WHILE node's condition.
    unsafe kernel JacobiCheck = "jacobi_check"(
        cond: conditional, diff: &mut [u32; 1], iters: &mut [u32; 1], tol: f32, max_iters: u32,
    );
}

const TOL: f32 = 1e-6;
const MAX_PAIRS: u32 = 10_000;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .or_else(|| std::env::var("CUSTACK_CONDITIONAL_CUBIN").ok());
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1 << 20);
    let Some(path) = path else {
        eprintln!("usage: 26_graph_while CUBIN [N] (or CUSTACK_CONDITIONAL_CUBIN)");
        return ExitCode::from(2);
    };
    let cubin = match std::fs::read(&path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&cubin, n) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("26_graph_while: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(cubin: &[u8], n: usize) -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    // SAFETY: a cubin nvcc wrote (the caller's file, read whole).
    let module = unsafe { guard.load_cubin(cubin) }?;
    let b: Vec<f32> = (0..n)
        .map(|i| (f32::from(u8::try_from(i % 17).unwrap_or(0)) - 8.0) / 8.0)
        .collect();
    let n32 = u32::try_from(n)?;
    let payload = (
        (
            guard.alloc_from(&b)?,
            guard.alloc::<f32>(n)?,
            guard.alloc::<f32>(n)?,
            guard.alloc::<u32>(1)?,
            guard.alloc::<u32>(1)?,
        ),
        (
            module.declared::<JacobiStep>()?,
            module.declared::<JacobiCheck>()?,
        ),
        (vec![0f32; n], vec![0u32; 1]),
    );
    let graph = guard.build_graph(
        payload,
        move |g, ((b, mut x, mut y, mut diff, mut iters), (step, check), (out, pairs))| {
            let clear = [
                g.fill_u32(&mut x, 0, &[])?,
                g.fill_u32(&mut diff, 0, &[])?,
                g.fill_u32(&mut iters, 0, &[])?,
            ];
            // 1 at the start of each launch: the loop runs at least one pair.
            let cond = g.condition(1, true)?;
            let handle = cond.handle();
            let cfg = LaunchConfig::for_elements(n32);
            let one = LaunchConfig::for_elements(1);
            let looped = g.while_loop(cond, &clear, |body| {
                let there = body.kernel(&step, cfg, (&b, &x, &mut y, &mut diff, n32), &[])?;
                let back = body.kernel(&step, cfg, (&b, &y, &mut x, &mut diff, n32), &[there])?;
                body.kernel(
                    &check,
                    one,
                    (handle, &mut diff, &mut iters, TOL, MAX_PAIRS),
                    &[back],
                )?;
                Ok(())
            })?;
            g.copy_to_host(out, &x, &[looped])?;
            g.copy_to_host(pairs, &iters, &[looped])?;
            Ok(())
        },
    )?;
    // With CUSTACK_GRAPH_DOT set, the driver draws the graph, the WHILE node's body included
    // (docs/graph_while.dot, rendered as docs/graph_while.svg).
    if let Some(path) = std::env::var_os("CUSTACK_GRAPH_DOT") {
        graph.write_dot(&path, DotFlags::CONDITIONAL_NODE_PARAMS)?;
    }
    let exec = graph.instantiate()?;
    let stream = guard.stream()?;
    let start = Instant::now();
    let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let gpu_time = start.elapsed();
    let (_, _, (x, pairs)) = exec.payload();
    let pairs = pairs[0];

    let start = Instant::now();
    let (want, want_pairs) = jacobi_cpu(&b, TOL, MAX_PAIRS);
    let cpu_time = start.elapsed();
    let worst = x
        .iter()
        .zip(&want)
        .map(|(g, c)| (g - c).abs())
        .fold(0f32, f32::max);
    println!(
        "n = {n}: {pairs} sweep pairs in one graph launch ({gpu_time:.2?}, the loop on the GPU)"
    );
    println!("CPU: {want_pairs} sweep pairs ({cpu_time:.2?}); largest difference {worst:e}");
    if pairs.abs_diff(want_pairs) > 1 || worst > 1e-5 {
        return Err(format!(
            "the GPU's loop disagrees with the CPU's: {pairs} vs {want_pairs} pairs, {worst:e}"
        )
        .into());
    }
    println!("the GPU's loop agrees with the CPU's");
    Ok(())
}

/// The iteration as the graph runs it: pairs of sweeps from 0 until the larger change of a
/// pair is at most `tol`, or `max` pairs. The solution and the pairs run.
fn jacobi_cpu(b: &[f32], tol: f32, max: u32) -> (Vec<f32>, u32) {
    let n = b.len();
    let sweep = |x: &[f32], y: &mut [f32]| {
        let mut change = 0f32;
        for i in 0..n {
            let left = if i > 0 { x[i - 1] } else { 0.0 };
            let right = if i + 1 < n { x[i + 1] } else { 0.0 };
            let v = (b[i] + left + right) / 4.0;
            y[i] = v;
            change = change.max((v - x[i]).abs());
        }
        change
    };
    let (mut x, mut y) = (vec![0f32; n], vec![0f32; n]);
    let mut pairs = 0;
    loop {
        let first = sweep(&x, &mut y);
        let second = sweep(&y, &mut x);
        pairs += 1;
        if !(first.max(second) > tol && pairs < max) {
            return (x, pairs);
        }
    }
}
