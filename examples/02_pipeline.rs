//! A rolling pipeline over two streams with owned submissions: chunk *i + 1* uploads while
//! chunk *i* computes and downloads, and the host checks each result as soon as it is back
//! (a sample of it: the host's work stays small, so the GPU's overlap shows in the time).
//!
//! `cargo run --release --example 02_pipeline`
//!
//! Each chunk's buffers are *moved* into an upload submission on one stream; a submission on the
//! other stream takes it over (a GPU-side wait, no host round trip), runs the kernel and the
//! download, and hands every buffer back from `wait()`, to be reused by a later chunk. Events
//! time the whole pipeline against the same chunks run one after the other.
use custack::{
    Context, ContextFlags, Declared, DeviceBuffer, Driver, EventFlags, LaunchConfig, PinnedBuffer,
    PushedGuard, Stack, Stream, StreamFlags,
};
use std::collections::VecDeque;
use std::process::ExitCode;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const N: usize = 1 << 22; // u32 elements: 16 MiB a chunk
const CHUNKS: u32 = 32;
const IN_FLIGHT: usize = 3;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

/// A chunk's page-locked input, device buffer and page-locked output.
type Buffers<'g> = (
    PinnedBuffer<'g, u32>,
    DeviceBuffer<'g, u32>,
    PinnedBuffer<'g, u32>,
);

/// Every input holds `i % 1000` at element `i`, but its first element, which is the chunk index.
fn new_buffers<'g>(guard: &'g PushedGuard<'_, '_>) -> custack::Result<Buffers<'g>> {
    let mut input = guard.alloc_pinned::<u32>(N)?;
    for (i, x) in input.iter_mut().enumerate() {
        *x = (i % 1000) as u32;
    }
    Ok((input, guard.alloc::<u32>(N)?, guard.alloc_pinned::<u32>(N)?))
}

/// Runs every chunk through `copy` (upload) and `compute` (kernel and download), with up to
/// `in_flight` chunks pending, on buffers taken from `spare` (and put back); returns how many
/// results were wrong.
fn pipeline<'g>(
    guard: &'g PushedGuard<'_, '_>,
    spare: &mut Vec<Buffers<'g>>,
    add: Declared<'_, AddU32>,
    copy: &Stream<'_>,
    compute: &Stream<'_>,
    in_flight: usize,
) -> custack::Result<usize> {
    let mut pending = VecDeque::new();
    let mut wrong = 0;
    // The host consumes each result: its first element, and every 4096th against the input.
    let mut check = |chunk: u32, output: &PinnedBuffer<'_, u32>| {
        wrong += usize::from(output.first() != Some(&(chunk + 1)));
        for i in (4096..N).step_by(4096) {
            wrong += usize::from(output.get(i) != Some(&((i % 1000) as u32 + 1)));
        }
    };
    for chunk in 0..CHUNKS {
        if pending.len() == in_flight {
            if let Some((done_chunk, done)) = pending.pop_front() {
                let done: custack::Submission<'_, _> = done;
                let ((input, dev), (_add, output)) = done.wait()?;
                check(done_chunk, &output);
                spare.push((input, dev, output));
            }
        }
        let (mut input, dev, output) = match spare.pop() {
            Some(buffers) => buffers,
            None => new_buffers(guard)?,
        };
        if let Some(first) = input.first_mut() {
            *first = chunk; // the host writes the buffer while it owns it
        }
        let upload = copy.submit((input, dev), |s, (input, mut dev)| {
            s.copy_to_device(&mut dev, input)
        })?;
        let done =
            compute.submit_after(upload, (add, output), |s, ((_, mut dev), (add, output))| {
                s.run(
                    &add,
                    LaunchConfig::for_elements(N as u32),
                    (&mut dev, 1, N as u32),
                )?;
                s.copy_to_host(output, &dev)
            })?;
        pending.push_back((chunk, done));
    }
    for (chunk, done) in pending {
        let ((input, dev), (_add, output)) = done.wait()?;
        check(chunk, &output);
        spare.push((input, dev, output));
    }
    Ok(wrong)
}

fn run() -> custack::Result<usize> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!("device 0: {}", device.name()?);
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let copy = guard.stream()?;
    let compute = guard.stream_with(StreamFlags::NON_BLOCKING, 0)?;
    let (start, end) = (
        guard.event(EventFlags::empty())?,
        guard.event(EventFlags::empty())?,
    );

    // Buffers for every chunk in flight (and the one being prepared), allocated before timing:
    // page-locking 16 MiB takes milliseconds.
    let mut spare: Vec<Buffers<'_>> = Vec::new();
    for _ in 0..=IN_FLIGHT {
        spare.push(new_buffers(&guard)?);
    }
    let mut wrong = 0;
    let mut times = Vec::new();
    // One chunk at a time (warm-up too), then the pipeline.
    for in_flight in [1, 1, IN_FLIGHT] {
        copy.record(&start)?;
        wrong += pipeline(&guard, &mut spare, add, &copy, &compute, in_flight)?;
        compute.record(&end)?;
        end.synchronize()?;
        times.push(start.elapsed_ms(&end)?);
    }
    if wrong == 0 {
        let mib = (N * 4 * CHUNKS as usize) >> 20;
        println!(
            "pipeline: {CHUNKS} chunks ({mib} MiB up and down) checked on the host; one at a time {:.2} ms, {IN_FLIGHT} in flight on two streams {:.2} ms",
            times[1], times[2]
        );
    }
    Ok(wrong)
}

fn main() -> ExitCode {
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(wrong) => {
            eprintln!("02_pipeline: {wrong} elements differ from the expected result");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("02_pipeline: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
