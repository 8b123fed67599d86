//! A rolling pipeline, measured: 200 chunks of 4 MiB, each uploaded from
//! page-locked memory, run through a kernel doing real arithmetic (`poly`, `iters` fused
//! multiply-adds per element), downloaded, and consumed on the host (a checksum) as soon as the
//! pipeline needs its slot again, with `SLOTS` chunks in flight.
//!
//! ```text
//! cargo bench -p custack-benches --bench pipeline  # on a GPU machine
//! bash scripts/gpu-bundle.sh --bench pipeline  # packs it; on the GPU machine: bash .gpu/run.sh
//! ```
//!
//! Variants, all in each process, in rotating order, after a warm-up of each:
//! - `raw`: the expert C version through `custack::ffi`: a ring of buffers and an event per
//!   stage per chunk, created once, GPU-side waits between streams;
//! - `submit`: custack's owned submissions (`Stream::submit`, `submit_after`), no `unsafe` but
//!   the launch;
//! - `scopes`: custack's stream scopes, the best they allow: the slots' chunks spread over the
//!   streams in nested scopes, which drain the GPU between batches;
//! - `cudarc`: cudarc 0.19 as its documentation recommends (its per-buffer events make the
//!   cross-stream waits);
//!
//! each on three streams (upload, compute, download) and on two (upload; compute and
//! download). Stage totals (every chunk's upload, kernel and download on their own, one stream)
//! give the overlap: `(sum of stages − time) / (sum of stages − longest stage)`, 1 when the
//! pipeline hides everything but its longest stage.
//!
//! All variants use the device's primary context (cudarc's).
//!
//! Every number comes from fresh processes (`CUSTACK_PIPE_PROCS`, default 15, each running every
//! variant `CUSTACK_PIPE_REPS` times, default 7); reported: the median over processes of each
//! process's median, and the range of those medians. Every variant's checksum must agree.
//! Nothing here asserts a time. Without `--bench` (as `cargo test --all-targets` runs it) it
//! prints how to run it and exits.

#![allow(
    clippy::many_single_char_names,       // the kernel's parameters, named as in its PTX
    clippy::multiple_unsafe_ops_per_block, // the raw variant is a C program in Rust syntax
    clippy::cast_precision_loss,
    clippy::too_many_lines,
    clippy::items_after_statements
)]

use core::ffi::c_void;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaStream, LaunchConfig as CuLaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use custack::{
    Context, DeviceBuffer, Driver, Function, LaunchConfig, PinnedBuffer, PushedGuard, Stack,
    Stream, ffi,
};
use std::collections::VecDeque;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

const PTX: &str = include_str!("pipeline.ptx");
const CHUNKS: usize = 200;
const N: usize = 1 << 20; // f32 elements: 4 MiB
const N32: u32 = N as u32;
const SLOTS: usize = 4;
const A: f32 = 0.999;
const B: f32 = 0.001;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn ok(r: ffi::CUresult, what: &str) {
    assert!(r == ffi::CUresult::CUDA_SUCCESS, "{what}: {r:?}");
}

/// What the host does with each result: a checksum over a sample of it.
fn consume(out: &[f32]) -> f64 {
    out.iter().step_by(64).map(|&x| f64::from(x)).sum()
}

/// Fills an input slot: the same data for every chunk but its first element, the chunk index.
fn fill_input(host: &mut [f32]) {
    for (i, x) in host.iter_mut().enumerate() {
        *x = (i % 1000) as f32 * 0.001;
    }
}

struct Setup<'g> {
    guard: &'g PushedGuard<'g, 'g>,
    poly: Function<'g>,
    iters: u32,
    cu: CuSetup,
}

/// cudarc's handles, on the same (primary) context.
struct CuSetup {
    ctx: Arc<CudaContext>,
    streams: Vec<Arc<CudaStream>>,
    poly: CudaFunction,
}

impl Setup<'_> {
    fn cfg() -> LaunchConfig {
        LaunchConfig::for_elements(N32)
    }
}

// ---------------------------------------------------------------------------------------------
// raw: the driver API as a C programmer writes it

struct RawSlot {
    pin_in: *mut f32,
    pin_out: *mut f32,
    dev: ffi::CUdeviceptr,
    up: ffi::CUevent,
    comp: ffi::CUevent,
    done: ffi::CUevent,
}

fn raw_pipeline(setup: &Setup<'_>, streams: &[Stream<'_>]) -> f64 {
    raw_pipeline_with(setup, streams, RawEvents::PerStage)
}

