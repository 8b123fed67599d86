//! Two green contexts of one GPU driven from one thread: a latency kernel in a small SM
//! partition keeps its time while a throughput kernel fills the other partition.
//!
//! `cargo run --release --example 17_green_partitions [reps]`
//!
//! The device's SMs are split in two (`sm_resource`, `split`): a small *latency* partition
//! and the rest, a *throughput* partition, with a green context over each. Each partition's
//! module, stream and output buffer are loaded once and parked between its pushes (of kind
//! `Green`: `!Send`, they stay on this thread and borrow only their green context). Then, per
//! repetition, one thread:
//!
//! 1. pushes the throughput green context, submits the throughput kernel (one full wave of
//!    blocks spinning about 1 ms on every SM of its partition), *parks* the submission
//!    (`park_submission`) and pops: the kernel keeps running;
//! 2. pushes the latency green context and times one short latency kernel with events, while
//!    the throughput kernel is pending on the other green context;
//! 3. asks whether the throughput kernel was still running (`is_complete` on the parked
//!    submission, with no context current) and waits for it.
//!
//! The latency kernel is also timed alone, and the same two kernels in one ordinary context on
//! two streams (latency alone, then each time right after a throughput launch over every SM).
//! It prints the medians: in one ordinary context the latency kernel waits for SMs the
//! throughput kernel holds; in its own partition its time barely moves (the point of green
//! contexts), and how often the throughput kernel still ran when the latency kernel was done.
//!
//! Green contexts need driver 12.4 or later; where they are not supported it says so in one
//! line and exits with status 0.
use custack::prelude::*;
use custack::{
    Context, ContextFlags, ContextKind, Declared, Device, Driver, ErrorKind, EventFlags, Green,
    GreenContext, LaunchConfig, ParkedBuffer, ParkedModule, ParkedStream, ParkedSubmission,
    PushedGuard, Stack, Stream,
};
use std::process::ExitCode;

const GREEN_PTX: &str = include_str!("../tests/fixtures/green.ptx");

custack::kernel_contract! {
    /// `smid_spin(unsigned* out, long long spin)`: every thread spins `spin` clock cycles, then
    /// thread 0 of block `b` writes the id of its SM to `out[b]`: one element per block.
    unsafe kernel SmidSpin = "smid_spin"(out: &mut [u32; blocks], spin: i64);
}
/// Threads per block of both kernels.
const THREADS: u32 = 128;
/// SMs asked for the latency partition (the driver may round up to its granularity).
const LATENCY_SMS: u32 = 16;
/// Clock cycles each latency block spins (about 10 µs at 2 GHz).
const LATENCY_SPIN: i64 = 20_000;
/// Clock cycles each throughput block spins (about 1 ms at 2 GHz).
const THROUGHPUT_SPIN: i64 = 2_000_000;
/// Blocks per SM of the throughput kernel: one full wave of 128-thread blocks (2048 threads
/// per SM), so that it holds every SM it may use for its whole run.
const BLOCKS_PER_SM: u32 = 16;

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

/// Times one launch of the latency kernel (`smid_spin` over `out.len()` blocks) on `stream`,
/// with events around it: the GPU time from its turn on the stream to its end, including any
/// wait for free SMs.
fn time_once<K: ContextKind>(
    g: &PushedGuard<'_, '_, K>,
    stream: &Stream<'_>,
    f: Declared<'_, SmidSpin>,
    out: &mut custack::DeviceBuffer<'_, u32>,
) -> custack::Result<f32> {
    let (start, end) = (g.event(EventFlags::empty())?, g.event(EventFlags::empty())?);
    let blocks = out.len() as u32;
    stream.scope(|s| -> custack::Result<()> {
        let out = s.bind_mut(out);
        s.record(&start)?;
        // `out` is checked to hold one element per block.
        s.run(&f, config(blocks), (out, LATENCY_SPIN))?;
        s.record(&end)
    })??;
    start.elapsed_ms(&end)
}

/// Enqueues the throughput kernel (one full wave of long-spinning blocks over `out.len()`
/// blocks) on `stream`, as a submission that owns its output.
fn submit_throughput<'s>(
    stream: &'s Stream<'_>,
    f: Declared<'s, SmidSpin>,
    out: custack::DeviceBuffer<'s, u32>,
) -> custack::Result<
    custack::Submission<'s, (custack::DeviceBuffer<'s, u32>, Declared<'s, SmidSpin>)>,
> {
    let blocks = out.len() as u32;
    stream.submit((out, f), move |s, (mut out, f)| {
        s.run(&f, config(blocks), (&mut out, THROUGHPUT_SPIN))
    })
}

/// Medians (ms) of the latency kernel alone and right after a throughput kernel was
/// launched, and in how many of the latter the throughput kernel was still running when the
/// latency kernel had finished.
struct Measured {
    alone: f32,
    beside: f32,
    overlapped: usize,
}

/// One green context's long-lived resources, parked between its pushes (`!Send`, kind `Green`).
struct Partition<'g> {
    green: &'g GreenContext<'g>,
    module: ParkedModule<'g, Green>,
    stream: ParkedStream<'g, Green>,
    out: ParkedBuffer<'g, u32, Green>,
}

