//! One host thread keeps every GPU busy (NVIDIA's `simpleMultiGPU` shape), timed against one
//! thread per GPU and against the raw C-style loop through `custack::ffi`.
//!
//! `cargo run --release --example 10_one_thread_multi_gpu [rounds]`
//!
//! Each GPU owns a slice of the data: per round it uploads its slice from page-locked memory,
//! adds `k` to every element (`add_u32`) and downloads the result into page-locked memory.
//! Three ways to drive that, each checked element by element after its last round:
//!
//! 1. **one thread, custack**: for each context, `stack.with_pushed(ctx, ..)` attaches the
//!    context's parked stream, module and buffers, submits the round (a safe launch of the
//!    declared `add_u32`, which parks as `()`) and *parks* the submission (`park_submission`),
//!    which then borrows only the context; after every context
//!    has its round in flight, the thread waits for each (under no context at all) and keeps
//!    what comes back parked for the next round;
//! 2. **one thread per GPU, custack**: each thread pushes its context once and runs its rounds
//!    with `submit` and `wait`;
//! 3. **one thread, raw driver calls** through `custack::ffi`: per context `cuCtxPushCurrent`,
//!    `cuMemcpyHtoDAsync`, `cuLaunchKernel`, `cuMemcpyDtoHAsync`, `cuEventRecord`,
//!    `cuCtxPopCurrent`, then `cuEventSynchronize` per context: what a C program does.
//!
//! With one GPU, two contexts on device 0 stand in for two GPUs. It prints one line per way,
//! `ms/round` as the median of the rounds, and the ratio of way 1 to way 3 (the target:
//! within 2%).
use custack::prelude::*;
use custack::{
    Context, ContextFlags, Driver, LaunchConfig, ParkedBuffer, ParkedModule, ParkedPinned,
    ParkedStream, ParkedSubmission, PushedGuard, Stack, ffi,
};
use std::process::ExitCode;
use std::time::Instant;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}
/// Elements per GPU: 64 MiB of `u32`.
const N: usize = 1 << 24;
const N32: u32 = N as u32;
/// What a round adds.
const K: u32 = 3;

/// A raw call's result as custack's error type.
fn check(r: ffi::CUresult) -> custack::Result<()> {
    if r == ffi::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(custack::Error::from_raw(r))
    }
}

/// One context's long-lived resources, parked between its turns.
struct Gpu<'c> {
    ctx: &'c Context,
    stream: ParkedStream<'c>,
    module: ParkedModule<'c>,
    input: ParkedPinned<'c, u32>,
    dev: ParkedBuffer<'c, u32>,
    output: ParkedPinned<'c, u32>,
}

/// What a round leaves in flight: the buffers, parked.
type Round<'c> = ParkedSubmission<
    'c,
    (
        ParkedPinned<'c, u32>,
        ParkedBuffer<'c, u32>,
        ParkedPinned<'c, u32>,
        (),
    ),
>;

/// The input of GPU `i`: `i * N + j` at `j`.
fn input_of(i: usize) -> impl Iterator<Item = u32> {
    (0..N32).map(move |j| (i as u32).wrapping_mul(N32).wrapping_add(j))
}

/// How many elements of `output` are not `input + K`.
fn count_wrong(i: usize, output: &[u32]) -> usize {
    input_of(i)
        .zip(output)
        .filter(|&(x, &y)| y != x.wrapping_add(K))
        .count()
}

fn setup<'c>(stack: &mut Stack, ctx: &'c Context, i: usize) -> custack::Result<Gpu<'c>> {
    stack.with_pushed(ctx, |g| -> custack::Result<Gpu<'c>> {
        let mut input = g.alloc_pinned::<u32>(N)?;
        for (x, v) in input.iter_mut().zip(input_of(i)) {
            *x = v;
        }
        Ok(Gpu {
            ctx,
            stream: g.park_stream(g.stream()?),
            module: g.park_module(g.load_ptx(KERNELS)?),
            input: g.park_pinned(input),
            dev: g.park(g.alloc::<u32>(N)?),
            output: g.park_pinned(g.alloc_pinned::<u32>(N)?),
        })
    })?
}

/// Way 1, one context's turn: attach, submit, park everything again.
fn enqueue<'c>(
    g: &PushedGuard<'c, '_>,
    stream: ParkedStream<'c>,
    module: ParkedModule<'c>,
    parts: (
        ParkedPinned<'c, u32>,
        ParkedBuffer<'c, u32>,
        ParkedPinned<'c, u32>,
    ),
) -> custack::Result<(Round<'c>, ParkedStream<'c>, ParkedModule<'c>)> {
    let stream = g.attach_stream(stream)?;
    let module = g.attach_module(module)?;
    let add = module.declared::<AddU32>()?;
    let (input, dev, output) = parts;
    let payload = (
        g.attach_pinned(input)?,
        g.attach(dev)?,
        g.attach_pinned(output)?,
        add,
    );
    let work = stream.submit(payload, |s, (input, mut dev, output, add)| {
        s.copy_to_device(&mut dev, input)?;
        s.run(&add, LaunchConfig::for_elements(N32), (&mut dev, K, N32))?;
        s.copy_to_host(output, &dev)
    })?;
    Ok((
        g.park_submission(work),
        g.park_stream(stream),
        g.park_module(module),
    ))
}