/// Diagnostic: one event per chunk, recorded again by each stage (what a joined submission does).
fn raw_chain(setup: &Setup<'_>, streams: &[Stream<'_>]) -> f64 {
    raw_pipeline_with(setup, streams, RawEvents::Chain)
}

/// Diagnostic: as `raw_chain`, and the event created and destroyed per chunk.
fn raw_chain_created(setup: &Setup<'_>, streams: &[Stream<'_>]) -> f64 {
    raw_pipeline_with(setup, streams, RawEvents::ChainCreated)
}

#[derive(Clone, Copy, PartialEq)]
enum RawEvents {
    PerStage,
    Chain,
    ChainCreated,
}

fn raw_pipeline_with(setup: &Setup<'_>, streams: &[Stream<'_>], mode: RawEvents) -> f64 {
    let bytes = N * 4;
    let mut slots = Vec::new();
    for _ in 0..SLOTS {
        let (mut pin_in, mut pin_out) = (core::ptr::null_mut::<c_void>(), core::ptr::null_mut());
        let mut dev = 0;
        let mut ev = [core::ptr::null_mut(); 3];
        // SAFETY: valid out-pointers; the setup's context is current.
        unsafe {
            ok(
                ffi::cuMemHostAlloc(&raw mut pin_in, bytes, 0),
                "cuMemHostAlloc",
            );
            ok(
                ffi::cuMemHostAlloc(&raw mut pin_out, bytes, 0),
                "cuMemHostAlloc",
            );
            ok(ffi::cuMemAlloc_v2(&raw mut dev, bytes), "cuMemAlloc");
            for e in &mut ev {
                ok(ffi::cuEventCreate(e, 2), "cuEventCreate"); // CU_EVENT_DISABLE_TIMING
            }
        }
        // SAFETY: `pin_in` holds N floats.
        fill_input(unsafe { core::slice::from_raw_parts_mut(pin_in.cast::<f32>(), N) });
        slots.push(RawSlot {
            pin_in: pin_in.cast(),
            pin_out: pin_out.cast(),
            dev,
            up: ev[0],
            comp: ev[1],
            done: ev[2],
        });
    }
    let (up, comp, down) = match streams {
        [a, b, c] => (a.as_raw(), b.as_raw(), c.as_raw()),
        [a, b] => (a.as_raw(), b.as_raw(), b.as_raw()),
        _ => unreachable!(),
    };
    let poly = setup.poly.as_raw();
    let cfg = Setup::cfg();
    let t = Instant::now();
    let mut sum = 0.0;
    for i in 0..CHUNKS + SLOTS {
        let slot = &slots[i % SLOTS];
        if i >= SLOTS {
            let done = if mode == RawEvents::PerStage {
                slot.done
            } else {
                slot.up
            };
            // SAFETY: a live event of the current context.
            ok(unsafe { ffi::cuEventSynchronize(done) }, "sync");
            // SAFETY: `pin_out` holds N floats, and the download into it is complete.
            sum += consume(unsafe { core::slice::from_raw_parts(slot.pin_out, N) });
            if mode == RawEvents::ChainCreated {
                // SAFETY: a live event, destroyed once (re-created below).
                ok(unsafe { ffi::cuEventDestroy_v2(slot.up) }, "destroy");
            }
        }
        if i >= CHUNKS {
            if mode == RawEvents::ChainCreated {
                // SAFETY: valid out-pointer; the context is current.
                let ev = unsafe { ffi::cuEventCreate(&raw mut slots[i % SLOTS].up, 2) };
                ok(ev, "create");
            }
            continue;
        }
        if mode == RawEvents::ChainCreated && i >= SLOTS {
            // SAFETY: valid out-pointer; the context is current.
            let ev = unsafe { ffi::cuEventCreate(&raw mut slots[i % SLOTS].up, 2) };
            ok(ev, "create");
        }
        let slot = &slots[i % SLOTS];
        let (ev_comp, ev_done) = match mode {
            RawEvents::PerStage => (slot.comp, slot.done),
            _ => (slot.up, slot.up),
        };
        // SAFETY: the slot's previous chunk is complete (its done event, above).
        unsafe { *slot.pin_in = i as f32 };
        let mut x = slot.dev;
        let (mut n, mut iters, mut a, mut b) = (N32, setup.iters, A, B);
        let mut params: [*mut c_void; 5] = [
            (&raw mut x).cast(),
            (&raw mut n).cast(),
            (&raw mut iters).cast(),
            (&raw mut a).cast(),
            (&raw mut b).cast(),
        ];
        // SAFETY: live handles of the current context; buffers of `bytes` bytes; `poly`'s
        // parameters are (float*, unsigned, unsigned, float, float).
        unsafe {
            ok(
                ffi::cuMemcpyHtoDAsync_v2(slot.dev, slot.pin_in.cast(), bytes, up),
                "HtoD",
            );
            ok(ffi::cuEventRecord(slot.up, up), "record");
            ok(ffi::cuStreamWaitEvent(comp, slot.up, 0), "wait");
            ok(
                ffi::cuLaunchKernel(
                    poly,
                    cfg.grid.0,
                    1,
                    1,
                    cfg.block.0,
                    1,
                    1,
                    0,
                    comp,
                    params.as_mut_ptr(),
                    core::ptr::null_mut(),
                ),
                "launch",
            );
            if down != comp {
                ok(ffi::cuEventRecord(ev_comp, comp), "record");
                ok(ffi::cuStreamWaitEvent(down, ev_comp, 0), "wait");
            }
            ok(
                ffi::cuMemcpyDtoHAsync_v2(slot.pin_out.cast(), slot.dev, bytes, down),
                "DtoH",
            );
            ok(ffi::cuEventRecord(ev_done, down), "record");
        }
    }
    let elapsed = t.elapsed().as_secs_f64();
    for s in slots {
        // SAFETY: everything is complete (every done event was waited for); freed once.
        unsafe {
            ok(ffi::cuMemFreeHost(s.pin_in.cast()), "free");
            ok(ffi::cuMemFreeHost(s.pin_out.cast()), "free");
            ok(ffi::cuMemFree_v2(s.dev), "free");
            for e in [s.up, s.comp, s.done] {
                ok(ffi::cuEventDestroy_v2(e), "destroy");
            }
        }
    }
    CHECKSUM.with(|c| c.set(sum));
    elapsed
}

