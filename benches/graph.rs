//! CUDA graphs measured against the raw driver calls in the same process:
//! how one thread feeds many small kernels cheaply.
//!
//! ```text
//! cargo bench -p custack-benches --bench graph  # on a GPU machine
//! bash scripts/gpu-bundle.sh --bench graph  # packs it; on the GPU machine: bash .gpu/run.sh
//! ```
//!
//! The graph is 100 launches of `add_u32(x, 1, n)` on 4096 `u32`s (16 blocks of 256 threads),
//! the small-kernel case graphs exist for. Rows, each custack beside the raw `custack::ffi`
//! calls it makes, in alternating order after one warm-up of each:
//! - capture: `Stream::capture` of the 100 launches (raw: `cuStreamBeginCapture`, 100
//!   `cuLaunchKernel`, `cuStreamEndCapture`);
//! - instantiate: `Graph::instantiate` (raw: `cuGraphInstantiateWithFlags`, `cuGraphDestroy`);
//! - launch and wait, in a scope: `launch_graph` (raw: `cuGraphLaunch`, `cuStreamSynchronize`);
//! - launch and wait, as an owned submission (`submit` + `wait`: one event record and wait
//!   more than the raw `cuGraphLaunch`, `cuStreamSynchronize`, which it is compared with);
//! - update: `GraphExec::update` from a graph captured over another buffer (raw:
//!   `cuGraphExecUpdate`, `cuGraphDestroy`);
//! - and the point of graphs: the same 100 launches made one by one on a stream and waited for
//!   (custack: one scope; raw: 100 `cuLaunchKernel`, `cuStreamSynchronize`), against one
//!   launch of the graph and a wait.
//!
//! Untimed set-up (allocating the buffers a capture owns, dropping what a row made) happens
//! outside each timed call. Reported: the median over `CUSTACK_GRAPH_REPS` (default 50)
//! repetitions, the spread (p10–p90 ÷ 2 of the median) and custack's median over raw's. Every
//! variant's result is checked once (not with `CUSTACK_GRAPH_UNCHECKED=1`, for a run against
//! the do-nothing driver of `checkdriver`, which computes nothing). Nothing here asserts
//! a time. Without `--bench` (as `cargo
//! test --all-targets` runs it) it prints how to run it and exits.

#![allow(
    clippy::cast_precision_loss,
    clippy::multiple_unsafe_ops_per_block, // the raw variants are C programs in Rust syntax
    clippy::too_many_lines
)]

use core::ffi::c_void;
use custack::graph::Graph;
use custack::prelude::*;
use custack::{
    Context, ContextFlags, DeviceBuffer, Driver, Function, LaunchConfig, Stack, Stream, ffi,
};
use std::time::Instant;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const N: usize = 4096;
const LAUNCHES: u32 = 100;

fn ok(r: ffi::CUresult, what: &str) {
    assert!(r == ffi::CUresult::CUDA_SUCCESS, "{what}: {r:?}");
}

/// Median and spread (p10–p90 ÷ 2, relative to the median) of a set of times in seconds.
fn stats(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let median = at(0.5);
    (median, (at(0.9) - at(0.1)) / 2.0 / median)
}

/// One row: raw and custack samples, taken in alternating order.
struct Row {
    name: &'static str,
    raw: Vec<f64>,
    custack: Vec<f64>,
}

impl Row {
    fn new(name: &'static str) -> Self {
        Self {
            name,
            raw: Vec::new(),
            custack: Vec::new(),
        }
    }
    /// Takes `reps + 1` samples of each (the first of each is a warm-up, dropped). Each
    /// closure returns the seconds of its timed part.
    fn run(
        mut self,
        reps: usize,
        mut raw: impl FnMut() -> f64,
        mut custack: impl FnMut() -> f64,
    ) -> Self {
        for rep in 0..=reps {
            let (r, c) = if rep % 2 == 0 {
                let c = custack();
                (raw(), c)
            } else {
                let r = raw();
                (r, custack())
            };
            if rep > 0 {
                self.raw.push(r);
                self.custack.push(c);
            }
        }
        self
    }
    fn medians(&mut self) -> (f64, f64, f64, f64) {
        let (raw, raw_spread) = stats(&mut self.raw);
        let (cu, cu_spread) = stats(&mut self.custack);
        (raw, raw_spread, cu, cu_spread)
    }
    fn print(mut self) -> (f64, f64) {
        let (raw, raw_spread, cu, cu_spread) = self.medians();
        println!(
            "| {} | {:.2} µs | {:.2} µs | {:.3} | ±{:.1}% · ±{:.1}% |",
            self.name,
            raw * 1e6,
            cu * 1e6,
            cu / raw,
            raw_spread * 100.0,
            cu_spread * 100.0
        );
        (raw, cu)
    }
}