/// Way 1: returns the time of each round, in ms.
fn one_thread(
    stack: &mut Stack,
    gpus: &mut Vec<Gpu<'_>>,
    rounds: usize,
) -> custack::Result<Vec<f64>> {
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        let mut in_flight = Vec::with_capacity(gpus.len());
        for gpu in gpus.drain(..) {
            let Gpu {
                ctx,
                stream,
                module,
                input,
                dev,
                output,
            } = gpu;
            let (round, stream, module) =
                stack.with_pushed(ctx, |g| enqueue(g, stream, module, (input, dev, output)))??;
            in_flight.push((ctx, round, stream, module));
        }
        for (ctx, round, stream, module) in in_flight {
            let (input, dev, output, ()) = round.wait()?; // any context may be current
            gpus.push(Gpu {
                ctx,
                stream,
                module,
                input,
                dev,
                output,
            });
        }
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    Ok(times)
}

/// Way 2, one thread: its context pushed for all rounds. Returns its round times and how many
/// elements are wrong.
fn per_thread(
    ctx: &Context,
    i: usize,
    rounds: usize,
    go: &std::sync::Barrier,
) -> custack::Result<(Vec<f64>, usize)> {
    let mut stack = Stack::new()?;
    let g = stack.push(ctx)?;
    let module = g.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let stream = g.stream()?;
    let mut input = g.alloc_pinned::<u32>(N)?;
    for (x, v) in input.iter_mut().zip(input_of(i)) {
        *x = v;
    }
    let mut parts = (input, g.alloc::<u32>(N)?, g.alloc_pinned::<u32>(N)?);
    let mut times = Vec::with_capacity(rounds);
    go.wait();
    for _ in 0..rounds {
        let start = Instant::now();
        let (input, dev, output) = parts;
        let work = stream.submit(
            (input, dev, output, add),
            |s, (input, mut dev, output, add)| {
                s.copy_to_device(&mut dev, input)?;
                s.run(&add, LaunchConfig::for_elements(N32), (&mut dev, K, N32))?;
                s.copy_to_host(output, &dev)
            },
        )?;
        let (input, dev, output, _) = work.wait()?;
        parts = (input, dev, output);
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    Ok((times, count_wrong(i, &parts.2)))
}

/// Way 3: the raw loop over the parked resources' handles. Returns the round times.
#[allow(clippy::multiple_unsafe_ops_per_block)] // the raw loop is a C program in Rust syntax
fn raw_loop(stack: &mut Stack, gpus: &mut [Gpu<'_>], rounds: usize) -> custack::Result<Vec<f64>> {
    // Per context: its function and an event, made once (a C program would keep them too).
    let mut handles = Vec::with_capacity(gpus.len());
    for gpu in gpus.iter() {
        handles.push(stack.with_pushed(gpu.ctx, |_g| -> custack::Result<_> {
            let mut f = core::ptr::null_mut();
            // SAFETY: a live module of the current context; a NUL-terminated name.
            check(unsafe {
                ffi::cuModuleGetFunction(&raw mut f, gpu.module.as_raw(), c"add_u32".as_ptr())
            })?;
            let mut e = core::ptr::null_mut();
            let flags = ffi::CUevent_flags::CU_EVENT_DISABLE_TIMING.0 as core::ffi::c_uint;
            // SAFETY: a valid out-pointer; a context is current.
            check(unsafe { ffi::cuEventCreate(&raw mut e, flags) })?;
            Ok((f, e))
        })??);
    }
    let bytes = N * size_of::<u32>();
    let cfg = LaunchConfig::for_elements(N32);
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        for (gpu, &(f, e)) in gpus.iter_mut().zip(&handles) {
            let stream = gpu.stream.as_raw();
            let (mut ptr, mut k, mut n) = (gpu.dev.device_ptr(), K, N32);
            let mut params = [
                (&raw mut ptr).cast::<core::ffi::c_void>(),
                (&raw mut k).cast(),
                (&raw mut n).cast(),
            ];
            let mut popped = core::ptr::null_mut();
            // SAFETY: raw driver calls on live handles of `gpu.ctx`, pushed around them and
            // popped; the host buffers are page-locked, `bytes` long, and not touched by the
            // host until the event below is synchronized; `params` matches add_u32's
            // parameters and lives across the launch call.
            unsafe {
                check(ffi::cuCtxPushCurrent_v2(gpu.ctx.as_raw()))?;
                check(ffi::cuMemcpyHtoDAsync_v2(
                    ptr,
                    gpu.input.as_ptr().cast(),
                    bytes,
                    stream,
                ))?;
                check(ffi::cuLaunchKernel(
                    f,
                    cfg.grid.0,
                    cfg.grid.1,
                    cfg.grid.2,
                    cfg.block.0,
                    cfg.block.1,
                    cfg.block.2,
                    0,
                    stream,
                    params.as_mut_ptr(),
                    core::ptr::null_mut(),
                ))?;
                check(ffi::cuMemcpyDtoHAsync_v2(
                    gpu.output.as_mut_ptr().cast(),
                    ptr,
                    bytes,
                    stream,
                ))?;
                check(ffi::cuEventRecord(e, stream))?;
                check(ffi::cuCtxPopCurrent_v2(&raw mut popped))?;
            }
        }
        for &(_, e) in &handles {
            // SAFETY: a live event, recorded above (any context may be current).
            check(unsafe { ffi::cuEventSynchronize(e) })?;
        }
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    for (gpu, &(_, e)) in gpus.iter().zip(&handles) {
        let destroy = |_: &mut PushedGuard<'_, '_>| {
            // SAFETY: a live event of the current context, complete, destroyed once.
            check(unsafe { ffi::cuEventDestroy_v2(e) })
        };
        stack.with_pushed(gpu.ctx, destroy)??;
    }
    Ok(times)
}

fn median(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms.get(ms.len() / 2).copied().unwrap_or(f64::NAN)
}

fn run(rounds: usize) -> custack::Result<bool> {
    let driver = Driver::init()?;
    let devices = driver.devices()?;
    let one_gpu = devices.len() == 1;
    let devices = if one_gpu {
        vec![devices[0], devices[0]]
    } else {
        devices
    };
    let contexts = devices
        .iter()
        .map(|&d| Context::new(d, ContextFlags::SCHED_BLOCKING_SYNC))
        .collect::<custack::Result<Vec<_>>>()?;
    let what = if one_gpu {
        "2 contexts on device 0".to_owned()
    } else {
        format!("{} GPUs", devices.len())
    };
    let mut ok = true;

    // Way 1 (a warm-up round first), then way 3 on the same resources.
    let mut stack = Stack::new()?;
    let mut gpus = (0..contexts.len())
        .map(|i| setup(&mut stack, &contexts[i], i))
        .collect::<custack::Result<Vec<_>>>()?;
    one_thread(&mut stack, &mut gpus, 1)?;
    let one = median(one_thread(&mut stack, &mut gpus, rounds)?);
    let wrong: usize = gpus
        .iter()
        .enumerate()
        .map(|(i, g)| count_wrong(i, &g.output))
        .sum();
    ok &= wrong == 0;
    println!(
        "one_thread_multi_gpu: {what}, one thread, custack parked submissions: {one:.3} ms/round ({wrong} wrong)"
    );
    for g in &mut gpus {
        g.output.fill(0);
    }
    raw_loop(&mut stack, &mut gpus, 1)?;
    let raw = median(raw_loop(&mut stack, &mut gpus, rounds)?);
    let wrong: usize = gpus
        .iter()
        .enumerate()
        .map(|(i, g)| count_wrong(i, &g.output))
        .sum();
    ok &= wrong == 0;
    println!(
        "one_thread_multi_gpu: {what}, one thread, raw driver calls:           {raw:.3} ms/round ({wrong} wrong)"
    );
    drop(gpus);

    // Way 2.
    let go = std::sync::Barrier::new(contexts.len());
    let results = std::thread::scope(|s| {
        let handles: Vec<_> = contexts
            .iter()
            .enumerate()
            .map(|(i, ctx)| {
                let go = &go;
                s.spawn(move || per_thread(ctx, i, rounds + 1, go))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<custack::Result<Vec<_>>>()
    })?;
    // A round of the slowest thread, round by round (the first is a warm-up).
    let per_round: Vec<f64> = (1..=rounds)
        .map(|r| results.iter().map(|(t, _)| t[r]).fold(0.0, f64::max))
        .collect();
    let threads = median(per_round);
    let wrong: usize = results.iter().map(|(_, w)| w).sum();
    ok &= wrong == 0;
    println!(
        "one_thread_multi_gpu: {what}, one thread per GPU, custack:            {threads:.3} ms/round ({wrong} wrong)"
    );
    println!(
        "one_thread_multi_gpu: one thread custack / raw loop = {:.4}",
        one / raw
    );
    Ok(ok)
}

fn main() -> ExitCode {
    let rounds = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    match run(rounds) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("10_one_thread_multi_gpu: a result differs from the expected one");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("10_one_thread_multi_gpu: {e}");
            ExitCode::FAILURE
        }
    }
}