thread_local! {
    static CHECKSUM: core::cell::Cell<f64> = const { core::cell::Cell::new(0.0) };
}

// ---------------------------------------------------------------------------------------------
// custack: owned submissions

type Slot<'g> = (
    PinnedBuffer<'g, f32>,
    DeviceBuffer<'g, f32>,
    PinnedBuffer<'g, f32>,
);

fn slots<'g>(guard: &'g PushedGuard<'_, '_>) -> Vec<Slot<'g>> {
    (0..SLOTS)
        .map(|_| {
            let mut pin_in = guard.alloc_pinned::<f32>(N).unwrap();
            fill_input(&mut pin_in);
            (
                pin_in,
                guard.alloc::<f32>(N).unwrap(),
                guard.alloc_pinned::<f32>(N).unwrap(),
            )
        })
        .collect()
}

fn submit_pipeline(setup: &Setup<'_>, streams: &[Stream<'_>]) -> f64 {
    let mut free = slots(setup.guard);
    let (up, comp, down) = match streams {
        [a, b, c] => (a, b, c),
        [a, b] => (a, b, b),
        _ => unreachable!(),
    };
    let (poly, iters) = (setup.poly, setup.iters);
    let cfg = Setup::cfg();
    let t = Instant::now();
    let mut sum = 0.0;
    type Done<'g> = (
        ((PinnedBuffer<'g, f32>, DeviceBuffer<'g, f32>), Function<'g>),
        PinnedBuffer<'g, f32>,
    );
    let mut pending: VecDeque<custack::Submission<'_, Done<'_>>> = VecDeque::with_capacity(SLOTS);
    for i in 0..CHUNKS {
        if pending.len() == SLOTS {
            let (((pin_in, dev), _poly), pin_out) = pending.pop_front().unwrap().wait().unwrap();
            sum += consume(&pin_out);
            free.push((pin_in, dev, pin_out));
        }
        let (mut pin_in, dev, pin_out) = free.pop().unwrap();
        pin_in[0] = i as f32;
        let upload = up
            .submit((pin_in, dev), |s, (pin_in, mut dev)| {
                s.copy_to_device(&mut dev, pin_in)
            })
            .unwrap();
        let computed = comp
            .submit_after(upload, poly, |s, ((_, mut dev), poly)| {
                // SAFETY: poly(float* x, unsigned n, unsigned iters, float a, float b) touches
                // x[0..n), and `dev` holds n elements.
                unsafe { s.launch(&poly, cfg, (&mut dev, N32, iters, A, B)) }
            })
            .unwrap();
        let done = down
            .submit_after(computed, pin_out, |s, (((_, dev), _), pin_out)| {
                s.copy_to_host(pin_out, &dev)
            })
            .unwrap();
        pending.push_back(done);
    }
    while let Some(done) = pending.pop_front() {
        let (((pin_in, dev), _poly), pin_out) = done.wait().unwrap();
        sum += consume(&pin_out);
        free.push((pin_in, dev, pin_out)); // freed after the clock stops, as in `raw`
    }
    let elapsed = t.elapsed().as_secs_f64();
    CHECKSUM.with(|c| c.set(sum));
    elapsed
}

