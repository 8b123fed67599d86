//! GPU tests of a kept graph allocation after the build: its address
//! (`Graph::kept_device_ptr`, `GraphExec::kept_device_ptr`) and its view before the take
//! (`GraphExec::kept_view`), C28.13; its free in a scope's stream order
//! (`StreamScope::free_kept`, `StreamScope::bind_kept`, `cuMemFreeAsync`) followed by a relaunch,
//! by every route (on the launch's stream or another, after a copy in the same scope, after a
//! park, leaked, refused, each drop order), the device's graph memory in use read at each
//! step, C28.12; and a graph's payload read without giving the graph up (`Graph::payload`),
//! C28.14. Each fails without a device.

mod common;
use common::context;
use custack::graph::InstantiateFlags;
use custack::prelude::*;
use custack::{ErrorKind, GraphMem, Stack};
use std::sync::Mutex;

/// Held by every test here, so that the device's figure of graph memory in use
/// (`GraphMem::Used`) is the test's alone while it reads it.
static GRAPH_MEMORY: Mutex<()> = Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    GRAPH_MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The device's graph memory in use now (`cuDeviceGetGraphMemAttribute`).
fn graph_memory_used(ctx: &custack::Context) -> u64 {
    ctx.device().graph_mem(GraphMem::Used).unwrap()
}

/// The device's graph memory in use once its pool gave back what no allocation holds
/// (`cuDeviceGraphMemTrim`): a trim cannot release a live allocation, so 0 means every graph
/// allocation was freed, and more than 0 that one is still allocated.
fn graph_memory_held_after_trim(ctx: &custack::Context) -> u64 {
    ctx.device().graph_mem_trim().unwrap();
    graph_memory_used(ctx)
}

const N: usize = 1 << 16;
const BYTES: u64 = (N * 4) as u64;

/// A graph that keeps an allocation of `N` elements and fills it with `value` at each launch.
fn kept_graph<'g>(
    guard: &'g custack::PushedGuard<'_, '_>,
    value: u32,
) -> custack::graph::Graph<'g, ()> {
    guard
        .build_graph((), move |b, ()| {
            let (made, mut x) = b.alloc_kept::<u32>(N, &[])?;
            b.fill_u32(&mut x, value, &[made])?;
            Ok(())
        })
        .unwrap()
}

/// Launches `exec` on `stream` and waits for it.
fn launched<'g>(
    stream: &custack::Stream<'_>,
    exec: custack::graph::GraphExec<'g, ()>,
) -> custack::graph::GraphExec<'g, ()> {
    stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap()
}

/// Asserts every element of `got` is `value`.
fn assert_all(got: &[u32], value: u32, what: &str) {
    assert_eq!(got.len(), N, "{what}");
    let bad = got.iter().filter(|&&v| v != value).count();
    assert_eq!(bad, 0, "{what}: {bad} of {N} elements are not {value:#x}");
}

/// Asserts `r` is custack's refusal before the driver (`InvalidValue` with custack's detail).
fn assert_refused_here<T>(r: custack::Result<T>, says: &str) {
    let Err(e) = r else {
        panic!("not refused: {says}")
    };
    assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e:?}");
    assert!(e.detail().unwrap_or_default().contains(says), "{e:?}");
}

