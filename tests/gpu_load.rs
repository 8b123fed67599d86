//! Threads under load and repeated create/destroy: results stay right and device and host
//! memory return to their starting levels. The tests of this binary take turns (`SERIAL`):
//! device memory levels are device-wide.
#![allow(clippy::items_after_statements, clippy::cast_possible_truncation)]
mod common;
use common::{KERNELS, device};
use custack::prelude::*;
use custack::{Context, ContextFlags, LaunchConfig, Stack, take_drop_errors};
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

fn iterations(default: usize) -> usize {
    std::env::var("CUSTACK_LOAD_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Free device memory, as seen from a short-lived guard of `ctx`.
fn free_device_memory(ctx: &Context) -> usize {
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(ctx).unwrap();
    guard.synchronize().unwrap();
    guard.memory_info().unwrap().0
}

/// Resident host memory in bytes (Linux).
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// Sixteen threads, eight on each context, each pushing, allocating, copying, launching and
/// popping `iters` times; every result is checked.
fn load(contexts: &[Context; 2], iters: usize) {
    std::thread::scope(|scope| {
        for t in 0..16u32 {
            let ctx = &contexts[t as usize % 2];
            scope.spawn(move || {
                let mut stack = Stack::new().unwrap();
                for i in 0..iters {
                    let guard = stack.push(ctx).unwrap();
                    let n = 256 + (i % 7) * 100;
                    let host: Vec<u32> = (0..n as u32).map(|x| x ^ t).collect();
                    let mut dev_buf = guard.alloc_from(&host).unwrap();
                    let stream = guard.stream().unwrap();
                    // Modules are loaded per context once in a while, to exercise that too.
                    if i % 1000 == 0 {
                        let module = guard.load_ptx(KERNELS).unwrap();
                        let add = module.function("add_u32").unwrap();
                        stream
                            .scope(|s| {
                                let d = s.bind_mut(&mut dev_buf);
                                // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
                                unsafe {
                                    s.launch(
                                        &add,
                                        LaunchConfig::for_elements(n as u32),
                                        (d, t, n as u32),
                                    )
                                }
                                .unwrap();
                            })
                            .unwrap();
                        let got = dev_buf.to_vec().unwrap();
                        assert!(
                            got.iter().zip(&host).all(|(g, h)| *g == h.wrapping_add(t)),
                            "thread {t} iteration {i}"
                        );
                    } else {
                        let mut back = vec![0u32; n];
                        stream
                            .scope(|s| {
                                let mut d = s.bind_mut(&mut dev_buf);
                                s.fill_bytes(&mut d, 0xab).unwrap();
                                s.copy_to_device(&mut d, &host).unwrap();
                                s.copy_to_host(&mut back, &d).unwrap();
                            })
                            .unwrap();
                        assert_eq!(back, host, "thread {t} iteration {i}");
                    }
                    drop((dev_buf, stream));
                    guard.pop().unwrap();
                }
            });
        }
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn sixteen_threads_two_contexts_under_load() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dev = device();
    let contexts = [
        Context::new(dev, ContextFlags::empty()).unwrap(),
        Context::new(dev, ContextFlags::empty()).unwrap(),
    ];
    // Warm-up with the same threads and work: the driver reserves memory per context the first
    // time it sees this much concurrency (8 MiB on an H100, whatever the iteration count), and
    // keeps it. A leak grows with the iterations; that reservation does not.
    load(&contexts, 20);
    let before = free_device_memory(&contexts[0]);
    let iters = iterations(2_500);
    load(&contexts, iters);
    assert!(take_drop_errors().is_empty());
    let after = free_device_memory(&contexts[0]);
    println!(
        "free device memory: before {before}, after {after} ({iters} iterations x 16 threads)"
    );
    // Every buffer, stream and module was freed: free memory is back (allow 2 MiB of driver slack).
    assert!(
        after + (2 << 20) >= before,
        "device memory not returned: {before} -> {after}"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn repeated_create_destroy_does_not_grow_memory() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dev = device();
    let anchor = Context::new(dev, ContextFlags::empty()).unwrap(); // to read device memory
    let rounds = iterations(1000);
    let cycle = |n: usize| {
        for _ in 0..n {
            let ctx = Context::new(dev, ContextFlags::empty()).unwrap();
            let mut stack = Stack::new().unwrap();
            let guard = stack.push(&ctx).unwrap();
            let module = guard.load_ptx(KERNELS).unwrap();
            let _ = module.function("vector_add").unwrap();
            let buf = guard.alloc::<u8>(1 << 20).unwrap();
            drop((buf, module));
            guard.pop().unwrap();
            ctx.destroy().unwrap();
        }
    };
    cycle(20); // warm-up: the driver's own caches
    let (dev_before, host_before) = (free_device_memory(&anchor), resident_bytes());
    cycle(rounds);
    let (dev_after, host_after) = (free_device_memory(&anchor), resident_bytes());
    println!(
        "{rounds} create/load/alloc/destroy cycles: free device memory {dev_before} -> {dev_after}, resident host memory {host_before} -> {host_after}"
    );
    assert!(
        dev_after + (2 << 20) >= dev_before,
        "device memory grew: {dev_before} -> {dev_after}"
    );
    assert!(
        host_after <= host_before + (32 << 20),
        "host memory grew: {host_before} -> {host_after}"
    );
    assert!(take_drop_errors().is_empty());
}
