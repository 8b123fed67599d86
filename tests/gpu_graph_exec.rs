//! Graphs that survive instantiation on a real device (C28): executable graphs sharing a built
//! graph's payload (one made from a clone), uploaded and launched in scopes, the graph's node
//! kinds, the payload read back once they are gone; the instantiation flags, and the one
//! combination refused before the driver sees it; nodes updated in place (memset, memcpy, host,
//! child-graph and event nodes), launched again and checked.
mod common;
use common::{KERNELS, context};
use custack::graph::{InstantiateFlags, NodeKind};
use custack::prelude::*;
use custack::{ErrorKind, EventFlags, LaunchConfig, Stack};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

const N: usize = 1 << 16;
const N32: u32 = N as u32;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

#[test]
#[ignore = "needs a CUDA device"]
fn two_shared_execs_and_a_clone_run_over_one_graph_s_payload_which_survives_them() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let payload = (
        guard.alloc::<u32>(N).unwrap(),
        module.declared::<AddU32>().unwrap(),
        vec![0u32; N],
    );
    let mut graph = guard
        .build_graph(payload, |b, (mut x, add, out)| {
            let cfg = LaunchConfig::for_elements(N32);
            let added = b.kernel(&add, cfg, (&mut x, 5u32, N32), &[])?;
            b.copy_to_host(out, &x, &[added])?;
            Ok(())
        })
        .unwrap();
    let mut kinds = graph.nodes().unwrap();
    kinds.sort_by_key(|k| format!("{k:?}"));
    assert_eq!(kinds, [NodeKind::Kernel, NodeKind::Memcpy]);
    // The memory starts at 1 (the host's write, through the graph's own payload).
    {
        let (mut x, _, _) = graph.payload_mut();
        x.copy_from_host(&vec![1u32; N]).unwrap();
    }
    {
        let first = graph.instantiate_shared(InstantiateFlags::empty()).unwrap();
        let clone = graph.clone_graph().unwrap();
        let mut cloned = clone.nodes().unwrap();
        cloned.sort_by_key(|k| format!("{k:?}"));
        assert_eq!(cloned, kinds);
        let second = clone
            .instantiate_shared(InstantiateFlags::USE_NODE_PRIORITY)
            .unwrap();
        // The clone goes; the executable graph made from it stays (it borrows the graph).
        drop(clone);
        first.upload(&stream).unwrap();
        second.upload(&stream).unwrap();
        stream
            .scope(|s| {
                s.launch_graph(&s.bind_shared(&first))?;
                s.launch_graph(&s.bind_shared(&second))?;
                s.launch_graph(&s.bind_shared(&first))
            })
            .unwrap()
            .unwrap();
    }
    // Three launches of one kernel node over one buffer: 1 + 3 * 5.
    let (x, _, out) = graph.payload_mut();
    assert!(out.iter().all(|&v| v == 16), "{}", out[0]);
    let mut back = vec![0u32; N];
    x.copy_to_host(&mut back).unwrap();
    assert!(back.iter().all(|&v| v == 16));
    // The graph is still whole: it is instantiated once more, taking its payload over.
    let mut exec = graph
        .instantiate_with(InstantiateFlags::AUTO_FREE_ON_LAUNCH)
        .unwrap();
    exec.upload(&stream).unwrap();
    let exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(exec.payload().2.iter().all(|&v| v == 21));
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_device_launch_graph_is_made_where_allowed_and_auto_free_with_it_is_refused_first() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let graph = guard
        .build_graph(guard.alloc::<u32>(N).unwrap(), |b, mut d| {
            b.fill_u32(&mut d, 9, &[])?;
            Ok(())
        })
        .unwrap();
    assert_eq!(graph.nodes().unwrap(), [NodeKind::Memset]);
    let both = InstantiateFlags::AUTO_FREE_ON_LAUNCH | InstantiateFlags::DEVICE_LAUNCH;
    let refused = graph.instantiate_shared(both).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::InvalidValue);
    // A graph of one memset node on one device is one the driver allows to launch from the
    // device; launched from the host here, it runs as any other.
    let exec = graph
        .instantiate_shared(InstantiateFlags::DEVICE_LAUNCH)
        .unwrap();
    let stream = guard.stream().unwrap();
    exec.upload(&stream).unwrap();
    stream
        .scope(|s| s.launch_graph(&s.bind_shared(&exec)))
        .unwrap()
        .unwrap();
    drop(exec);
    let exec = graph.instantiate().unwrap();
    let mut back = vec![0u32; N];
    exec.payload().copy_to_host(&mut back).unwrap();
    assert!(back.iter().all(|&v| v == 9));
}

