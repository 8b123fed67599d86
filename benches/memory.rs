//! Memory movement measured against the raw driver calls in the same process: managed-memory
//! prefetch and 256 MiB copies between two contexts, on two GPUs where the
//! machine has them.
//!
//! ```text
//! cargo bench -p custack-benches --bench memory  # on a GPU machine
//! bash scripts/gpu-bundle.sh --bench memory  # packs it; on the GPU machine: bash .gpu/run.sh
//! ```
//!
//! Rows, each a custack call beside the raw `custack::ffi` call it makes, on the same memory and
//! the same stream, in alternating order after one warm-up of each:
//! - prefetch 256 MiB of managed memory to the device (`s.prefetch` in a scope; raw:
//!   `cuMemPrefetchAsync` + `cuStreamSynchronize`), the pages first moved to the host and touched
//!   there (not timed); and back to the host, the pages first on the device (not timed);
//! - copy 256 MiB from a buffer of context B (parked) into one of context A:
//!   `guard.copy_from_peer` (raw: `cuMemcpyPeer` + `cuCtxSynchronize`) and `s.copy_from_peer` in
//!   a scope (raw: `cuMemcpyPeerAsync` + `cuStreamSynchronize`). A and B are on devices 0 and 1
//!   when there are two (with peer access enabled both ways where the devices allow it), and
//!   both on device 0 otherwise (then it is a device-to-device copy on one GPU).
//!
//! Reported: the median time over `CUSTACK_MEM_REPS` (default 20) repetitions, the bandwidth it
//! gives, the spread (p10–p90 ÷ 2 of the median), and custack's median over raw's. Every copy's
//! result is checked once. Nothing here asserts a time. Without `--bench` (as `cargo test
//! --all-targets` runs it) it prints how to run it and exits.

#![allow(
    clippy::cast_precision_loss,
    clippy::multiple_unsafe_ops_per_block, // the raw variants are C programs in Rust syntax
    clippy::too_many_lines
)]

use custack::prelude::*;
use custack::{Context, ContextFlags, Device, Driver, Location, ParkedBuffer, Stack, Stream, ffi};
use std::time::Instant;

const BYTES: usize = 256 << 20;
const PAGE: usize = 4096;

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

struct Row {
    name: String,
    raw: Vec<f64>,
    custack: Vec<f64>,
}

impl Row {
    fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            raw: Vec::new(),
            custack: Vec::new(),
        }
    }
    fn print(mut self) {
        let (raw, raw_spread) = stats(&mut self.raw);
        let (cu, cu_spread) = stats(&mut self.custack);
        let gbs = |t: f64| BYTES as f64 / t / 1e9;
        println!(
            "| {} | {:.3} ms ({:.1} GB/s) | {:.3} ms ({:.1} GB/s) | {:.3} | ±{:.1}% · ±{:.1}% |",
            self.name,
            raw * 1e3,
            gbs(raw),
            cu * 1e3,
            gbs(cu),
            cu / raw,
            raw_spread * 100.0,
            cu_spread * 100.0
        );
    }
}