impl<'g> Partition<'g> {
    fn new(stack: &mut Stack, green: &'g GreenContext<'g>, blocks: u32) -> custack::Result<Self> {
        let g = stack.push_green(green)?;
        Ok(Self {
            green,
            module: g.park_module(g.load_ptx(GREEN_PTX)?),
            stream: g.park_stream(g.stream()?),
            out: g.park(g.alloc::<u32>(blocks as usize)?),
        })
    }
}

/// One latency launch under its green context, its resources parked again afterwards.
fn time_latency<'g>(
    stack: &mut Stack,
    lat: Partition<'g>,
) -> custack::Result<(f32, Partition<'g>)> {
    let g = stack.push_green(lat.green)?;
    let module = g.attach_module(lat.module)?;
    let stream = g.attach_stream(lat.stream)?;
    let mut out = g.attach(lat.out)?;
    let ms = time_once(&g, &stream, module.declared::<SmidSpin>()?, &mut out)?;
    let back = Partition {
        green: lat.green,
        module: g.park_module(module),
        stream: g.park_stream(stream),
        out: g.park(out),
    };
    Ok((ms, back))
}

/// Both kernels in two green contexts, driven from this thread: per repetition, push the
/// throughput partition's context, submit its kernel, park the submission, pop; push the
/// latency partition's context and time the latency kernel while the other is pending.
fn green_contexts(
    latency: &GreenContext<'_>,
    throughput: &GreenContext<'_>,
    reps: usize,
) -> custack::Result<Measured> {
    let mut stack = Stack::new()?;
    let mut lat = Partition::new(&mut stack, latency, latency.sm_count())?;
    let tp_blocks = throughput.sm_count() * BLOCKS_PER_SM;
    let mut tp = Partition::new(&mut stack, throughput, tp_blocks)?;
    let mut alone = Vec::with_capacity(reps);
    for _ in 0..reps {
        let (ms, back) = time_latency(&mut stack, lat)?;
        alone.push(ms);
        lat = back;
    }
    let (mut beside, mut overlapped) = (Vec::with_capacity(reps), 0);
    for _ in 0..reps {
        // The throughput kernel, left pending on its green context: the submission is parked
        // (kind `Green`, `!Send`), so its guard pops while the kernel runs.
        let (pending, back): (ParkedSubmission<'_, _>, _) = {
            let g = stack.push_green(tp.green)?;
            let module = g.attach_module(tp.module)?;
            let stream = g.attach_stream(tp.stream)?;
            let work =
                submit_throughput(&stream, module.declared::<SmidSpin>()?, g.attach(tp.out)?)?;
            let pending = g.park_submission(work);
            let back = (g.park_module(module), g.park_stream(stream));
            (pending, back)
        };
        let (ms, back_lat) = time_latency(&mut stack, lat)?;
        lat = back_lat;
        beside.push(ms);
        // The throughput kernel's event, queried with no context current.
        overlapped += usize::from(!pending.is_complete()?);
        let (out, ()) = pending.wait()?;
        tp = Partition {
            green: tp.green,
            module: back.0,
            stream: back.1,
            out,
        };
    }
    Ok(Measured {
        alone: median(&mut alone),
        beside: median(&mut beside),
        overlapped,
    })
}

/// Both kernels in one ordinary context, on two streams.
fn one_context(device: Device, latency_blocks: u32, reps: usize) -> custack::Result<Measured> {
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let g = stack.push(&ctx)?;
    let module = g.load_ptx(GREEN_PTX)?;
    let f = module.declared::<SmidSpin>()?;
    let (lat_stream, tp_stream) = (g.stream()?, g.stream()?);
    let mut lat_out = g.alloc::<u32>(latency_blocks as usize)?;
    let tp_blocks =
        device.attribute(custack::DeviceAttribute::MultiprocessorCount)? as u32 * BLOCKS_PER_SM;
    let mut tp_out = Some(g.alloc::<u32>(tp_blocks as usize)?);
    let mut alone = Vec::with_capacity(reps);
    for _ in 0..reps {
        alone.push(time_once(&g, &lat_stream, f, &mut lat_out)?);
    }
    let (mut beside, mut overlapped) = (Vec::with_capacity(reps), 0);
    for _ in 0..reps {
        let Some(out) = tp_out.take() else { break };
        let pending = submit_throughput(&tp_stream, f, out)?;
        beside.push(time_once(&g, &lat_stream, f, &mut lat_out)?);
        overlapped += usize::from(!pending.is_complete()?);
        tp_out = Some(pending.wait()?.0);
    }
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
    let lat_blocks = latency.sm_count();
    let ordinary = one_context(device, lat_blocks, reps)?;
    let green = green_contexts(&latency, &throughput, reps)?;
    for (way, m) in [
        ("one ordinary context", &ordinary),
        ("two green contexts", &green),
    ] {
        println!(
            "{way:>20}: latency kernel ({lat_blocks} blocks) alone {:.3} ms, right after a throughput kernel {:.3} ms (medians of {reps}; the throughput kernel still ran at the end of {} of them)",
            m.alone, m.beside, m.overlapped
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