// ---------------------------------------------------------------------------------------------
// cudarc 0.19, as its documentation recommends: it records an event per operation on each
// buffer and makes other streams wait for them, so the cross-stream waits are automatic.

fn cudarc_pipeline(setup: &Setup<'_>, streams: &[Stream<'_>]) -> f64 {
    let cu = &setup.cu;
    let (up, comp, down) = match streams.len() {
        3 => (&cu.streams[0], &cu.streams[1], &cu.streams[2]),
        2 => (&cu.streams[0], &cu.streams[1], &cu.streams[1]),
        _ => unreachable!(),
    };
    let mut slots: Vec<_> = (0..SLOTS)
        .map(|_| {
            // SAFETY: page-locked memory of plain floats, initialized below before any read.
            let mut pin_in = unsafe { cu.ctx.alloc_pinned_with_flags::<f32>(N, 0) }.unwrap();
            fill_input(pin_in.as_mut_slice().unwrap());
            // SAFETY: as above; fully written by the download before it is read.
            let pin_out = unsafe { cu.ctx.alloc_pinned_with_flags::<f32>(N, 0) }.unwrap();
            (pin_in, up.alloc_zeros::<f32>(N).unwrap(), pin_out)
        })
        .collect();
    let cfg = CuLaunchConfig {
        grid_dim: (N32.div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let t = Instant::now();
    let mut sum = 0.0;
    for i in 0..CHUNKS + SLOTS {
        let (pin_in, dev, pin_out) = &mut slots[i % SLOTS];
        if i >= SLOTS {
            sum += consume(pin_out.as_slice().unwrap()); // waits for its download
        }
        if i >= CHUNKS {
            continue;
        }
        pin_in.as_mut_slice().unwrap()[0] = i as f32; // waits for its previous upload
        up.memcpy_htod(&*pin_in, &mut *dev).unwrap();
        let mut b = comp.launch_builder(&cu.poly);
        let (n, iters, a, bb) = (N32, setup.iters, A, B);
        b.arg(&mut *dev).arg(&n).arg(&iters).arg(&a).arg(&bb);
        // SAFETY: poly(float* x, unsigned n, unsigned iters, float a, float b), as passed.
        unsafe { b.launch(cfg) }.unwrap();
        down.memcpy_dtoh(&*dev, &mut *pin_out).unwrap();
    }
    let elapsed = t.elapsed().as_secs_f64();
    CHECKSUM.with(|c| c.set(sum));
    elapsed
}

// ---------------------------------------------------------------------------------------------
// custack: stream scopes (nest, never overlap: the GPU drains between batches)

/// One whole chunk on one scope's stream: upload, kernel, download.
fn run_chunk<'scope>(
    s: &'scope custack::StreamScope<'scope, '_>,
    poly: Function<'scope>,
    iters: u32,
    slot: &'scope mut Slot<'_>,
) -> custack::Result<()> {
    let (pin_in, dev, pin_out) = slot;
    let mut d = s.bind_mut(dev);
    s.copy_to_device(&mut d, &*pin_in)?;
    // SAFETY: as in `submit_pipeline`.
    unsafe { s.launch(&poly, Setup::cfg(), (&mut d, N32, iters, A, B)) }?;
    s.copy_to_host(pin_out, &d)
}

fn scopes_pipeline(setup: &Setup<'_>, streams: &[Stream<'_>]) -> f64 {
    let mut slots = slots(setup.guard);
    let (poly, iters) = (setup.poly, setup.iters);
    let t = Instant::now();
    let mut sum = 0.0;
    let mut next = 0;
    while next < CHUNKS {
        let batch = SLOTS.min(CHUNKS - next);
        for (j, slot) in slots.iter_mut().take(batch).enumerate() {
            slot.0[0] = (next + j) as f32;
        }
        // One whole chunk per stream in flight: a buffer can be bound in one scope only, so a
        // chunk cannot move from one stream to the next without leaving its scope.
        let mut it = slots.iter_mut().take(batch);
        match streams {
            [a, b, c] => a
                .scope(|sa| {
                    b.scope(|sb| {
                        c.scope(|sc| -> custack::Result<()> {
                            for (j, slot) in it.by_ref().enumerate() {
                                match j % 3 {
                                    0 => run_chunk(sa, poly, iters, slot)?,
                                    1 => run_chunk(sb, poly, iters, slot)?,
                                    _ => run_chunk(sc, poly, iters, slot)?,
                                }
                            }
                            Ok(())
                        })
                    })
                })
                .unwrap()
                .unwrap()
                .unwrap()
                .unwrap(),
            [a, b] => a
                .scope(|sa| {
                    b.scope(|sb| -> custack::Result<()> {
                        for (j, slot) in it.by_ref().enumerate() {
                            if j % 2 == 0 {
                                run_chunk(sa, poly, iters, slot)?;
                            } else {
                                run_chunk(sb, poly, iters, slot)?;
                            }
                        }
                        Ok(())
                    })
                })
                .unwrap()
                .unwrap()
                .unwrap(),
            _ => unreachable!(),
        }
        for slot in slots.iter().take(batch) {
            sum += consume(&slot.2);
        }
        next += batch;
    }
    let elapsed = t.elapsed().as_secs_f64();
    CHECKSUM.with(|c| c.set(sum));
    elapsed
}