fn time(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

fn prefetch_rows(device: Device, reps: usize) -> custack::Result<()> {
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut managed = match guard.alloc_managed::<u8>(BYTES) {
        Ok(m) => m,
        Err(e) => {
            println!("managed prefetch: not measured ({e})");
            return Ok(());
        }
    };
    let raw_stream = stream.as_raw();
    let ptr = managed.device_ptr();
    let raw_prefetch = |to: ffi::CUdevice| {
        // SAFETY: `ptr` is BYTES of live managed memory of the current context; the stream is
        // live; nothing else uses the memory meanwhile.
        unsafe {
            ok(
                ffi::cuMemPrefetchAsync(ptr, BYTES, to, raw_stream),
                "cuMemPrefetchAsync",
            );
            ok(ffi::cuStreamSynchronize(raw_stream), "cuStreamSynchronize");
        }
    };
    let custack_prefetch = |stream: &Stream<'_>, m: &custack::ManagedBuffer<'_, u8>, to| {
        stream
            .scope(|s| s.prefetch(s.bind(m), to))
            .and_then(|r| r)
            .expect("prefetch");
    };
    let mut to_device = Row::new("prefetch 256 MiB managed → device");
    let mut to_host = Row::new("prefetch 256 MiB managed → host");
    for rep in 0..=reps {
        for custack_first in [rep % 2 == 0, rep % 2 == 1] {
            // To the device: pages first on the host, touched there.
            raw_prefetch(ffi::CU_DEVICE_CPU);
            for page in managed.chunks_mut(PAGE) {
                page[0] = page[0].wrapping_add(1);
            }
            let t = if custack_first {
                time(|| custack_prefetch(&stream, &managed, Location::Device(device)))
            } else {
                time(|| raw_prefetch(device.as_raw()))
            };
            if rep > 0 {
                if custack_first {
                    &mut to_device.custack
                } else {
                    &mut to_device.raw
                }
                .push(t);
            }
            // Back to the host: pages on the device (they are, after the prefetch above).
            let t = if custack_first {
                time(|| custack_prefetch(&stream, &managed, Location::Host))
            } else {
                time(|| raw_prefetch(ffi::CU_DEVICE_CPU))
            };
            if rep > 0 {
                if custack_first {
                    &mut to_host.custack
                } else {
                    &mut to_host.raw
                }
                .push(t);
            }
        }
    }
    // Every page was incremented 2 × (reps + 1) times, in stream order with the prefetches.
    let expected = (2 * (reps + 1)) as u8;
    assert!(
        managed.chunks(PAGE).all(|p| p[0] == expected),
        "managed pages"
    );
    to_device.print();
    to_host.print();
    Ok(())
}

fn peer_rows(driver: Driver, reps: usize) -> custack::Result<()> {
    let devices = driver.devices()?;
    let (dev_a, dev_b) = match devices.as_slice() {
        [a, b, ..] => (*a, *b),
        [a] => (*a, *a),
        [] => return Ok(()),
    };
    let two = dev_a != dev_b;
    let a = Context::new(dev_a, ContextFlags::empty())?;
    let b = Context::new(dev_b, ContextFlags::empty())?;
    let access = two && dev_a.can_access_peer(dev_b)?;
    println!(
        "peer copies: {} (devices {} and {}); peer access {}",
        if two {
            "two GPUs"
        } else {
            "two contexts on one GPU"
        },
        dev_a.name()?,
        dev_b.name()?,
        match (access, two) {
            (true, _) => "enabled from A to B",
            (false, true) => "not available",
            (false, false) => "not applicable",
        }
    );
    let mut stack = Stack::new()?;
    let words = BYTES / 4;
    let src: ParkedBuffer<'_, u32> = stack.with_pushed(&b, |guard_b| -> custack::Result<_> {
        let data: Vec<u32> = (0..words as u32).collect();
        Ok(guard_b.park(guard_b.alloc_from(&data)?))
    })??;
    // A reads B's memory: access from A to B is the one a copy into A can use.
    let guard_a = stack.push(&a)?;
    let a_to_b = if access {
        Some(guard_a.enable_peer_access(&b)?)
    } else {
        None
    };
    let stream = guard_a.stream()?;
    let mut dst = guard_a.alloc_zeroed::<u32>(words)?;
    let (dst_ptr, src_ptr) = (dst.device_ptr(), src.device_ptr());
    let (ctx_a, ctx_b, raw_stream) = (guard_a.as_raw(), src.context_raw(), stream.as_raw());

    let mut sync = Row::new(if two {
        "copy 256 MiB GPU 1 → GPU 0, synchronous"
    } else {
        "copy 256 MiB context B → A (one GPU), synchronous"
    });
    let mut scoped = Row::new(if two {
        "copy 256 MiB GPU 1 → GPU 0, in a scope / async + sync"
    } else {
        "copy 256 MiB context B → A (one GPU), in a scope / async + sync"
    });
    for rep in 0..=reps {
        for custack_first in [rep % 2 == 0, rep % 2 == 1] {
            let t = if custack_first {
                time(|| {
                    guard_a
                        .copy_from_peer(&mut dst, &src)
                        .expect("copy_from_peer");
                })
            } else {
                // SAFETY: both are live allocations of BYTES bytes of their contexts; A is
                // current; nothing else uses them.
                time(|| unsafe {
                    ok(
                        ffi::cuMemcpyPeer(dst_ptr, ctx_a, src_ptr, ctx_b, BYTES),
                        "cuMemcpyPeer",
                    );
                    ok(ffi::cuCtxSynchronize(), "cuCtxSynchronize");
                })
            };
            if rep > 0 {
                if custack_first {
                    &mut sync.custack
                } else {
                    &mut sync.raw
                }
                .push(t);
            }
            let t = if custack_first {
                time(|| {
                    stream
                        .scope(|s| s.copy_from_peer(s.bind_mut(&mut dst), &src))
                        .and_then(|r| r)
                        .expect("scoped copy_from_peer");
                })
            } else {
                // SAFETY: as above; the stream is live and of A.
                time(|| unsafe {
                    ok(
                        ffi::cuMemcpyPeerAsync(dst_ptr, ctx_a, src_ptr, ctx_b, BYTES, raw_stream),
                        "cuMemcpyPeerAsync",
                    );
                    ok(ffi::cuStreamSynchronize(raw_stream), "cuStreamSynchronize");
                })
            };
            if rep > 0 {
                if custack_first {
                    &mut scoped.custack
                } else {
                    &mut scoped.raw
                }
                .push(t);
            }
        }
    }
    let back = dst.to_vec()?;
    assert!(
        back.iter().enumerate().all(|(i, &x)| x == i as u32),
        "peer copy result"
    );
    sync.print();
    scoped.print();
    drop(a_to_b);
    drop(dst);
    drop(stream);
    drop(guard_a);
    stack.with_pushed(&b, |guard_b| guard_b.attach(src).map(drop))??;
    Ok(())
}

fn main() -> std::process::ExitCode {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "memory: a benchmark; run it with `cargo bench -p custack-benches --bench memory` on a GPU machine"
        );
        return std::process::ExitCode::SUCCESS;
    }
    let reps = std::env::var("CUSTACK_MEM_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let run = || -> custack::Result<()> {
        let driver = Driver::init()?;
        let device = driver.device(0)?;
        println!(
            "memory: {} ({} device(s)), driver API {}, {reps} repetitions per variant",
            device.name()?,
            driver.device_count()?,
            driver.version()?
        );
        println!(
            "| operation | raw | custack | custack/raw | spread (raw · custack) |\n| --- | ---: | ---: | ---: | --- |"
        );
        prefetch_rows(device, reps)?;
        peer_rows(driver, reps)
    };
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("memory: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
