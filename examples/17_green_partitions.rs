//! Two green contexts of one GPU driven from one thread: a latency kernel in a small SM
//! partition keeps its time while a throughput kernel fills the other partition (issue 19).
//!
//! `cargo run --release --example 17_green_partitions [reps]`
//!
//! The device's SMs are split in two (`sm_resource`, `split`): a small *latency* partition
//! and the rest, a *throughput* partition, with a green context over each. One thread:
//!
//! 1. pushes the throughput green context, submits a long throughput kernel (many waves of
//!    blocks spinning on every SM it may use), *parks* the submission and the module
//!    (`park_submission`, `park_module`: of kind `Green`, `!Send`, they stay on this thread and
//!    borrow only the green context) and pops it: the kernel keeps running;
//! 2. pushes the latency green context and times a short latency kernel `reps` times with
//!    events, while the throughput kernel is still pending on the other green context
//!    (`is_complete` on the parked submission works under any context);
//! 3. waits for the throughput kernel.
//!
//! The same latency kernel is timed alone in its partition, and the same two kernels in one
//! ordinary context on two streams (latency alone, then beside the throughput kernel). It prints
//! the medians: in one ordinary context the latency kernel waits for SMs the throughput kernel
//! holds; in its own partition its time barely moves (the point of green contexts).
//!
//! Green contexts need driver 12.4 or later; where they are not supported it says so in one
//! line and exits with status 0.
use custack::{
    ContextKind, Driver, ErrorKind, EventFlags, Function, Green, GreenContext, LaunchConfig,
    ParkedBuffer, ParkedModule, ParkedSubmission, PushedGuard, Stack,
};
use std::process::ExitCode;

const GREEN_PTX: &str = include_str!("../tests/fixtures/green.ptx");
/// Threads per block of both kernels.
const THREADS: u32 = 128;
/// SMs asked for the latency partition (the driver may round up to its granularity).
const LATENCY_SMS: u32 = 16;
/// Clock cycles each latency block spins (about 10 µs at 2 GHz).
const LATENCY_SPIN: i64 = 20_000;
/// Clock cycles each throughput block spins (about 0.5 ms at 2 GHz).
const THROUGHPUT_SPIN: i64 = 1_000_000;
/// Resident blocks per SM the throughput grid counts with, and how many such waves it has.
const BLOCKS_PER_SM: u32 = 16;
const WAVES: u32 = 400;

