//! Zero cost: no push, pop, launch or copy allocates on the heap. A counting global allocator
//! counts this thread's allocations while the hot loops run (GPU machine).
#![allow(
    clippy::too_many_lines,
    clippy::many_single_char_names,
    clippy::items_after_statements,
    clippy::cast_precision_loss
)]
use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

mod common;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

#[test]
#[ignore = "needs a CUDA device"]
fn hot_paths_do_not_allocate() {
    let device = Driver::init().unwrap().device(0).unwrap();
    let a = Context::new(device, ContextFlags::empty()).unwrap();
    let b = Context::new(device, ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();

    // Push and pop, top-level and nested.
    let before = allocations();
    for _ in 0..1000 {
        let mut g = stack.push(&a).unwrap();
        g.with_pushed(&b, |gb| gb.as_raw()).unwrap();
        drop(g);
    }
    assert_eq!(allocations() - before, 0, "push/pop allocated");

    let guard = stack.push(&a).unwrap();
    let module = guard
        .load_ptx(include_str!("fixtures/kernels.ptx"))
        .unwrap();
    let add = module.function("add_u32").unwrap();
    let stream = guard.stream().unwrap();
    let event = guard.event(custack::EventFlags::empty()).unwrap();
    let mut host = guard.alloc_pinned::<u32>(1024).unwrap();
    let mut dev = guard.alloc::<u32>(1024).unwrap();
    let mut plain_host = vec![0u32; 1024];

    let before = allocations();
    for _ in 0..100 {
        stream
            .scope(|s| {
                let (mut d, h) = (s.bind_mut(&mut dev), s.bind_host_mut(&mut host));
                s.copy_to_device(&mut d, h).unwrap();
                // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
                unsafe {
                    s.launch(
                        &add,
                        LaunchConfig::for_elements(1024),
                        (&mut d, 1u32, 1024u32),
                    )
                    .unwrap();
                };
                s.record(&event).unwrap();
                s.copy_to_host(h, &d).unwrap();
            })
            .unwrap();
        dev.copy_from_host(&plain_host).unwrap();
        dev.copy_to_host(&mut plain_host).unwrap();
        event.synchronize().unwrap();
    }
    assert_eq!(allocations() - before, 0, "launch/copy/scope allocated");
    assert!(
        host.iter().all(|&x| x == 100),
        "the kernel ran 100 times on the pinned round trip"
    );
}

#[path = "../examples/22_safety_frame/pipeline.rs"]
#[allow(dead_code)]
mod frame_pipeline;

/// Every run-phase operation of the restricted profile (C27) makes no heap allocation: scopes
/// (bounded too), bindings, copies, fills, declared launches, event records and waits, graph
/// launches with their payload, and the waits and queries of streams, events and the run phase.
/// Needs `CUSTACK_FRAME_CUBIN` (a cubin nvcc made of `examples/kernels/frame.cu`).
#[test]
#[ignore = "needs a CUDA device"]
fn restricted_run_phase_does_not_allocate() {
    if !common::alone_in_a_process("restricted_run_phase_does_not_allocate") {
        return;
    }
    use custack::Deadline;
    use custack::safety::{Budget, Profile, RestrictedContext};
    use frame_pipeline::FrameGain;
    use std::time::Duration;
    let path = std::env::var("CUSTACK_FRAME_CUBIN").expect(
        "CUSTACK_FRAME_CUBIN: a cubin of examples/kernels/frame.cu (scripts/gpu-bundle.sh)",
    );
    let cubin = std::fs::read(path).unwrap();
    const M: usize = 4096;
    const M32: u32 = M as u32;
    let profile = Profile::init(1).unwrap();
    let mut ctx = RestrictedContext::new(
        &profile,
        profile.device(0).unwrap(),
        // Stated exactly: two page-locked buffers, three device buffers, one stream, two
        // events, one module, one kernel, one graph of one node.
        Budget::page_locked(2 * M * 4)
            .device_bytes(3 * M * 4)
            .streams(1)
            .events(2)
            .modules(1)
            .kernels(1)
            .graphs(1)
            .graph_nodes(1),
    )
    .unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    {
        let init = guard.init().unwrap();
        // SAFETY: a complete cubin nvcc wrote; `frame_gain` honours its contract.
        let module = unsafe { init.load_cubin(&cubin) }.unwrap();
        let gain = init.kernel::<FrameGain>(&module).unwrap();
        let stream = init.stream().unwrap();
        let (start, end) = (init.event().unwrap(), init.event().unwrap());
        let mut a = init.alloc::<f32>(M).unwrap();
        let mut b = init.alloc::<f32>(M).unwrap();
        let mut up = init.alloc_pinned::<f32>(M).unwrap();
        up.fill(1.0);
        let mut down = init.alloc_pinned::<f32>(M).unwrap();
        let mut graph = init
            .capture(
                &stream,
                (init.alloc::<f32>(M).unwrap(), gain),
                |s, (mut d, gain)| {
                    s.run(
                        &gain,
                        LaunchConfig::for_elements(M32),
                        (&mut d, 2.0f32, M32),
                    )
                },
            )
            .unwrap();
        let run = init.seal();
        let cfg = LaunchConfig::for_elements(M32);
        // Round 0 warms up; rounds 1..=200 are counted.
        let mut before = 0;
        for round in 0..=200 {
            if round == 1 {
                before = allocations();
            }
            stream
                .scope(|s| -> custack::Result<()> {
                    let (mut da, mut db) = (s.bind_mut(&mut a), s.bind_mut(&mut b));
                    s.record(&start)?;
                    s.copy_to_device(&mut da, &up)?;
                    s.fill_bytes(&mut db, 0)?;
                    s.run(&gain, cfg, (&mut da, 0.5f32, M32))?;
                    s.copy_device(&mut db, &da)?;
                    let (g, (mut dg, _)) = s.bind_graph(&mut graph);
                    s.copy_device(&mut dg, &db)?;
                    s.launch_graph(&g)?;
                    s.record(&end)?;
                    s.wait(&end)?;
                    s.copy_to_host(&mut down, &dg)
                })
                .unwrap()
                .unwrap();
            stream
                .scope_by(Deadline::after(Duration::from_secs(10)), |s| {
                    s.record(&start)
                })
                .unwrap()
                .unwrap();
            start.synchronize().unwrap();
            start
                .synchronize_by(Deadline::after(Duration::from_secs(10)))
                .unwrap();
            assert!(end.is_complete().unwrap());
            let _ = start.elapsed_ms(&end);
            stream.synchronize().unwrap();
            stream
                .synchronize_by(Deadline::after(Duration::from_secs(10)))
                .unwrap();
            assert!(stream.is_complete().unwrap());
            run.synchronize().unwrap();
            let _ = run.memory_info().unwrap();
        }
        let n = allocations() - before;
        assert_eq!(
            n, 0,
            "the restricted run phase allocated {n} times in 200 rounds"
        );
        assert!(
            down.iter().all(|&x| (x - 1.0).abs() < 1e-6),
            "1 * 0.5, then * 2 by the graph"
        );
    }
    guard.shutdown().unwrap();
    ctx.destroy().unwrap();
}

/// P15: a frame's copies batched into one `cuMemcpyBatchAsync` in the restricted run phase
/// allocate nothing either (the batch is held in place, its overlap check compares pairs, the
/// entry point was looked up by `InitPhase::batch_copies`), and every value arrives: two
/// uploads, a device-to-device copy and two downloads per round, in three batches (and, in the
/// uncounted first round, a fourth refused for naming one host destination twice). Needs driver
/// 12.8 (fails naming it on an older one, as without a device).
#[test]
#[ignore = "needs a CUDA device"]
fn restricted_run_phase_batches_do_not_allocate() {
    if !common::alone_in_a_process("restricted_run_phase_batches_do_not_allocate") {
        return;
    }
    use custack::safety::{Budget, Profile, RestrictedContext};
    const M: usize = 4096;
    let profile = Profile::init(1).unwrap();
    let mut ctx = RestrictedContext::new(
        &profile,
        profile.device(0).unwrap(),
        // Stated exactly: four page-locked buffers, three device buffers, one stream.
        Budget::page_locked(4 * M * 4)
            .device_bytes(3 * M * 4)
            .streams(1),
    )
    .unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    {
        let init = guard.init().unwrap();
        let copies = init
            .batch_copies()
            .expect("cuMemcpyBatchAsync (driver 12.8 or newer)");
        let stream = init.stream().unwrap();
        let (mut a, mut b, mut c) = (
            init.alloc::<u32>(M).unwrap(),
            init.alloc::<u32>(M).unwrap(),
            init.alloc::<u32>(M).unwrap(),
        );
        let (mut up_a, mut up_b) = (
            init.alloc_pinned::<u32>(M).unwrap(),
            init.alloc_pinned::<u32>(M).unwrap(),
        );
        let (mut down_b, mut down_c) = (
            init.alloc_pinned::<u32>(M).unwrap(),
            init.alloc_pinned::<u32>(M).unwrap(),
        );
        let run = init.seal();
        let mut before = 0;
        for round in 0..=200u32 {
            if round == 1 {
                before = allocations();
            }
            up_a.fill(round);
            up_b.fill(round + 1_000);
            stream
                .scope(|s| -> custack::Result<()> {
                    let (mut da, mut db, mut dc) =
                        (s.bind_mut(&mut a), s.bind_mut(&mut b), s.bind_mut(&mut c));
                    let (hb, hc) = (s.bind_host_mut(&mut down_b), s.bind_host_mut(&mut down_c));
                    let mut up = s.batch::<2>();
                    up.to_device(&mut da, &up_a)?.to_device(&mut db, &up_b)?;
                    s.copy_batch(&copies, up)?;
                    if round == 0 {
                        // One host destination twice (`PinnedHostMut` is `Copy`): refused by
                        // the in-place check, nothing enqueued. Its error message allocates,
                        // so only in the round that is not counted.
                        let mut twice = s.batch::<2>();
                        twice.to_host(hb, &db)?.to_host(hb, &da)?;
                        let e = s.copy_batch(&copies, twice).unwrap_err();
                        assert_eq!(e.kind(), custack::ErrorKind::InvalidValue, "{e}");
                    }
                    let mut copy = s.batch::<1>();
                    copy.device(&mut dc, &da)?;
                    s.copy_batch(&copies, copy)?;
                    let mut down = s.batch::<2>();
                    down.to_host(hb, &db)?.to_host(hc, &dc)?;
                    s.copy_batch(&copies, down)
                })
                .unwrap()
                .unwrap();
            assert!(down_b.iter().all(|&x| x == round + 1_000), "round {round}");
            assert!(down_c.iter().all(|&x| x == round), "round {round}");
            run.synchronize().unwrap();
        }
        let n = allocations() - before;
        assert_eq!(
            n, 0,
            "the run phase's batches allocated {n} times in 200 rounds"
        );
    }
    guard.shutdown().unwrap();
    ctx.destroy().unwrap();
}
