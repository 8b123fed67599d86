//! Graphs replayed over a replay arena on a real device (C28): a graph built over arena buffers
//! and one captured over them, each launched many times, at the same addresses every time, with
//! no allocation or free node and no host allocation per replay; the results checked against
//! the CPU. And the arena's own lending: disjoint aligned buffers, a refusal past its capacity,
//! the same addresses lent again after a reset. And the device's graph-memory pool, which a
//! captured stream-ordered allocation uses: its figures, a watermark reset, a trim.
mod common;
use common::{KERNELS, context};
use custack::graph::{ARENA_ALIGN, NodeKind};
use custack::prelude::*;
use custack::{ErrorKind, GraphMem, LaunchConfig, Stack};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

const N: usize = 1 << 16;
const N32: u32 = N as u32;
const REPLAYS: u32 = 200;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

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

/// This thread's heap allocations so far.
fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

fn input() -> Vec<u32> {
    (0..N32).map(|i| i.wrapping_mul(2_654_435_761)).collect()
}

fn no_memory_nodes(kinds: &[NodeKind]) -> bool {
    !kinds
        .iter()
        .any(|k| matches!(k, NodeKind::MemAlloc | NodeKind::MemFree))
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_graph_built_over_arena_buffers_replays_at_stable_addresses_without_allocating() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let arena = guard.replay_arena(4 * N * 4).unwrap();
    let mut x = arena.buffer::<u32>(N).unwrap();
    let y = arena.buffer::<u32>(N).unwrap();
    let (at_x, at_y) = (x.device_ptr(), y.device_ptr());
    let host = input();
    x.copy_from_host(&host).unwrap();
    let payload = (x, y, module.declared::<AddU32>().unwrap());
    let graph = guard
        .build_graph(payload, |b, (mut x, mut y, add)| {
            let cfg = LaunchConfig::for_elements(N32);
            let bumped = b.kernel(&add, cfg, (&mut x, 3u32, N32), &[])?;
            let copied = b.copy_device(&mut y, &x, &[bumped])?;
            b.kernel(&add, cfg, (&mut y, 1000u32, N32), &[copied])?;
            Ok(())
        })
        .unwrap();
    let kinds = graph.nodes().unwrap();
    assert_eq!(kinds.len(), 3);
    assert!(no_memory_nodes(&kinds), "{kinds:?}");
    let mut exec = graph.instantiate().unwrap();
    // The first launch uploads the graph; the replays after it are what is counted.
    stream
        .scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))
        .unwrap()
        .unwrap();
    let before = allocations();
    for _ in 1..REPLAYS {
        stream
            .scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))
            .unwrap()
            .unwrap();
        let (x, y, _) = exec.payload();
        assert_eq!((x.device_ptr(), y.device_ptr()), (at_x, at_y));
    }
    let replay_allocations = allocations() - before;
    assert_eq!(
        replay_allocations, 0,
        "host allocations over {REPLAYS} replays"
    );
    let mut cpu_x = host;
    for _ in 0..REPLAYS {
        for v in &mut cpu_x {
            *v = v.wrapping_add(3);
        }
    }
    let cpu_y: Vec<u32> = cpu_x.iter().map(|v| v.wrapping_add(1000)).collect();
    let (x, y, _) = exec.payload();
    assert_eq!(x.to_vec().unwrap(), cpu_x);
    assert_eq!(y.to_vec().unwrap(), cpu_y);
    drop(exec);
    drop(arena);
    assert!(custack::take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_graph_captured_over_arena_buffers_replays_at_stable_addresses_without_allocating() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let arena = guard.replay_arena(2 * N * 4).unwrap();
    let mut a = arena.buffer::<u32>(N).unwrap();
    let b = arena.buffer::<u32>(N).unwrap();
    let (at_a, at_b) = (a.device_ptr(), b.device_ptr());
    let host = input();
    a.copy_from_host(&host).unwrap();
    let payload = (a, b, module.declared::<AddU32>().unwrap());
    let graph = stream
        .capture(payload, |s, (mut a, mut b, add)| {
            s.run(&add, LaunchConfig::for_elements(N32), (&mut a, 2u32, N32))?;
            s.copy_device(&mut b, &a)
        })
        .unwrap();
    let kinds = graph.nodes().unwrap();
    assert!(no_memory_nodes(&kinds), "{kinds:?}");
    let mut exec = graph.instantiate().unwrap();
    exec.upload(&stream).unwrap();
    let before = allocations();
    for _ in 0..REPLAYS {
        stream
            .scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))
            .unwrap()
            .unwrap();
        let (a, b, _) = exec.payload();
        assert_eq!((a.device_ptr(), b.device_ptr()), (at_a, at_b));
    }
    assert_eq!(
        allocations() - before,
        0,
        "host allocations over {REPLAYS} replays"
    );
    let cpu: Vec<u32> = host.iter().map(|v| v.wrapping_add(2 * REPLAYS)).collect();
    let (a, b, _) = exec.payload();
    assert_eq!(a.to_vec().unwrap(), cpu);
    assert_eq!(b.to_vec().unwrap(), cpu);
}