#[test]
#[ignore = "needs a CUDA device"]
fn memcpy_and_memset_nodes_updated_in_place_copy_and_set_their_new_memory() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let payload = (
        guard.alloc::<u32>(N).unwrap(),
        guard.alloc::<u32>(N).unwrap(),
        module.declared::<AddU32>().unwrap(),
        vec![1u32; N],
        vec![0u32; N],
        vec![100u32; N],
    );
    let graph = guard
        .build_graph(payload, |b, (mut x, mut y, add, input, out, _later)| {
            let up = b.copy_to_device(&mut x, input, &[])?;
            let set = b.fill_u32(&mut y, 7, &[])?;
            let cfg = LaunchConfig::for_elements(N32);
            let added = b.kernel(&add, cfg, (&mut x, 2u32, N32), &[up])?;
            b.copy_to_host(out, &x, &[added, set])?;
            Ok(())
        })
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(exec.payload().4.iter().all(|&v| v == 3));
    // The first copy now reads the other host buffer: 100 + 2 comes out.
    exec.update_nodes(|u, (mut x, _y, _add, _input, out, later)| {
        let up = u.copy_node(0)?;
        // A node keeps its direction: the host-to-device node is no device-to-host one.
        let wrong = u.set_copy_to_host(up, out, &x).unwrap_err();
        assert_eq!(wrong.kind(), ErrorKind::InvalidValue);
        u.set_copy_to_device(up, &mut x, later)
    })
    .unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(
        exec.payload().4.iter().all(|&v| v == 102),
        "{}",
        exec.payload().4[0]
    );
    // The memset now sets 9, and the last copy reads `y`.
    exec.update_nodes(|u, (_x, mut y, _add, _input, out, _later)| {
        let set = u.fill_node(0)?;
        let bytes = u.set_fill_bytes(set, &mut y, 9).unwrap_err();
        assert_eq!(bytes.kind(), ErrorKind::InvalidValue);
        u.set_fill_u32(set, &mut y, 9)?;
        u.set_copy_to_host(u.copy_node(1)?, out, &y)
    })
    .unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(
        exec.payload().4.iter().all(|&v| v == 9),
        "{}",
        exec.payload().4[0]
    );
}

/// Counts its drops, and what its closure had done by then: held by a host closure.
struct Token {
    drops: Arc<AtomicU32>,
    calls: Arc<AtomicU32>,
    calls_at_drop: Arc<AtomicU32>,
}

impl Drop for Token {
    fn drop(&mut self) {
        self.calls_at_drop.store(self.calls.load(SeqCst), SeqCst);
        self.drops.fetch_add(1, SeqCst);
    }
}

/// A host closure's calls and drop.
#[derive(Default)]
struct Seen {
    calls: Arc<AtomicU32>,
    drops: Arc<AtomicU32>,
    calls_at_drop: Arc<AtomicU32>,
}

impl Seen {
    /// A host closure that counts its calls (each after `pause`) and its drop here.
    fn closure(&self, pause: std::time::Duration) -> impl Fn() + Send + Sync + 'static {
        let calls = Arc::clone(&self.calls);
        let token = Token {
            drops: Arc::clone(&self.drops),
            calls: Arc::clone(&self.calls),
            calls_at_drop: Arc::clone(&self.calls_at_drop),
        };
        move || {
            let _ = &token;
            std::thread::sleep(pause);
            calls.fetch_add(1, SeqCst);
        }
    }

    fn counts(&self) -> (u32, u32) {
        (self.calls.load(SeqCst), self.drops.load(SeqCst))
    }
}

