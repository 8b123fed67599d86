//! Many requests in flight on tokio: each request moves its buffers into an owned submission
//! (upload, a kernel, download) and `.await`s it; 16 requests are in flight at once on 4
//! streams, and every request's result is checked on the host. The same requests awaited one at a time
//! give the baseline.
//!
//! `cargo run --release -p custack-benches --example 13_tokio_requests`
//!
//! A submission is a `Future`, woken by a callback that the driver runs on its own thread once
//! the work is complete: nothing polls the GPU, and the tokio thread sleeps while it waits. A
//! submission borrows its stream, which borrows the pushed guard, so it is `!Send` and not
//! `'static`: it is awaited on the thread that pushed the context, inside a future that
//! `Runtime::block_on` (or `LocalSet::run_until`) drives, not in `tokio::spawn`/`spawn_local`,
//! which need `'static`. The requests run concurrently as 16 lanes joined on that thread, each
//! lane awaiting its requests' submissions one after the other; see the guide
//! (`custack::guide::scopes`, "Awaiting submissions") for which executors work and why.
use custack::{
    Context, ContextFlags, Declared, DeviceBuffer, Driver, LaunchConfig, PinnedBuffer, Stack,
    Stream,
};
use std::cell::Cell;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::process::ExitCode;
use std::task::Poll;
use std::time::{Duration, Instant};

const KERNELS: &str = include_str!("../../tests/fixtures/kernels.ptx");
const N: usize = 1 << 18; // u32 elements: 1 MiB up and 1 MiB down per request
const REQUESTS: u32 = 512;
const STREAMS: usize = 4;
const IN_FLIGHT: usize = 16;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

/// What a request moves into its submission and gets back: page-locked input, device buffer,
/// the kernel, page-locked output.
type Slot<'g, 'm> = (
    PinnedBuffer<'g, u32>,
    DeviceBuffer<'g, u32>,
    Declared<'m, AddU32>,
    PinnedBuffer<'g, u32>,
);

/// Element `i` of every input is `i % 1000`, but element 0, which is the request's id.
fn expected(id: u32, i: usize) -> u32 {
    if i == 0 {
        2 * id
    } else {
        (i % 1000) as u32 + id
    }
}

/// One request: the host writes its id into the input, the submission uploads it, adds `id` to
/// every element on the GPU and downloads the result; `.await` hands the buffers back, and the
/// host checks the result: element 0 (the request's own id, so no request got another's
/// result) and every 64th element (a sample: a full check would make the host, not the GPU,
/// the bottleneck). Returns the buffers and how many checked elements were wrong.
async fn request<'g, 'm>(
    id: u32,
    stream: &Stream<'_>,
    slot: Slot<'g, 'm>,
) -> custack::Result<(Slot<'g, 'm>, usize)> {
    let (mut input, dev, add, output) = slot;
    if let Some(first) = input.first_mut() {
        *first = id; // the host writes the buffer while it owns it
    }
    let submission = stream.submit(
        (input, dev, add, output),
        move |s, (input, mut dev, add, output)| {
            s.copy_to_device(&mut dev, input)?;
            // `dev` holds N elements, checked against the contract's `n`.
            s.run(
                &add,
                LaunchConfig::for_elements(N as u32),
                (&mut dev, id, N as u32),
            )?;
            s.copy_to_host(output, &dev)
        },
    )?;
    let slot = submission.await?; // woken from the driver's callback thread
    let wrong = slot
        .3
        .iter()
        .enumerate()
        .step_by(64)
        .filter(|&(i, &x)| x != expected(id, i))
        .count();
    Ok((slot, wrong))
}

/// A lane: takes the next request id until none is left, and awaits each request in turn on
/// its stream, reusing its buffers. Returns how many elements were wrong.
async fn lane<'g, 'm>(
    next: &Cell<u32>,
    stream: &Stream<'_>,
    mut slot: Slot<'g, 'm>,
) -> custack::Result<(Slot<'g, 'm>, usize)> {
    let mut wrong = 0;
    loop {
        let id = next.get();
        if id == REQUESTS {
            return Ok((slot, wrong));
        }
        next.set(id + 1);
        let (back, w) = request(id, stream, slot).await?;
        slot = back;
        wrong += w;
    }
}

/// Drives every future on this thread until all are done, polling only while one of them may
/// have made progress (tokio has no join for a runtime-sized set of futures that borrow local
/// data; `futures::future::join_all` does the same).
async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(v) => *output = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

/// Every request through `lanes` lanes (lane `i` on stream `i % STREAMS`), on the slots given;
/// returns the slots, the number of wrong elements and the wall time.
async fn run_requests<'g, 'm>(
    streams: &[Stream<'_>],
    slots: Vec<Slot<'g, 'm>>,
    lanes: usize,
) -> custack::Result<(Vec<Slot<'g, 'm>>, usize, Duration)> {
    let next = Cell::new(0);
    let mut slots = slots;
    let spare = slots.split_off(lanes.min(slots.len()));
    let start = Instant::now();
    let done = join_all(
        slots
            .into_iter()
            .zip(streams.iter().cycle())
            .map(|(slot, stream)| lane(&next, stream, slot))
            .collect(),
    )
    .await;
    let elapsed = start.elapsed();
    let mut back = spare;
    let mut wrong = 0;
    for result in done {
        let (slot, w) = result?;
        back.push(slot);
        wrong += w;
    }
    Ok((back, wrong, elapsed))
}

fn run() -> custack::Result<usize> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!("device 0: {}", device.name()?);
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let streams = (0..STREAMS)
        .map(|_| guard.stream())
        .collect::<custack::Result<Vec<_>>>()?;
    // Buffers for every request in flight, page-locked before timing (that takes milliseconds).
    let mut slots = Vec::new();
    for _ in 0..IN_FLIGHT {
        let mut input = guard.alloc_pinned::<u32>(N)?;
        for (i, x) in input.iter_mut().enumerate() {
            *x = (i % 1000) as u32;
        }
        slots.push((
            input,
            guard.alloc::<u32>(N)?,
            add,
            guard.alloc_pinned::<u32>(N)?,
        ));
    }

    // A current-thread runtime: the submissions are awaited on this thread, which pushed the
    // context. Nothing else of tokio is needed: the driver's callback wakes the task.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| {
            custack::Error::new(custack::ErrorKind::Io, "starting the tokio runtime").with_source(e)
        })?;
    runtime.block_on(async {
        let mut wrong = 0;
        let mut times = Vec::new();
        // One at a time (warm-up too), then IN_FLIGHT lanes.
        for lanes in [1, 1, IN_FLIGHT] {
            let (back, w, elapsed) = run_requests(&streams, slots, lanes).await?;
            slots = back;
            wrong += w;
            times.push(elapsed.as_secs_f64());
        }
        if wrong == 0 {
            let gib = 2.0 * f64::from(REQUESTS) * f64::from(N as u32 * 4) / f64::from(1u32 << 30);
            let (one, many) = (times[1], times[2]);
            println!(
                "tokio_requests: {REQUESTS} requests (1 MiB up and down each) awaited as owned submissions, each result checked (its id, every 64th element); one at a time {:.1} ms ({:.1} GiB/s), {IN_FLIGHT} in flight on {STREAMS} streams {:.1} ms ({:.1} GiB/s, {:.2}x)",
                one * 1e3,
                gib / one,
                many * 1e3,
                gib / many,
                one / many
            );
        }
        Ok(wrong)
    })
}

fn main() -> ExitCode {
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(wrong) => {
            eprintln!("13_tokio_requests: {wrong} elements differ from the expected result");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("13_tokio_requests: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