#[test]
#[ignore = "needs a CUDA device"]
fn an_arena_lends_disjoint_aligned_buffers_refuses_past_its_capacity_and_lends_again_after_reset() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let mut arena = guard.replay_arena(4 * ARENA_ALIGN).unwrap();
    let first_at = {
        let a = arena.buffer::<u8>(1).unwrap();
        let b = arena.buffer::<u64>(ARENA_ALIGN / 8 + 1).unwrap();
        assert_eq!(a.device_ptr(), arena.device_ptr());
        assert_eq!(b.device_ptr(), arena.device_ptr() + ARENA_ALIGN as u64);
        assert_eq!(arena.remaining(), ARENA_ALIGN);
        let refused = arena.buffer::<u8>(ARENA_ALIGN + 1).unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::OutOfMemory);
        assert_eq!(arena.remaining(), ARENA_ALIGN, "nothing lent by a refusal");
        let c = arena.buffer::<u8>(ARENA_ALIGN).unwrap();
        assert_eq!(c.device_ptr(), arena.device_ptr() + 3 * ARENA_ALIGN as u64);
        assert_eq!(arena.remaining(), 0);
        let mut c = c;
        c.copy_from_host(&[7u8; ARENA_ALIGN]).unwrap();
        assert_eq!(c.to_vec().unwrap(), vec![7u8; ARENA_ALIGN]);
        a.device_ptr()
    };
    arena.reset().unwrap();
    assert_eq!(arena.remaining(), 4 * ARENA_ALIGN);
    assert_eq!(arena.buffer::<u32>(1).unwrap().device_ptr(), first_at);
}

#[test]
#[ignore = "needs a CUDA device"]
fn the_graph_memory_pool_counts_a_captured_allocation_resets_its_watermark_and_trims() {
    let ctx = context();
    let device = common::device();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let bytes = (N * 4) as u64;
    // A stream-ordered allocation captured into a graph: its alloc and free nodes take and give
    // back memory of the device's graph-memory pool (the only graph memory of this process:
    // the other tests' graphs are over arenas).
    let graph = stream
        .capture(
            (guard.alloc::<u32>(N).unwrap(), vec![0u32; N]),
            |s, (mut dev, out)| {
                let mut scratch = s.alloc::<u32>(N)?;
                s.fill_u32(&mut scratch, 5)?;
                s.copy_device(&mut dev, &scratch)?;
                s.copy_to_host(out, &dev)
            },
        )
        .unwrap();
    let kinds = graph.nodes().unwrap();
    assert!(kinds.contains(&NodeKind::MemAlloc), "{kinds:?}");
    let mut exec = graph.instantiate().unwrap();
    stream
        .scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))
        .unwrap()
        .unwrap();
    assert!(exec.payload().1.iter().all(|&v| v == 5));
    let used_high = device.graph_mem(GraphMem::UsedHigh).unwrap();
    let reserved = device.graph_mem(GraphMem::Reserved).unwrap();
    assert!(used_high >= bytes, "used high {used_high} < {bytes}");
    assert!(reserved >= bytes, "reserved {reserved} < {bytes}");
    // The executable graph keeps its allocation's memory associated with it while it lives,
    // freed or not by its free node (an H100 under driver 580 reports 32 MiB here).
    let used = device.graph_mem(GraphMem::Used).unwrap();
    assert!(
        used >= bytes,
        "used {used} < {bytes} while the executable graph lives"
    );
    device.reset_graph_mem_high(GraphMem::UsedHigh).unwrap();
    let refused = device.reset_graph_mem_high(GraphMem::Reserved).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::InvalidValue);
    drop(exec);
    device.graph_mem_trim().unwrap();
    let trimmed = device.graph_mem(GraphMem::Reserved).unwrap();
    assert!(
        trimmed < reserved,
        "reserved {reserved}, after the trim {trimmed}"
    );
}