fn time(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

type Payload<'g, 'm> = (DeviceBuffer<'g, u32>, Function<'m>);

fn cfg() -> LaunchConfig {
    LaunchConfig::for_elements(N as u32)
}

/// custack: the 100 launches, captured into a graph owning `payload`.
fn capture<'g, 'm>(
    stream: &Stream<'g>,
    payload: Payload<'g, 'm>,
) -> custack::Result<Graph<'g, Payload<'g, 'm>>> {
    stream.capture(payload, |s, (mut x, add)| {
        for _ in 0..LAUNCHES {
            // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n); x holds N.
            unsafe { s.launch(&add, cfg(), (&mut x, 1u32, N as u32)) }?;
        }
        Ok(())
    })
}

/// Raw: the 100 launches of `add_u32` on `x`, enqueued on `stream`.
fn raw_launches(f: ffi::CUfunction, x: ffi::CUdeviceptr, stream: ffi::CUstream) {
    let cfg = cfg();
    let (mut x, mut k, mut n) = (x, 1u32, N as u32);
    let mut params = [
        (&raw mut x).cast::<c_void>(),
        (&raw mut k).cast::<c_void>(),
        (&raw mut n).cast::<c_void>(),
    ];
    for _ in 0..LAUNCHES {
        // SAFETY: a live function of the current context whose parameters are (pointer, u32,
        // u32), each pointed to by `params`; `x` holds N live u32s of this context.
        unsafe {
            ok(
                ffi::cuLaunchKernel(
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
                ),
                "cuLaunchKernel",
            );
        }
    }
}

/// Raw: the 100 launches captured from `stream` into a graph.
fn raw_capture(f: ffi::CUfunction, x: ffi::CUdeviceptr, stream: ffi::CUstream) -> ffi::CUgraph {
    let mut graph = core::ptr::null_mut();
    // SAFETY: a live stream of the current context, not capturing; valid out-pointer.
    unsafe {
        ok(
            ffi::cuStreamBeginCapture_v2(
                stream,
                ffi::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            ),
            "cuStreamBeginCapture",
        );
    }
    raw_launches(f, x, stream);
    // SAFETY: the stream is capturing since the begin above.
    unsafe {
        ok(
            ffi::cuStreamEndCapture(stream, &raw mut graph),
            "cuStreamEndCapture",
        );
    }
    graph
}

fn raw_instantiate(graph: ffi::CUgraph) -> ffi::CUgraphExec {
    let mut exec = core::ptr::null_mut();
    // SAFETY: a live graph of the current context, destroyed once after instantiation (an
    // executable graph does not depend on it), as `Graph::instantiate` does.
    unsafe {
        ok(
            ffi::cuGraphInstantiateWithFlags(&raw mut exec, graph, 0),
            "cuGraphInstantiate",
        );
        ok(ffi::cuGraphDestroy(graph), "cuGraphDestroy");
    }
    exec
}

fn raw_launch_and_wait(exec: ffi::CUgraphExec, stream: ffi::CUstream) {
    // SAFETY: a live executable graph and stream of the current context.
    unsafe {
        ok(ffi::cuGraphLaunch(exec, stream), "cuGraphLaunch");
        ok(ffi::cuStreamSynchronize(stream), "cuStreamSynchronize");
    }
}

fn raw_exec_destroy(exec: ffi::CUgraphExec) {
    // SAFETY: a live executable graph with no launch pending, destroyed once.
    unsafe { ok(ffi::cuGraphExecDestroy(exec), "cuGraphExecDestroy") };
}