/// Nothing kept is left and nothing was recorded by a drop.
fn assert_nothing_left(ctx: &custack::Context) {
    assert_eq!(graph_memory_held_after_trim(ctx), 0, "graph memory left");
    let errors = custack::take_drop_errors();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_kept_allocation_s_address_is_known_after_the_build_and_its_view_reads_it_before_the_take() {
    let _alone = alone();
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let graph = kept_graph(&guard, 0x600d);
    let at = graph.kept_device_ptr::<u32>(0).unwrap();
    assert_ne!(at, 0);
    assert_refused_here(graph.kept_device_ptr::<f32>(0), "not f32");
    assert_refused_here(graph.kept_device_ptr::<u32>(1), "no allocation 1");
    let mut exec = graph.instantiate().unwrap();
    assert_eq!(exec.kept_device_ptr::<u32>(0).unwrap(), at);
    // No launch made it yet: nothing to view.
    assert_refused_here(exec.kept_view::<u32>(0), "not made");
    for round in 0..2 {
        exec = launched(&stream, exec);
        assert!(
            graph_memory_used(&ctx) >= BYTES,
            "round {round}: the launch's allocation"
        );
        let view = exec.kept_view::<u32>(0).unwrap();
        assert_eq!(
            view.device_ptr(),
            at,
            "round {round}: the view at the build's address"
        );
        assert_all(&view.to_vec().unwrap(), 0x600d, "the view");
        // The view read in place; the take still hands the allocation out, at the same address.
        let x = exec.take_kept::<u32>(0).unwrap();
        assert_eq!(x.device_ptr(), at, "round {round}");
        assert_all(&x.to_vec().unwrap(), 0x600d, "the taken buffer");
        drop(x);
        assert_refused_here(exec.kept_view::<u32>(0), "not made");
    }
    drop(exec);
    assert_nothing_left(&ctx);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_kept_allocation_freed_in_stream_order_by_each_route_lets_the_graph_launch_again() {
    let _alone = alone();
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let other = guard.stream().unwrap();
    let mut exec = kept_graph(&guard, 0x4b45).instantiate().unwrap();
    let at = exec.kept_device_ptr::<u32>(0).unwrap();
    let mut out = vec![0u32; N];
    for round in 0..4 {
        exec = launched(&stream, exec);
        let x = exec.take_kept::<u32>(0).unwrap();
        assert_eq!(x.device_ptr(), at);
        assert!(
            graph_memory_held_after_trim(&ctx) >= BYTES,
            "round {round}: taken, alive"
        );
        match round {
            // Freed alone, on the launch's stream.
            0 => stream.scope(|s| s.free_kept(&exec, x)).unwrap().unwrap(),
            // Copied out, then freed in the same scope, on another stream: one wait.
            1 => {
                out.fill(0);
                other
                    .scope(|s| {
                        let x = s.bind_kept(&exec, x)?;
                        s.copy_to_host(&mut out, &x)?;
                        x.free()
                    })
                    .unwrap()
                    .unwrap();
                assert_all(&out, 0x4b45, "copied out before the free");
            }
            // Parked, attached again, freed by the scoped allocation's drop.
            2 => {
                let parked = guard.park(x);
                let x = guard.attach(parked).unwrap();
                other
                    .scope(|s| s.bind_kept(&exec, x).map(drop))
                    .unwrap()
                    .unwrap();
            }
            // Moved into another owner (a tuple, a box), then freed.
            _ => {
                let owner = (Box::new(x), 7u8);
                stream
                    .scope(|s| s.free_kept(&exec, *owner.0))
                    .unwrap()
                    .unwrap();
            }
        }
        // The scope waited for the free: the next launch (unwrapped) is the driver's word
        // that the allocation is freed, which it refuses while one is unfreed. (The pool's
        // figure is read once the executable graph is gone: a live one may keep memory
        // associated with it.)
    }
    exec = launched(&stream, exec);
    assert_all(
        &exec.take_kept::<u32>(0).unwrap().to_vec().unwrap(),
        0x4b45,
        "after the frees",
    );
    drop(exec);
    assert_nothing_left(&ctx);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_free_of_memory_not_the_exec_s_taken_allocation_is_refused_and_the_buffer_freed_by_its_drop() {
    let _alone = alone();
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let mut a = launched(&stream, kept_graph(&guard, 1).instantiate().unwrap());
    let mut b = launched(&stream, kept_graph(&guard, 2).instantiate().unwrap());
    assert!(graph_memory_held_after_trim(&ctx) >= 2 * BYTES);
    // Another executable graph's allocation: refused, then freed by the buffer's drop.
    let xa = a.take_kept::<u32>(0).unwrap();
    let refused = stream.scope(|s| s.free_kept(&b, xa)).unwrap();
    assert_refused_here(refused, "none of this executable graph's kept allocations");
    // Memory of no graph.
    let plain = guard.alloc::<u32>(N).unwrap();
    let refused = stream.scope(|s| s.free_kept(&a, plain)).unwrap();
    assert_refused_here(refused, "none of this executable graph's kept allocations");
    // A graph that keeps nothing.
    let none = guard
        .build_graph(guard.alloc::<u32>(N).unwrap(), |bld, mut d| {
            bld.fill_u32(&mut d, 3, &[])?;
            Ok(())
        })
        .unwrap()
        .instantiate()
        .unwrap();
    let xb = b.take_kept::<u32>(0).unwrap();
    let refused = stream.scope(|s| s.free_kept(&none, xb)).unwrap();
    assert_refused_here(refused, "it keeps none");
    // Both taken allocations were freed by their buffers' drops: both graphs launch again
    // (the driver refuses a launch while one is unfreed).
    a = launched(&stream, a);
    b = launched(&stream, b);
    assert_all(&a.kept_view::<u32>(0).unwrap().to_vec().unwrap(), 1, "a");
    assert_all(&b.kept_view::<u32>(0).unwrap().to_vec().unwrap(), 2, "b");
    drop(b);
    drop(a);
    assert_nothing_left(&ctx);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_scoped_kept_allocation_leaked_is_never_freed_and_the_driver_refuses_the_relaunch() {
    let _alone = alone();
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let mut exec = launched(&stream, kept_graph(&guard, 5).instantiate().unwrap());
    let x = exec.take_kept::<u32>(0).unwrap();
    let (ptr, len) = (x.device_ptr(), x.len());
    stream
        .scope(|s| {
            core::mem::forget(s.bind_kept(&exec, x)?);
            Ok::<_, custack::Error>(())
        })
        .unwrap()
        .unwrap();
    // Never freed: still allocated, and the driver refuses the relaunch (custack's mark is
    // clear: the allocation was taken).
    assert!(graph_memory_held_after_trim(&ctx) >= BYTES);
    let again = stream
        .scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))
        .unwrap();
    let e = again.expect_err("a relaunch while the leaked allocation is unfreed ran");
    assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e:?}");
    assert!(
        !e.detail().unwrap_or_default().contains("take_kept"),
        "{e:?}"
    );
    // SAFETY: the graph allocation the leaked scoped allocation owned, which nothing freed, of
    // this context, idle (the scope waited); adopted to free it.
    let x = unsafe { guard.buffer_from_raw::<u32>(ptr, len) };
    assert_all(&x.to_vec().unwrap(), 5, "the leaked allocation, intact");
    drop(x);
    exec = launched(&stream, exec);
    drop(exec);
    assert_nothing_left(&ctx);
}

#[test]
#[ignore = "needs a CUDA device"]
fn kept_allocations_are_freed_once_whatever_the_drop_order() {
    let _alone = alone();
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    // The executable graph dropped with an allocation made and not taken: its drop frees it.
    let exec = launched(&stream, kept_graph(&guard, 6).instantiate().unwrap());
    assert!(graph_memory_held_after_trim(&ctx) >= BYTES);
    drop(exec);
    assert_eq!(
        graph_memory_held_after_trim(&ctx),
        0,
        "exec dropped, not taken"
    );
    // The buffer outlives its executable graph (parked past its drop), then is freed.
    let exec = launched(&stream, kept_graph(&guard, 7).instantiate().unwrap());
    let parked = guard.park(exec.take_kept::<u32>(0).unwrap());
    drop(exec);
    assert!(
        graph_memory_held_after_trim(&ctx) >= BYTES,
        "the buffer's, alive"
    );
    let x = guard.attach(parked).unwrap();
    assert_all(&x.to_vec().unwrap(), 7, "past its executable graph");
    drop(x);
    assert_eq!(graph_memory_held_after_trim(&ctx), 0, "buffer dropped last");
    // Freed by the stream, then the executable graph dropped.
    let exec = launched(&stream, kept_graph(&guard, 8).instantiate().unwrap());
    let x = exec.take_kept::<u32>(0).unwrap();
    stream.scope(|s| s.free_kept(&exec, x)).unwrap().unwrap();
    drop(exec);
    assert_nothing_left(&ctx);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_graph_s_payload_is_read_through_an_exclusive_borrow_and_kept() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let payload = (guard.alloc_zeroed::<u32>(N).unwrap(), vec![0u32; N]);
    let mut graph = guard
        .build_graph(payload, |b, (mut d, out)| {
            let set = b.fill_u32(&mut d, 9, &[])?;
            b.copy_to_host(out, &d, &[set])?;
            Ok(())
        })
        .unwrap();
    let (d, out) = graph.payload();
    assert_all(out, 0, "before any launch");
    assert_all(&d.to_vec().unwrap(), 0, "before any launch");
    for round in 0..2 {
        let exec = graph.instantiate_shared(InstantiateFlags::empty()).unwrap();
        stream
            .scope(|s| s.launch_graph(&s.bind_shared(&exec)))
            .unwrap()
            .unwrap();
        drop(exec);
        let (d, out) = graph.payload();
        assert_all(out, 9, &format!("round {round}: the host copy"));
        assert_all(
            &d.to_vec().unwrap(),
            9,
            &format!("round {round}: the device memory"),
        );
    }
    // Read, not given up: the graph still instantiates, and its executable graph owns the payload.
    let exec = graph.instantiate().unwrap();
    assert_all(exec.payload().1, 9, "taken over by the executable graph");
}