// ---------------------------------------------------------------------------------------------
// Stage totals: every chunk's upload, kernel or download alone, on one stream.

fn stages(setup: &Setup<'_>, stream: &Stream<'_>) -> [f64; 3] {
    let mut slot = slots(setup.guard).pop().unwrap();
    let (poly, iters) = (setup.poly, setup.iters);
    let cfg = Setup::cfg();
    let mut result = [0.0; 3];
    for (stage, out) in result.iter_mut().enumerate() {
        let (pin_in, dev, pin_out) = &mut slot;
        let t = Instant::now();
        stream
            .scope(|s| -> custack::Result<()> {
                let mut d = s.bind_mut(dev);
                let o = s.bind_host_mut(&mut pin_out[..]);
                for _ in 0..CHUNKS {
                    match stage {
                        0 => s.copy_to_device(&mut d, &*pin_in)?,
                        // SAFETY: as in `submit_pipeline`.
                        1 => unsafe { s.launch(&poly, cfg, (&mut d, N32, iters, A, B)) }?,
                        _ => s.copy_to_host(o, &d)?,
                    }
                }
                Ok(())
            })
            .unwrap()
            .unwrap();
        *out = t.elapsed().as_secs_f64();
    }
    result
}

// ---------------------------------------------------------------------------------------------