/// `assert!` unless `CUSTACK_GRAPH_UNCHECKED` is set.
fn check(ok: bool, what: &str) {
    if std::env::var_os("CUSTACK_GRAPH_UNCHECKED").is_none() {
        assert!(ok, "{what}");
    }
}

fn run(reps: usize) -> custack::Result<()> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!(
        "graph: {}, driver API {}, {LAUNCHES} launches of add_u32 on {N} u32s per graph, {reps} repetitions per variant",
        device.name()?,
        driver.version()?
    );
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let raw_stream = stream.as_raw();
    let raw_add = add.as_raw();
    // Raw variants work on this buffer; custack's own on the buffers their payloads own.
    let mut raw_x = guard.alloc_zeroed::<u32>(N)?;
    let raw_ptr = raw_x.device_ptr();

    // Every variant's result, checked once: each graph launch adds LAUNCHES to every element.
    let checked_exec = capture(&stream, (guard.alloc_zeroed::<u32>(N)?, add))?.instantiate()?;
    let checked_exec = stream
        .submit(checked_exec, |s, g| s.launch_graph(&g))?
        .wait()?;
    check(
        checked_exec
            .payload()
            .0
            .to_vec()?
            .iter()
            .all(|&v| v == LAUNCHES),
        "custack graph result",
    );
    let raw_exec = raw_instantiate(raw_capture(raw_add, raw_ptr, raw_stream));
    raw_launch_and_wait(raw_exec, raw_stream);
    check(
        raw_x.to_vec()?.iter().all(|&v| v == LAUNCHES),
        "raw graph result",
    );
    raw_x.fill_u32(0)?;

    println!(
        "| operation | raw | custack | custack/raw | spread (raw · custack) |\n| --- | ---: | ---: | ---: | --- |"
    );
    Row::new("capture 100 launches")
        .run(
            reps,
            || {
                let mut graph = core::ptr::null_mut();
                let t = time(|| graph = raw_capture(raw_add, raw_ptr, raw_stream));
                // SAFETY: a live graph, destroyed once.
                unsafe { ok(ffi::cuGraphDestroy(graph), "cuGraphDestroy") };
                t
            },
            || {
                let payload = (guard.alloc::<u32>(N).expect("alloc"), add);
                let mut graph = None;
                let t = time(|| graph = Some(capture(&stream, payload).expect("capture")));
                drop(graph);
                t
            },
        )
        .print();

    Row::new("instantiate (100 kernel nodes)")
        .run(
            reps,
            || {
                let graph = raw_capture(raw_add, raw_ptr, raw_stream);
                let mut exec = core::ptr::null_mut();
                let t = time(|| exec = raw_instantiate(graph));
                raw_exec_destroy(exec);
                t
            },
            || {
                let payload = (guard.alloc::<u32>(N).expect("alloc"), add);
                let graph = capture(&stream, payload).expect("capture");
                let mut exec = None;
                let t = time(|| exec = Some(graph.instantiate().expect("instantiate")));
                drop(exec);
                t
            },
        )
        .print();

    let mut exec = capture(&stream, (guard.alloc_zeroed::<u32>(N)?, add))?.instantiate()?;
    let graph_launch = Row::new("launch + wait, in a scope")
        .run(
            reps,
            || time(|| raw_launch_and_wait(raw_exec, raw_stream)),
            || {
                time(|| {
                    stream
                        .scope(|s| {
                            let g = s.bind_graph(&mut exec);
                            s.launch_graph(&g)
                        })
                        .and_then(|r| r)
                        .expect("launch_graph");
                })
            },
        )
        .print();

    let mut owned = Some(exec);
    Row::new("launch + wait, owned submission")
        .run(
            reps,
            || time(|| raw_launch_and_wait(raw_exec, raw_stream)),
            || {
                let exec = owned.take().expect("the executable graph");
                let mut back = None;
                let t = time(|| {
                    back = Some(
                        stream
                            .submit(exec, |s, g| s.launch_graph(&g))
                            .and_then(custack::Submission::wait)
                            .expect("submit"),
                    );
                });
                owned = back;
                t
            },
        )
        .print();
    let mut exec = owned.expect("the executable graph");
    // Every launch so far added LAUNCHES to the executable graph's own buffer.
    let launched = exec.payload().0.to_vec()?;
    check(
        launched
            .iter()
            .all(|&v| v == launched[0] && v > 0 && v % LAUNCHES == 0),
        "launched graph result",
    );

    // Raw updates alternate between two buffers, so that each, like custack's, changes every
    // node's argument.
    let raw_other = guard.alloc_zeroed::<u32>(N)?;
    let mut raw_targets = [raw_other.device_ptr(), raw_ptr].into_iter().cycle();
    Row::new("update from a graph over another buffer")
        .run(
            reps,
            || {
                let target = raw_targets.next().unwrap_or(raw_ptr);
                let graph = raw_capture(raw_add, target, raw_stream);
                let mut info = ffi::CUgraphExecUpdateResultInfo {
                    result: ffi::CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_SUCCESS,
                    errorNode: core::ptr::null_mut(),
                    errorFromNode: core::ptr::null_mut(),
                };
                // SAFETY: a live executable graph (no launch pending: the raw rows wait for
                // theirs) and graph of the current context, the graph destroyed once after, as
                // `GraphExec::update` does.
                time(|| unsafe {
                    ok(
                        ffi::cuGraphExecUpdate_v2(raw_exec, graph, &raw mut info),
                        "cuGraphExecUpdate",
                    );
                    ok(ffi::cuGraphDestroy(graph), "cuGraphDestroy");
                })
            },
            || {
                let payload = (guard.alloc_zeroed::<u32>(N).expect("alloc"), add);
                let graph = capture(&stream, payload).expect("capture");
                let mut old = None;
                let t = time(|| old = Some(exec.update(graph).expect("update")));
                drop(old);
                t
            },
        )
        .print();
    // The updated graph adds to the buffer of the last capture, zeroed: one launch gives 100.
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    check(
        exec.payload().0.to_vec()?.iter().all(|&v| v == LAUNCHES),
        "updated graph result",
    );

    let mut stream_x = guard.alloc_zeroed::<u32>(N)?;
    let mut one_by_one = Row::new("100 launches one by one on a stream + wait").run(
        reps,
        || {
            time(|| {
                raw_launches(raw_add, raw_ptr, raw_stream);
                // SAFETY: a live stream of the current context.
                unsafe { ok(ffi::cuStreamSynchronize(raw_stream), "cuStreamSynchronize") };
            })
        },
        || {
            time(|| {
                stream
                    .scope(|s| -> custack::Result<()> {
                        let mut x = s.bind_mut(&mut stream_x);
                        for _ in 0..LAUNCHES {
                            // SAFETY: add_u32 touches x[0..n); x holds N.
                            unsafe { s.launch(&add, cfg(), (&mut x, 1u32, N as u32)) }?;
                        }
                        Ok(())
                    })
                    .and_then(|r| r)
                    .expect("scope");
            })
        },
    );
    let (_, _, stream_cu, _) = one_by_one.medians();
    let stream_row = one_by_one.print();
    check(
        stream_x
            .to_vec()?
            .iter()
            .all(|&v| v % LAUNCHES == 0 && v > 0),
        "one-by-one result",
    );
    println!(
        "\nthe same 100 launches as one graph launch + wait: raw {:.2}× faster than one by one, custack {:.2}× (graph launch {:.2} µs raw, {:.2} µs custack; one by one {:.2} µs raw, {:.2} µs custack)",
        stream_row.0 / graph_launch.0,
        stream_cu / graph_launch.1,
        graph_launch.0 * 1e6,
        graph_launch.1 * 1e6,
        stream_row.0 * 1e6,
        stream_row.1 * 1e6,
    );

    raw_exec_destroy(raw_exec);
    drop(raw_other);
    drop(checked_exec);
    Ok(())
}

fn main() -> std::process::ExitCode {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "graph: a benchmark; run it with `cargo bench -p custack-benches --bench graph` on a GPU machine"
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
            eprintln!("graph: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