/// The executable graph of the host-node tests: a memset of its own buffer to 7, then a host
/// node that calls `host`.
fn fill_then_host<'g>(
    guard: &'g custack::PushedGuard<'_, '_>,
    host: impl Fn() + Send + Sync + 'static,
) -> custack::graph::GraphExec<'g, custack::DeviceBuffer<'g, u32>> {
    guard
        .build_graph(guard.alloc::<u32>(N).unwrap(), move |b, mut x| {
            let set = b.fill_u32(&mut x, 7, &[])?;
            b.host(host, &[set])?;
            Ok(())
        })
        .unwrap()
        .instantiate()
        .unwrap()
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_host_node_updated_in_place_calls_the_new_closure_which_the_exec_owns_and_drops_once() {
    use std::time::Duration;
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let [built, second, third, fourth, fifth] = core::array::from_fn(|_| Seen::default());
    let first = built.closure(Duration::ZERO);
    let mut exec = fill_then_host(&guard, first);
    let launch = |exec| {
        stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap()
    };
    exec = launch(exec);
    assert_eq!(built.counts(), (1, 0));
    // The update's closure is slow: its launch is still running it when `submit` returns.
    let slow = second.closure(Duration::from_millis(200));
    exec.update_nodes(move |u, _x| u.set_host(u.host_node(0)?, slow))
        .unwrap();
    exec = launch(exec);
    exec = launch(exec);
    assert_eq!(
        built.counts(),
        (1, 0),
        "the builder's closure is not called any more"
    );
    assert_eq!(second.counts(), (2, 0), "the new closure, once per launch");
    // Two updates before a launch: each replaced closure is dropped by the update that
    // replaces it, after its last call completed (the update needs the exec back from `wait`).
    let (c, d) = (
        third.closure(Duration::ZERO),
        fourth.closure(Duration::ZERO),
    );
    exec.update_nodes(move |u, _x| {
        let node = u.host_node(0)?;
        u.set_host(node, c)?;
        u.set_host(node, d)
    })
    .unwrap();
    assert_eq!(second.counts(), (2, 1), "dropped when replaced");
    assert_eq!(
        second.calls_at_drop.load(SeqCst),
        2,
        "dropped after both of its calls completed"
    );
    assert_eq!(
        third.counts(),
        (0, 1),
        "replaced before any launch: never called"
    );
    exec = launch(exec);
    assert_eq!(fourth.counts(), (1, 0));
    // The updater's result forgotten: the update stands.
    let e = fifth.closure(Duration::ZERO);
    exec.update_nodes(move |u, _x| {
        let set = u.set_host(u.host_node(0)?, e);
        let ok = set.is_ok();
        core::mem::forget(set);
        assert!(ok);
        Ok(())
    })
    .unwrap();
    assert_eq!(fourth.counts(), (1, 1));
    exec = launch(exec);
    assert_eq!(fifth.counts(), (1, 0));
    // Dropped right after an update: the last closure is dropped with the executable graph,
    // at once (it is the exec's, not a user object's), never called.
    let [last] = core::array::from_fn(|_| Seen::default());
    let f = last.closure(Duration::ZERO);
    exec.update_nodes(move |u, _x| u.set_host(u.host_node(0)?, f))
        .unwrap();
    assert_eq!(fifth.counts(), (1, 1));
    drop(exec);
    assert!(custack::take_drop_errors().is_empty());
    assert_eq!(last.counts(), (0, 1));
    for seen in [&second, &third, &fourth, &fifth] {
        assert_eq!(seen.drops.load(SeqCst), 1, "each closure dropped once");
    }
    // The builder's closure goes with the graph's user object, on the driver's thread.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while built.drops.load(SeqCst) == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(built.counts(), (1, 1));
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_panic_in_an_update_leaves_the_exec_its_nodes_and_the_closure_set_before_it() {
    use std::time::Duration;
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let [built, set] = core::array::from_fn(|_| Seen::default());
    let first = built.closure(Duration::ZERO);
    let mut exec = fill_then_host(&guard, first);
    let g = set.closure(Duration::ZERO);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        exec.update_nodes(move |u, _x| {
            u.set_host(u.host_node(0)?, g)?;
            panic!("a panic after the host node's update");
        })
    }));
    assert!(panicked.is_err());
    // The executable graph still lends its nodes: the lists stayed in it.
    exec.update_nodes(|u, mut x| {
        u.host_node(0)?;
        u.set_fill_u32(u.fill_node(0)?, &mut x, 9)
    })
    .unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(built.counts().0, 0, "the builder's closure was replaced");
    assert_eq!(
        set.counts(),
        (1, 0),
        "the closure set before the panic runs"
    );
    assert!(exec.payload().to_vec().unwrap().iter().all(|&v| v == 9));
    drop(exec);
    assert!(custack::take_drop_errors().is_empty());
    assert_eq!(
        set.counts(),
        (1, 1),
        "owned by the executable graph, dropped once with it"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_child_graph_node_updated_in_place_runs_the_new_graph_whose_kernel_writes_its_own_value() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let cfg = LaunchConfig::for_elements(N32);
    // A memset of 0, then a kernel adding `k`: children of one topology.
    let child = |k: u32| {
        let payload = (
            guard.alloc_zeroed::<u32>(N).unwrap(),
            module.declared::<AddU32>().unwrap(),
        );
        guard
            .build_graph(payload, move |b, (mut x, add)| {
                let set = b.fill_u32(&mut x, 0, &[])?;
                b.kernel(&add, cfg, (&mut x, k, N32), &[set])?;
                Ok(())
            })
            .unwrap()
    };
    let (five, nine) = (child(5), child(9));
    let longer = guard
        .build_graph(guard.alloc::<u32>(N).unwrap(), |b, mut x| {
            b.fill_u32(&mut x, 1, &[])?;
            b.fill_u32(&mut x, 2, &[])?;
            b.fill_u32(&mut x, 3, &[])?;
            Ok(())
        })
        .unwrap();
    let other_kinds = guard
        .build_graph(guard.alloc::<u32>(N).unwrap(), |b, mut x| {
            let one = b.fill_u32(&mut x, 1, &[])?;
            b.fill_u32(&mut x, 2, &[one])?;
            Ok(())
        })
        .unwrap();
    let graph = guard
        .build_graph((five, nine, longer, other_kinds), |b, (five, ..)| {
            b.child(&five, &[])?;
            Ok(())
        })
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    let launch = |exec| {
        stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap()
    };
    exec = launch(exec);
    {
        let ((five, _), (nine, _), _, _) = exec.payload();
        assert!(five.to_vec().unwrap().iter().all(|&v| v == 5));
        assert!(
            nine.to_vec().unwrap().iter().all(|&v| v == 0),
            "not run yet"
        );
    }
    exec.update_nodes(|u, (_five, nine, _, _)| u.set_child(u.child_node(0)?, &nine))
        .unwrap();
    // Another node count: refused before the driver; the same count of another topology (two
    // memsets in a chain, not a memset and a kernel): refused by the driver.
    let refused = exec
        .update_nodes(|u, (_, _, longer, _)| u.set_child(u.child_node(0)?, &longer))
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::InvalidValue);
    assert!(
        refused
            .detail()
            .is_some_and(|d| d.contains("keeps its topology")),
        "{refused}"
    );
    let by_driver = exec.update_nodes(|u, (_, _, _, other)| u.set_child(u.child_node(0)?, &other));
    assert!(by_driver.is_err(), "a child graph of other node kinds");
    // Both memories set to 1, then the relaunch: only the new child's kernel writes.
    {
        let ((mut five, _), (mut nine, _), _, _) = exec.payload_mut();
        five.copy_from_host(&vec![1u32; N]).unwrap();
        nine.copy_from_host(&vec![1u32; N]).unwrap();
    }
    exec = launch(exec);
    let ((five, _), (nine, _), _, _) = exec.payload();
    assert!(
        five.to_vec().unwrap().iter().all(|&v| v == 1),
        "the old child no longer runs"
    );
    assert!(
        nine.to_vec().unwrap().iter().all(|&v| v == 9),
        "the new child's kernel wrote 9"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn an_event_record_node_updated_in_place_records_the_new_event() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let start = guard.event(EventFlags::empty()).unwrap();
    let (a, b) = (
        Rc::new(guard.event(EventFlags::empty()).unwrap()),
        Rc::new(guard.event(EventFlags::empty()).unwrap()),
    );
    let payload = (guard.alloc::<u32>(N).unwrap(), Rc::clone(&a), Rc::clone(&b));
    let graph = guard
        .build_graph(payload, |g, (mut x, a, _b)| {
            let set = g.fill_u32(&mut x, 7, &[])?;
            let recorded = g.record(&a, &[set])?;
            g.wait(&a, &[recorded])?;
            Ok(())
        })
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    stream.record(&start).unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(a.is_complete().unwrap());
    assert!(
        start.elapsed_ms(&a).unwrap() >= 0.0,
        "the node recorded `a`"
    );
    assert!(
        start.elapsed_ms(&b).is_err(),
        "`b` was never recorded: no elapsed time"
    );
    exec.update_nodes(|u, (_x, _a, b)| {
        u.set_record_event(u.record_node(0)?, &b)?;
        u.set_wait_event(u.wait_node(0)?, &b)
    })
    .unwrap();
    stream.record(&start).unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(b.is_complete().unwrap());
    assert!(
        start.elapsed_ms(&b).unwrap() >= 0.0,
        "the updated node recorded `b`, after `start`"
    );
    // A record node the graph does not have.
    let missing = exec
        .update_nodes(|u, _| u.record_node(1).map(drop))
        .unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::InvalidValue);
    drop(exec);
}