fn child() {
    let iters = env_usize("CUSTACK_PIPE_ITERS", 1024) as u32;
    let reps = env_usize("CUSTACK_PIPE_REPS", 7);
    let driver = Driver::init().unwrap();
    // The device's primary context, which cudarc uses too: cudarc makes its context current with
    // cuCtxSetCurrent, which would replace any other context on top of custack's stack.
    let ctx = Context::primary(driver.device(0).unwrap()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(PTX).unwrap();
    let setup = Setup {
        guard: &guard,
        poly: module.function("poly").unwrap(),
        iters,
        cu: {
            let ctx = CudaContext::new(0).unwrap();
            let streams = (0..3).map(|_| ctx.new_stream().unwrap()).collect();
            let module = ctx.load_module(Ptx::from_src(PTX)).unwrap();
            let poly = module.load_function("poly").unwrap();
            CuSetup { ctx, streams, poly }
        },
    };
    let streams: Vec<Stream<'_>> = (0..3).map(|_| guard.stream().unwrap()).collect();
    type Variant = (&'static str, fn(&Setup<'_>, &[Stream<'_>]) -> f64, usize);
    let variants: [Variant; 10] = [
        ("raw-chain, 3 streams (diagnostic)", raw_chain, 3),
        (
            "raw-chain-created, 3 streams (diagnostic)",
            raw_chain_created,
            3,
        ),
        ("raw, 3 streams", raw_pipeline, 3),
        ("submit, 3 streams", submit_pipeline, 3),
        ("scopes, 3 streams", scopes_pipeline, 3),
        ("cudarc, 3 streams", cudarc_pipeline, 3),
        ("raw, 2 streams", raw_pipeline, 2),
        ("submit, 2 streams", submit_pipeline, 2),
        ("scopes, 2 streams", scopes_pipeline, 2),
        ("cudarc, 2 streams", cudarc_pipeline, 2),
    ];
    let mut times = vec![Vec::new(); variants.len()];
    let mut checksums = vec![0.0; variants.len()];
    for (k, (_, f, n)) in variants.iter().enumerate() {
        f(&setup, &streams[..*n]); // warm-up
        checksums[k] = CHECKSUM.with(core::cell::Cell::get);
    }
    for rep in 0..reps {
        for k in 0..variants.len() {
            let k = (k + rep) % variants.len();
            let (_, f, n) = variants[k];
            times[k].push(f(&setup, &streams[..n]));
        }
    }
    let st = stages(&setup, &streams[0]);
    for (name, t) in ["upload", "kernel", "download"].iter().zip(st) {
        println!("STAGE\t{name}\t{t}");
    }
    for (k, (name, _, _)) in variants.iter().enumerate() {
        let mut t = times[k].clone();
        t.sort_by(f64::total_cmp);
        println!("RESULT\t{name}\t{}\t{}", t[t.len() / 2], checksums[k]);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--child") {
        child();
        return;
    }
    if !args.iter().any(|a| a == "--bench") {
        println!(
            "pipeline: a GPU benchmark; run `cargo bench -p custack-benches --bench pipeline` on a GPU machine"
        );
        return;
    }
    let procs = env_usize("CUSTACK_PIPE_PROCS", 15);
    let exe = std::env::current_exe().unwrap();
    let mut per: Vec<(String, Vec<f64>, f64)> = Vec::new();
    let mut stage: Vec<(String, Vec<f64>)> = Vec::new();
    for _ in 0..procs {
        let out = Command::new(&exe).arg("--child").output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let f: Vec<&str> = line.split('\t').collect();
            if let ["STAGE", name, t] = f[..] {
                let t: f64 = t.parse().unwrap();
                match stage.iter_mut().find(|p| p.0 == name) {
                    Some(p) => p.1.push(t),
                    None => stage.push((name.to_string(), vec![t])),
                }
            }
            if let ["RESULT", name, t, sum] = f[..] {
                let (t, sum): (f64, f64) = (t.parse().unwrap(), sum.parse().unwrap());
                match per.iter_mut().find(|p| p.0 == name) {
                    Some(p) => p.1.push(t),
                    None => per.push((name.to_string(), vec![t], sum)),
                }
            }
        }
    }
    let median = |t: &mut Vec<f64>| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    };
    let mut stage_ms = Vec::new();
    println!(
        "stage totals ({CHUNKS} chunks of {} MiB, one stream, alone):",
        (N * 4) >> 20
    );
    for (name, mut t) in stage {
        let m = median(&mut t);
        println!("  {name}: {:.3} ms", m * 1e3);
        stage_ms.push(m);
    }
    let sum: f64 = stage_ms.iter().sum();
    let longest = stage_ms.iter().copied().fold(0.0, f64::max);
    let raw: Vec<(String, f64)> = per
        .iter_mut()
        .filter(|p| p.0.starts_with("raw,"))
        .map(|p| (p.0.replacen("raw", "", 1), median(&mut p.1)))
        .collect();
    println!("| variant | median time | process medians | vs raw | overlap | checksum |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let first_sum = per.first().map_or(0.0, |p| p.2);
    for (name, t, checksum) in &mut per {
        let m = median(t);
        let vs = raw
            .iter()
            .find(|r| name.ends_with(&r.0))
            .map_or(f64::NAN, |r| m / r.1);
        let overlap = (sum - m) / (sum - longest);
        println!(
            "| {name} | {:.3} ms | {:.3}–{:.3} ms | {vs:.3} | {:.0}% | {checksum} |",
            m * 1e3,
            t[0] * 1e3,
            t[t.len() - 1] * 1e3,
            overlap * 100.0
        );
        assert!(
            (*checksum - first_sum).abs() <= 1e-6 * first_sum.abs(),
            "{name}: checksum {checksum} differs from {first_sum}: a variant computed something else"
        );
    }
}