/// The median of `xs` (sorted in place), in ms.
fn median(xs: &mut [f32]) -> f32 {
    xs.sort_by(f32::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(f32::NAN)
}

fn config(blocks: u32) -> LaunchConfig {
    LaunchConfig {
        grid: (blocks, 1, 1),
        block: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Times `smid_spin` with `blocks` blocks `reps` times on a fresh stream of `g`'s context, with
/// events around each launch: the GPU time from the launch's turn on the stream to its end.
fn time_latency<K: ContextKind>(
    g: &PushedGuard<'_, '_, K>,
    f: Function<'_>,
    blocks: u32,
    reps: usize,
) -> custack::Result<Vec<f32>> {
    let stream = g.stream()?;
    let (start, end) = (g.event(EventFlags::empty())?, g.event(EventFlags::empty())?);
    let mut out = g.alloc::<u32>(blocks as usize)?;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        stream.scope(|s| -> custack::Result<()> {
            let out = s.bind_mut(&mut out);
            s.record(&start)?;
            // SAFETY: smid_spin(unsigned* out, long long spin) writes out[0..grid), and `out`
            // holds `blocks` elements.
            unsafe { s.launch(&f, config(blocks), (out, LATENCY_SPIN)) }?;
            s.record(&end)
        })??;
        times.push(start.elapsed_ms(&end)?);
    }
    Ok(times)
}

/// The throughput kernel's work, parked on its green context.
type Throughput<'g> = ParkedSubmission<'g, (ParkedBuffer<'g, u32, Green>, ())>;

/// Pushes the throughput green context, submits the throughput kernel over `blocks` blocks,
/// parks it and its module and pops: the kernel keeps running, borrowing only `green`.
fn start_throughput<'g>(
    stack: &mut Stack,
    green: &'g GreenContext<'_>,
    blocks: u32,
) -> custack::Result<(Throughput<'g>, ParkedModule<'g, Green>)> {
    let g = stack.push_green(green)?;
    let module = g.load_ptx(GREEN_PTX)?;
    let f = module.function("smid_spin")?;
    let stream = g.stream()?; // may be dropped while its work runs
    let work = stream.submit((g.alloc::<u32>(blocks as usize)?, f), |s, (mut out, f)| {
        // SAFETY: as in `time_latency`; `out` holds `blocks` elements.
        unsafe { s.launch(&f, config(blocks), (&mut out, THROUGHPUT_SPIN)) }
    })?;
    Ok((g.park_submission(work), g.park_module(module)))
}

/// Medians (ms) of the latency kernel alone and beside the throughput kernel, and whether the
/// throughput kernel was still running when the last latency launch had finished.
struct Measured {
    alone: f32,
    beside: f32,
    overlapped: bool,
}

/// Both kernels in two green contexts, driven from this thread.
fn green_contexts(
    latency: &GreenContext<'_>,
    throughput: &GreenContext<'_>,
    throughput_blocks: u32,
    reps: usize,
) -> custack::Result<Measured> {
    let mut stack = Stack::new()?;
    // The latency kernel's module, parked between the pushes of its green context.
    let mut lat_module = {
        let g = stack.push_green(latency)?;
        g.park_module(g.load_ptx(GREEN_PTX)?)
    };
    let mut alone = {
        let g = stack.push_green(latency)?;
        let module = g.attach_module(lat_module)?;
        let times = time_latency(&g, module.function("smid_spin")?, latency.sm_count(), reps)?;
        lat_module = g.park_module(module);
        times
    };
    // One thread, two green contexts: the throughput kernel stays pending on one (parked)
    // while the latency kernel runs on the other.
    let (pending, tp_module) = start_throughput(&mut stack, throughput, throughput_blocks)?;
    let (mut beside, overlapped) = {
        let g = stack.push_green(latency)?;
        let module = g.attach_module(lat_module)?;
        let times = time_latency(&g, module.function("smid_spin")?, latency.sm_count(), reps)?;
        // The throughput kernel's event, queried while the latency green context is current.
        (times, !pending.is_complete()?)
    };
    let (_out, ()) = pending.wait()?;
    drop(tp_module); // pushes its green context, on this thread, to unload
    Ok(Measured {
        alone: median(&mut alone),
        beside: median(&mut beside),
        overlapped,
    })
}

/// Both kernels in one ordinary context, on two streams.
fn one_context(
    device: custack::Device,
    latency_blocks: u32,
    throughput_blocks: u32,
    reps: usize,
) -> custack::Result<Measured> {
    let ctx = custack::Context::new(device, custack::ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let g = stack.push(&ctx)?;
    let module = g.load_ptx(GREEN_PTX)?;
    let f = module.function("smid_spin")?;
    let mut alone = time_latency(&g, f, latency_blocks, reps)?;
    let stream = g.stream()?;
    let pending = stream.submit(
        (g.alloc::<u32>(throughput_blocks as usize)?, f),
        |s, (mut out, f)| {
            // SAFETY: as in `time_latency`; `out` holds `throughput_blocks` elements.
            unsafe { s.launch(&f, config(throughput_blocks), (&mut out, THROUGHPUT_SPIN)) }
        },
    )?;
    let mut beside = time_latency(&g, f, latency_blocks, reps)?;
    let overlapped = !pending.is_complete()?;
    let (_out, _f) = pending.wait()?;
    Ok(Measured {
        alone: median(&mut alone),
        beside: median(&mut beside),
        overlapped,
    })
}

/// Whether an error from splitting the SMs or making a green context means "not supported
/// here" rather than a failure.
fn unsupported(e: &custack::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::DriverTooOld
            | ErrorKind::NotSupported
            | ErrorKind::InvalidResourceType
            | ErrorKind::InvalidResourceConfiguration
    )
}

/// What `run` found.
enum Outcome {
    /// Both ways measured and printed.
    Measured,
    /// Why green contexts cannot be used here.
    Unsupported(String),
}

fn run(reps: usize) -> custack::Result<Outcome> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let green = (|| -> custack::Result<_> {
        let sms = device.sm_resource()?;
        let total = sms.sm_count();
        Ok((sms, total))
    })();
    let (sms, total) = match green {
        Ok(x) => x,
        Err(e) if unsupported(&e) => return Ok(Outcome::Unsupported(e.to_string())),
        Err(e) => return Err(e),
    };
    let split = match sms.split(1, LATENCY_SMS) {
        Ok(split) if split.groups.len() == 1 && split.remaining.sm_count() > 0 => split,
        Ok(_) => {
            return Ok(Outcome::Unsupported(format!(
                "{total} SMs are too few for a partition of {LATENCY_SMS} and another"
            )));
        }
        Err(e) if unsupported(&e) => return Ok(Outcome::Unsupported(e.to_string())),
        Err(e) => return Err(e),
    };
    let made = GreenContext::new(&split.groups[0])
        .and_then(|l| GreenContext::new(&split.remaining).map(|t| (l, t)));
    let (latency, throughput) = match made {
        Ok(pair) => pair,
        Err(e) if unsupported(&e) => return Ok(Outcome::Unsupported(e.to_string())),
        Err(e) => return Err(e),
    };
    println!(
        "device 0: {}, {total} SMs: latency partition {} SMs, throughput partition {} SMs",
        device.name()?,
        latency.sm_count(),
        throughput.sm_count()
    );
    let throughput_blocks = total * BLOCKS_PER_SM * WAVES;
    let lat_blocks = latency.sm_count();
    let ordinary = one_context(device, lat_blocks, throughput_blocks, reps)?;
    let green = green_contexts(&latency, &throughput, throughput_blocks, reps)?;
    for (way, m) in [
        ("one ordinary context", &ordinary),
        ("two green contexts", &green),
    ] {
        println!(
            "{way:>20}: latency kernel ({lat_blocks} blocks) alone {:.3} ms, beside the throughput kernel {:.3} ms (median of {reps}){}",
            m.alone,
            m.beside,
            if m.overlapped {
                ""
            } else {
                "; the throughput kernel ended before the last latency launch"
            }
        );
    }
    println!(
        "green_partitions: beside a throughput kernel, the latency kernel's median went from {:.3} to {:.3} ms ({:.2}x) in its own green partition, from {:.3} to {:.3} ms ({:.2}x) in one ordinary context; both green contexts driven from one thread",
        green.alone,
        green.beside,
        green.beside / green.alone,
        ordinary.alone,
        ordinary.beside,
        ordinary.beside / ordinary.alone
    );
    Ok(Outcome::Measured)
}

fn main() -> ExitCode {
    let reps = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    match run(reps) {
        Ok(Outcome::Measured) => ExitCode::SUCCESS,
        Ok(Outcome::Unsupported(e)) => {
            println!("green_partitions: green contexts are not supported here: {e}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("17_green_partitions: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
