//! Worst-case timings of the restricted profile's run phase, as measured: each run-phase call
//! made 10^5 times (by default) on the GPU, each call timed alone on the host, and its median,
//! 99.9th and 99.99th percentiles and maximum printed; the whole measurement repeated so that
//! the spread of each figure from run to run shows. No WCET can be derived for a closed driver:
//! these are measurements, on the hardware and under the load the run states.
//!
//! `run_phase_tail CUBIN CALLS REPS`, or `--bench` (as `.gpu/run.sh` runs benches) with the
//! cubin from `CUSTACK_FRAME_CUBIN` (`examples/kernels/frame.cu`). One line per call and
//! repetition, `tail CALL rep=… median_ns=… p999_ns=… p9999_ns=… max_ns=… calls=…`, then one
//! line per call over the repetitions, `tail CALL … median_ns=LO–HI …`.

#[path = "../examples/22_safety_frame/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;

use custack::LaunchConfig;
use custack::safety::{Budget, Profile, RestrictedContext, WaitBound};
use std::time::{Duration, Instant};

/// Elements of the small buffers the calls work on: one 4 KiB page.
const N: u32 = 1024;

/// The calls measured, in the order they are printed.
const CALLS: [&str; 14] = [
    "scope (empty)",
    "scope + run + wait",
    "run (enqueue)",
    "copy_to_device (enqueue, 4 KiB)",
    "copy_to_host (enqueue, 4 KiB)",
    "fill_bytes (enqueue)",
    "launch_graph (enqueue)",
    "record (enqueue)",
    "wait (enqueue)",
    "RestrictedStream::synchronize",
    "RestrictedStream::is_complete",
    "RestrictedEvent::synchronize",
    "RunPhase::synchronize",
    "RunPhase::memory_info",
];

/// Nanoseconds of one call.
fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Median, p99.9, p99.99 and maximum of `v` (sorted here).
fn figures(v: &mut [u64]) -> [u64; 4] {
    v.sort_unstable();
    let at = |q: f64| {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let i = ((v.len() as f64 - 1.0) * q).round() as usize;
        v[i.min(v.len() - 1)]
    };
    [at(0.5), at(0.999), at(0.9999), *v.last().unwrap_or(&0)]
}

// One measurement loop, read top to bottom; `i` indexes fourteen series at once; nanoseconds
// of a call are far below 2^52.
#[allow(
    clippy::too_many_lines,
    clippy::needless_range_loop,
    clippy::cast_precision_loss
)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bench = std::env::args().any(|a| a == "--bench");
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if !bench && args.is_empty() {
        println!(
            "run_phase_tail: a benchmark; run it on a GPU machine with CUBIN CALLS REPS, or \
             --bench and CUSTACK_FRAME_CUBIN"
        );
        return Ok(());
    }
    let path = match args.first() {
        Some(path) => path.clone(),
        None => std::env::var("CUSTACK_FRAME_CUBIN")
            .map_err(|_| "run_phase_tail: give CUBIN CALLS REPS, or set CUSTACK_FRAME_CUBIN")?,
    };
    let calls: usize = args.get(1).map_or(Ok(100_000), |a| a.parse())?;
    let reps: usize = args.get(2).map_or(Ok(3), |a| a.parse())?;
    let cubin = std::fs::read(&path)?;
    let profile = Profile::init(1)?;
    let page = N as usize * size_of::<f32>();
    let budget = Budget::page_locked(2 * page)
        .device_bytes(2 * page)
        .streams(1)
        .events(1)
        .modules(1)
        .kernels(2)
        .graphs(1)
        .graph_nodes(1)
        .waits(WaitBound::fail_stop(Duration::from_secs(1)));
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = custack::Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    // [call][rep] -> figures
    let mut all: Vec<Vec<[u64; 4]>> = vec![Vec::new(); CALLS.len()];
    {
        let init = guard.init()?;
        // SAFETY: nvcc's cubin of examples/kernels/frame.cu; `frame_gain` writes `n` floats.
        let module = unsafe { init.load_cubin(&cubin) }?;
        let gain = init.kernel::<pipeline::FrameGain>(&module)?;
        let graphed = init.kernel::<pipeline::FrameGain>(&module)?;
        let stream = init.stream()?;
        let event = init.event()?;
        let input = init.alloc_pinned::<f32>(N as usize)?;
        let mut output = init.alloc_pinned::<f32>(N as usize)?;
        let mut buf = init.alloc::<f32>(N as usize)?;
        let config = LaunchConfig::for_elements(N);
        let payload = (init.alloc::<f32>(N as usize)?, graphed);
        let mut graph = init.capture(&stream, payload, move |s, (mut b, g)| {
            s.run(&g, config, (&mut b, 1.0f32, N))
        })?;
        let run = init.seal();
        let mut times: Vec<Vec<u64>> = (0..CALLS.len()).map(|_| vec![0; calls]).collect();
        for _ in 0..reps {
            for i in 0..calls {
                let t = Instant::now();
                stream.scope(|_| ())?;
                times[0][i] = ns(t.elapsed());
                let mut inner = [0u64; 7];
                let t = Instant::now();
                stream.scope(|s| -> custack::Result<()> {
                    let mut d = s.bind_mut(&mut buf);
                    let e = Instant::now();
                    s.run(&gain, config, (&mut d, 1.0f32, N))?;
                    inner[0] = ns(e.elapsed());
                    let e = Instant::now();
                    s.copy_to_device(&mut d, &input)?;
                    inner[1] = ns(e.elapsed());
                    let e = Instant::now();
                    s.copy_to_host(&mut output, &d)?;
                    inner[2] = ns(e.elapsed());
                    let e = Instant::now();
                    s.fill_bytes(&mut d, 0)?;
                    inner[3] = ns(e.elapsed());
                    Ok(())
                })??;
                times[1][i] = ns(t.elapsed());
                stream.scope(|s| -> custack::Result<()> {
                    let (g, _) = s.bind_graph(&mut graph);
                    let e = Instant::now();
                    s.launch_graph(&g)?;
                    inner[4] = ns(e.elapsed());
                    let e = Instant::now();
                    s.record(&event)?;
                    inner[5] = ns(e.elapsed());
                    let e = Instant::now();
                    s.wait(&event)?;
                    inner[6] = ns(e.elapsed());
                    Ok(())
                })??;
                for (k, v) in inner.iter().enumerate() {
                    times[2 + k][i] = *v;
                }
                let t = Instant::now();
                stream.synchronize()?;
                times[9][i] = ns(t.elapsed());
                let t = Instant::now();
                let _ = stream.is_complete()?;
                times[10][i] = ns(t.elapsed());
                let t = Instant::now();
                event.synchronize()?;
                times[11][i] = ns(t.elapsed());
                let t = Instant::now();
                run.synchronize()?;
                times[12][i] = ns(t.elapsed());
                let t = Instant::now();
                let _ = run.memory_info()?;
                times[13][i] = ns(t.elapsed());
            }
            for (c, v) in times.iter_mut().enumerate() {
                let f = figures(v);
                all[c].push(f);
            }
        }
        run.synchronize()?;
    }
    guard.shutdown()?;
    ctx.destroy()?;
    let gpu = "device 0";
    for (c, name) in CALLS.iter().enumerate() {
        for (r, f) in all[c].iter().enumerate() {
            println!(
                "tail {name:?} rep={r} median_ns={} p999_ns={} p9999_ns={} max_ns={} calls={calls}",
                f[0], f[1], f[2], f[3]
            );
        }
    }
    println!(
        "summary ({gpu}; {calls} calls a repetition, {reps} repetitions; LO-HI over the repetitions)"
    );
    for (c, name) in CALLS.iter().enumerate() {
        let span = |k: usize| {
            let lo = all[c].iter().map(|f| f[k]).min().unwrap_or(0);
            let hi = all[c].iter().map(|f| f[k]).max().unwrap_or(0);
            format!("{:.1}-{:.1}", lo as f64 / 1000.0, hi as f64 / 1000.0)
        };
        println!(
            "tail | {name} | {} | {} | {} | {} |",
            span(0),
            span(1),
            span(2),
            span(3)
        );
    }
    Ok(())
}
