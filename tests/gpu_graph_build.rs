//! Graphs built node by node on a real device (C28): memset, kernel and memcpy nodes with
//! their dependencies, device copies, event record and wait nodes and a child graph;
//! instantiated and launched more than once, the results read back; a kernel node its
//! contract refuses; memory allocation and free nodes, launched three times, and the uses and
//! frees out of order the builder refuses; allocations kept past the launch, taken after each
//! launch and freed by the program (the driver's refusal of a relaunch while one lives, on
//! every route by which a taken buffer outlives its borrow of the executable graph, and the
//! refusal of `AUTO_FREE_ON_LAUNCH` for such a graph on every way to instantiate it).
mod common;
use common::{KERNELS, context};
use custack::graph::{InstantiateFlags, NodeKind};
use custack::prelude::*;
use custack::{ErrorKind, EventFlags, GraphMem, LaunchConfig, Stack};
use std::rc::Rc;
use std::sync::Mutex;

/// Held by the tests that launch graphs with allocation nodes, so that the device's figure of
/// graph memory in use (`GraphMem::Used`) is theirs alone while each reads it.
static GRAPH_MEMORY: Mutex<()> = Mutex::new(());

/// The device's graph memory in use now (`cuDeviceGetGraphMemAttribute`).
fn graph_memory_used(ctx: &custack::Context) -> u64 {
    ctx.device().graph_mem(GraphMem::Used).unwrap()
}

/// The device's graph memory in use once its pool gave back what no allocation holds
/// (`cuDeviceGraphMemTrim`): freed allocations stay mapped in the pool until a trim (32 MiB on
/// an H100 after one 256 KiB allocation was freed), but a trim cannot release a live one, so
/// 0 here means every graph allocation was freed.
fn graph_memory_held_after_trim(ctx: &custack::Context) -> u64 {
    ctx.device().graph_mem_trim().unwrap();
    graph_memory_used(ctx)
}

const N: usize = 1 << 16;
const N32: u32 = N as u32;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_built_graph_of_memset_kernel_and_copy_runs_twice() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.declared::<AddU32>().unwrap();
    let stream = guard.stream().unwrap();
    let payload = (guard.alloc::<u32>(N).unwrap(), add, vec![0u32; N]);
    let graph = guard
        .build_graph(payload, |b, (mut x, add, out)| {
            let set = b.fill_u32(&mut x, 40, &[])?;
            let cfg = LaunchConfig::for_elements(N32);
            let once = b.kernel(&add, cfg, (&mut x, 1u32, N32), &[set])?;
            let twice = b.kernel(&add, cfg, (&mut x, 1u32, N32), &[once])?;
            b.copy_to_host(out, &x, &[twice])?;
            Ok(())
        })
        .unwrap();
    assert_eq!(graph.node_count().unwrap(), 4);
    let mut exec = graph.instantiate().unwrap();
    // Nothing ran while the graph was built.
    assert!(exec.payload().2.iter().all(|&v| v == 0));
    for round in 1..=2 {
        // The host clears the output between launches; the launch writes it again.
        let (_x, _add, out) = exec.payload_mut();
        out.fill(0);
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        let (x, _add, out) = exec.payload();
        assert!(out.iter().all(|&v| v == 42), "round {round}: {}", out[0]);
        let mut back = vec![0u32; N];
        x.copy_to_host(&mut back).unwrap();
        assert!(back.iter().all(|&v| v == 42), "round {round}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_built_graph_with_device_copies_events_and_a_child_runs_in_a_scope() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let child = guard
        .build_graph(guard.alloc::<u32>(N).unwrap(), |b, mut d| {
            b.fill_u32(&mut d, 3, &[])?;
            Ok(())
        })
        .unwrap();
    let event = Rc::new(guard.event(EventFlags::DISABLE_TIMING).unwrap());
    let payload = (
        guard.alloc::<u32>(N).unwrap(),
        guard.alloc::<u32>(N).unwrap(),
        module.declared::<AddU32>().unwrap(),
        vec![0u32; N],
        Rc::clone(&event),
        child,
        vec![7u32; N],
    );
    let graph = guard
        .build_graph(payload, |b, (mut x, mut y, add, out, ev, child, input)| {
            let up = b.copy_to_device(&mut x, input, &[])?;
            let set = b.fill_u32(&mut y, 1, &[])?;
            let cfg = LaunchConfig::for_elements(N32);
            let added = b.kernel(&add, cfg, (&mut x, 5u32, N32), &[up])?;
            let copied = b.copy_device(&mut y, &x, &[added, set])?;
            let recorded = b.record(&ev, &[copied])?;
            let waited = b.wait(&ev, &[recorded])?;
            let sub = b.child(&child, &[])?;
            b.copy_to_host(out, &y, &[waited, sub])?;
            Ok(())
        })
        .unwrap();
    assert_eq!(graph.node_count().unwrap(), 8);
    let mut exec = graph.instantiate().unwrap();
    for round in 1..=2u32 {
        let (_x, _y, _add, out, _ev, _child, input) = exec.payload_mut();
        out.fill(0);
        input.fill(round * 100);
        stream
            .scope(|s| {
                let g = s.bind_graph(&mut exec);
                s.launch_graph(&g)
            })
            .unwrap()
            .unwrap();
        // The graph's record node recorded the shared event: complete once the scope is.
        assert!(event.is_complete().unwrap());
        let (_x, _y, _add, out, _ev, child, _input) = exec.payload();
        assert!(
            out.iter().all(|&v| v == round * 100 + 5),
            "round {round}: {}",
            out[0]
        );
        let mut filled = vec![0u32; N];
        child.copy_to_host(&mut filled).unwrap();
        assert!(filled.iter().all(|&v| v == 3), "round {round}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_kernel_node_past_its_buffer_s_extent_is_refused_and_nothing_is_built() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.declared::<AddU32>().unwrap();
    let e = guard
        .build_graph((guard.alloc::<u32>(8).unwrap(), add), |b, (mut x, add)| {
            b.kernel(
                &add,
                LaunchConfig::for_elements(N32),
                (&mut x, 1u32, N32),
                &[],
            )?;
            Ok(())
        })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferTooShort, "{e}");
    assert!(e.to_string().contains('x'), "{e}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_disabled_kernel_node_does_not_run_and_runs_its_kept_parameters_once_enabled_again() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let payload = (
        guard.alloc_zeroed::<u32>(N).unwrap(),
        module.declared::<AddU32>().unwrap(),
        vec![0u32; N],
    );
    // Each launch adds 1 to `x` and copies `x` out.
    let graph = guard
        .build_graph(payload, |b, (mut x, add, out)| {
            let cfg = LaunchConfig::for_elements(N32);
            let added = b.kernel(&add, cfg, (&mut x, 1u32, N32), &[])?;
            b.copy_to_host(out, &x, &[added])?;
            Ok(())
        })
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    macro_rules! launch_and_read {
        () => {{
            // The host copy zeroed first: what the launch copies out is read, not a stale value.
            exec.payload_mut().2.fill(0);
            exec = stream
                .submit(exec, |s, g| s.launch_graph(&g))
                .unwrap()
                .wait()
                .unwrap();
            let out = exec.payload().2;
            assert!(
                out.iter().all(|&v| v == out[0]),
                "{} {}",
                out[0],
                out[N - 1]
            );
            out[0]
        }};
    }
    assert_eq!(launch_and_read!(), 1);
    // Disabled: the kernel does not run, the copy after it still does.
    exec.update_nodes(|u, (_x, add, _out)| {
        let node = u.kernel_node(&add, 0)?;
        assert!(u.enabled(node)?, "every node is enabled when instantiated");
        u.set_enabled(node, false)?;
        assert!(!u.enabled(node)?);
        Ok(())
    })
    .unwrap();
    assert_eq!(launch_and_read!(), 1, "the disabled kernel ran");
    assert_eq!(launch_and_read!(), 1, "the disabled kernel ran");
    // Parameters set while it is disabled are kept; it still does not run.
    exec.update_nodes(|u, (mut x, add, _out)| {
        let node = u.kernel_node(&add, 0)?;
        u.set_kernel(node, LaunchConfig::for_elements(N32), (&mut x, 5u32, N32))
    })
    .unwrap();
    assert_eq!(launch_and_read!(), 1, "the disabled kernel ran");
    // Enabled again: it runs, with the parameters set while it was disabled.
    exec.update_nodes(|u, (_x, add, _out)| {
        let node = u.kernel_node(&add, 0)?;
        u.set_enabled(node, true)?;
        assert!(u.enabled(node)?);
        Ok(())
    })
    .unwrap();
    assert_eq!(launch_and_read!(), 6);
    // The memcpy node disabled: nothing is copied out (the zeroed host copy stays zero), while
    // the kernel runs; enabled again, the copy shows both launches' additions.
    exec.update_nodes(|u, _| u.set_enabled(u.copy_node(0)?, false))
        .unwrap();
    assert_eq!(launch_and_read!(), 0, "the disabled copy ran");
    exec.update_nodes(|u, _| u.set_enabled(u.copy_node(0)?, true))
        .unwrap();
    assert_eq!(launch_and_read!(), 16);
    drop(exec);
    assert!(custack::take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_kernel_node_updated_in_place_runs_its_new_scalar_and_buffer() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.declared::<AddU32>().unwrap();
    let stream = guard.stream().unwrap();
    let payload = (
        guard.alloc::<u32>(N).unwrap(),
        guard.alloc::<u32>(N).unwrap(),
        add,
    );
    let graph = guard
        .build_graph(payload, |b, (mut x, mut y, add)| {
            let set_x = b.fill_u32(&mut x, 1, &[])?;
            let set_y = b.fill_u32(&mut y, 1, &[])?;
            let cfg = LaunchConfig::for_elements(N32);
            b.kernel(&add, cfg, (&mut x, 3u32, N32), &[set_x, set_y])?;
            Ok(())
        })
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    macro_rules! read {
        ($exec:expr) => {{
            let (x, y, _add) = $exec.payload();
            let (mut hx, mut hy) = (vec![0u32; N], vec![0u32; N]);
            x.copy_to_host(&mut hx).unwrap();
            y.copy_to_host(&mut hy).unwrap();
            (hx, hy)
        }};
    }
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    let (x, y) = read!(exec);
    assert!(x.iter().all(|&v| v == 4) && y.iter().all(|&v| v == 1));
    // The node now adds 10 to the first half of `y` (another buffer, scalar and shape).
    exec.update_kernels(|u, (_x, mut y, add)| {
        let node = u.kernel_node(&add, 0)?;
        let half = N32 / 2;
        u.set_kernel(
            node,
            LaunchConfig::for_elements(half),
            (&mut y, 10u32, half),
        )
    })
    .unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    let (x, y) = read!(exec);
    assert!(x.iter().all(|&v| v == 1), "x only filled: {}", x[0]);
    assert!(y[..N / 2].iter().all(|&v| v == 11), "{}", y[0]);
    assert!(y[N / 2..].iter().all(|&v| v == 1), "{}", y[N - 1]);
    // An update past the buffer's extent is refused, and the node keeps its parameters.
    let refused = exec.update_kernels(|u, (mut x, _y, add)| {
        let node = u.kernel_node(&add, 0)?;
        u.set_kernel(
            node,
            LaunchConfig::for_elements(N32 + 1),
            (&mut x, 1u32, N32 + 1),
        )
    });
    assert_eq!(refused.unwrap_err().kind(), ErrorKind::BufferTooShort);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_built_graph_writes_itself_as_a_dot_file() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let payload = (
        guard.alloc::<u32>(N).unwrap(),
        module.declared::<AddU32>().unwrap(),
    );
    let graph = guard
        .build_graph(payload, |b, (mut x, add)| {
            let set = b.fill_u32(&mut x, 1, &[])?;
            b.kernel(
                &add,
                LaunchConfig::for_elements(N32),
                (&mut x, 3u32, N32),
                &[set],
            )?;
            Ok(())
        })
        .unwrap();
    let path = std::env::temp_dir().join(format!("custack-graph-{}.dot", std::process::id()));
    graph
        .write_dot(&path, custack::graph::DotFlags::VERBOSE)
        .unwrap();
    let dot = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(dot.starts_with("digraph"), "{}", &dot[..dot.len().min(200)]);
    assert!(dot.contains("add_u32"), "the kernel node names its kernel");
    let refused = graph.write_dot("a\0b.dot", custack::graph::DotFlags::empty());
    assert_eq!(refused.unwrap_err().kind(), ErrorKind::InvalidValue);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_built_graph_allocates_fills_adds_copies_and_frees_its_own_memory_at_each_launch() {
    let _alone = GRAPH_MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let payload = (module.declared::<AddU32>().unwrap(), vec![0u32; N]);
    let graph = guard
        .build_graph(payload, |b, (add, out)| {
            let (made, mut x) = b.alloc::<u32>(N, &[])?;
            assert_eq!(x.len(), N);
            let set = b.fill_u32(&mut x, 40, &[made])?;
            let cfg = LaunchConfig::for_elements(N32);
            let added = b.kernel(&add, cfg, (&mut x, 2u32, N32), &[set])?;
            let copied = b.copy_to_host(out, &x, &[added])?;
            b.free(x, &[copied])?;
            Ok(())
        })
        .unwrap();
    let kinds = graph.nodes().unwrap();
    assert_eq!(kinds.len(), 5, "{kinds:?}");
    let count = |k: NodeKind| kinds.iter().filter(|&&n| n == k).count();
    assert_eq!(count(NodeKind::MemAlloc), 1, "{kinds:?}");
    assert_eq!(count(NodeKind::MemFree), 1, "{kinds:?}");
    // The driver clones no graph with memory nodes, and makes one executable graph of it at a
    // time.
    let clone = graph.clone_graph().map(drop);
    println!("clone of a graph with memory nodes: {clone:?}");
    assert!(clone.is_err());
    {
        let first = graph.instantiate_shared(InstantiateFlags::empty()).unwrap();
        let second = graph
            .instantiate_shared(InstantiateFlags::empty())
            .map(drop);
        println!("a second executable graph while the first lives: {second:?}");
        assert!(second.is_err());
        drop(first);
    }
    let mut exec = graph.instantiate().unwrap();
    assert!(exec.payload().1.iter().all(|&v| v == 0), "nothing ran yet");
    for round in 1..=3 {
        exec.payload_mut().1.fill(0);
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        let out = exec.payload().1;
        assert!(out.iter().all(|&v| v == 42), "round {round}: {}", out[0]);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn graph_allocations_used_or_freed_out_of_order_are_refused_on_a_device() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    // A memset not after the allocation node.
    let before = guard.build_graph((), |b, ()| {
        let (_made, mut x) = b.alloc::<u32>(N, &[])?;
        b.fill_u32(&mut x, 1, &[])?;
        b.free(x, &[])?;
        Ok(())
    });
    assert_eq!(before.unwrap_err().kind(), ErrorKind::InvalidValue);
    // A free not after the memset that used it.
    let early = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc::<u32>(N, &[])?;
        b.fill_u32(&mut x, 1, &[made])?;
        b.free(x, &[made])?;
        Ok(())
    });
    assert_eq!(early.unwrap_err().kind(), ErrorKind::InvalidValue);
    // An allocation never freed.
    let kept = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc::<u32>(N, &[])?;
        b.fill_u32(&mut x, 1, &[made])?;
        Ok(())
    });
    assert_eq!(kept.unwrap_err().kind(), ErrorKind::InvalidValue);
}

/// A graph that allocates, fills and adds into memory it keeps (no free node).
fn keeping_graph<'g, 'm>(
    guard: &'g custack::PushedGuard<'_, '_>,
    module: &'m custack::Module<'_>,
) -> custack::graph::Graph<'g, custack::Declared<'m, AddU32>> {
    guard
        .build_graph(module.declared::<AddU32>().unwrap(), |b, add| {
            let (made, mut x) = b.alloc_kept::<u32>(N, &[])?;
            let set = b.fill_u32(&mut x, 40, &[made])?;
            let cfg = LaunchConfig::for_elements(N32);
            b.kernel(&add, cfg, (&mut x, 2u32, N32), &[set])?;
            Ok(())
        })
        .unwrap()
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_kept_graph_allocation_is_taken_after_each_launch_read_and_freed_then_launched_again() {
    let _alone = GRAPH_MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let graph = keeping_graph(&guard, &module);
    let kinds = graph.nodes().unwrap();
    assert!(kinds.contains(&NodeKind::MemAlloc), "{kinds:?}");
    assert!(!kinds.contains(&NodeKind::MemFree), "{kinds:?}");
    let mut exec = graph.instantiate().unwrap();
    assert_eq!(exec.kept_count(), 1);
    let mut addresses = Vec::new();
    for round in 1..=3 {
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        let x = exec.take_kept::<u32>(0).unwrap();
        assert_eq!(x.len(), N);
        addresses.push(x.device_ptr());
        assert!(
            x.to_vec().unwrap().iter().all(|&v| v == 42),
            "round {round}"
        );
        let again = exec.take_kept::<u32>(0).map(drop);
        assert_eq!(again.unwrap_err().kind(), ErrorKind::InvalidValue);
        if round == 2 {
            x.free().unwrap();
        } // else freed on drop (cuMemFree)
    }
    println!("kept allocation's address at each launch: {addresses:x?}");
    // A second launch in one scope before the take: refused before the driver.
    stream
        .scope(|s| {
            let g = s.bind_graph(&mut exec);
            s.launch_graph(&g)?;
            let second = s.launch_graph(&g);
            assert_eq!(second.unwrap_err().kind(), ErrorKind::InvalidValue);
            Ok::<_, custack::Error>(())
        })
        .unwrap()
        .unwrap();
    assert!(
        graph_memory_used(&ctx) > 0,
        "the launch's kept allocation is graph memory in use"
    );
    // Not taken: freed by the executable graph's drop, after the destroy (which frees none).
    drop(exec);
    assert_eq!(
        graph_memory_held_after_trim(&ctx),
        0,
        "every kept allocation was freed: taken ones by their buffers, the last by the drop"
    );
    let errors = custack::take_drop_errors();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_kept_allocation_not_freed_fails_the_relaunch_in_the_driver_and_auto_free_is_refused() {
    let _alone = GRAPH_MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let mut exec = keeping_graph(&guard, &module).instantiate().unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    // Taken, then given up without a free: the driver refuses the relaunch.
    let (ptr, len) = exec.take_kept::<u32>(0).unwrap().into_raw();
    let relaunch = relaunch(&stream, &mut exec);
    println!("a relaunch while the previous launch's allocation lives: {relaunch:?}");
    assert_refused_by_the_driver(relaunch);
    // The refused launch made nothing: nothing to take.
    assert_eq!(
        exec.take_kept::<u32>(0).map(drop).unwrap_err().kind(),
        ErrorKind::InvalidValue
    );
    // SAFETY: the graph allocation just given up, freed by `cuMemFree` (the driver's rule for
    // graph allocations no free node frees).
    let x = unsafe { guard.buffer_from_raw::<u32>(ptr, len) };
    assert!(x.to_vec().unwrap().iter().all(|&v| v == 42));
    drop(x);
    // Freed: the graph launches again.
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(
        exec.take_kept::<u32>(0)
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .all(|&v| v == 42)
    );
    drop(exec);
    // AUTO_FREE_ON_LAUNCH, which would free a taken allocation at the next launch, is refused
    // before the driver, as DEVICE_LAUNCH is; a shared instantiation too.
    let graph = keeping_graph(&guard, &module);
    assert_eq!(
        graph
            .instantiate_shared(InstantiateFlags::empty())
            .map(drop)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidValue
    );
    let refused = graph.instantiate_with(InstantiateFlags::AUTO_FREE_ON_LAUNCH);
    assert_refused_here(refused.map(drop), "AUTO_FREE_ON_LAUNCH");
    // Instantiated without it, three launches, each taken and freed by the program.
    let mut exec = keeping_graph(&guard, &module).instantiate().unwrap();
    for _ in 0..3 {
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        let x = exec.take_kept::<u32>(0).unwrap();
        assert!(x.to_vec().unwrap().iter().all(|&v| v == 42));
    }
    drop(exec);
    assert_eq!(
        graph_memory_held_after_trim(&ctx),
        0,
        "every kept allocation was freed by the program"
    );
    let errors = custack::take_drop_errors();
    assert!(errors.is_empty(), "{errors:?}");
}

// The routes by which safe code ends a taken buffer's borrow of its executable graph while the
// buffer lives (C28): parked, moved into a submission that is parked, moved into another
// graph's payload whose executable graph is parked, moved into a submission that is leaked.
// In each, the program asks for `AUTO_FREE_ON_LAUNCH` (refused: it gets a graph instantiated
// without), writes its own pattern into the taken memory, and launches the graph again: the
// driver refuses the launch while the memory is unfreed, and every element still holds the
// pattern. Where `AUTO_FREE_ON_LAUNCH` was granted, the relaunch freed the memory and made it
// again at the same address with the graph's value in it (driver 580, H100).

/// 1 MiB of `u32` that a graph keeps.
const KEPT_N: usize = 1 << 18;
/// What each launch of `kept_fill_graph` writes into its kept allocation.
const GRAPH_VALUE: u32 = 0x4752_4150;

/// A graph that allocates 1 MiB it keeps (no free node) and fills it with `GRAPH_VALUE`.
fn kept_fill_graph<'g>(guard: &'g custack::PushedGuard<'_, '_>) -> custack::graph::Graph<'g, ()> {
    guard
        .build_graph((), |b, ()| {
            let (made, mut x) = b.alloc_kept::<u32>(KEPT_N, &[])?;
            b.fill_u32(&mut x, GRAPH_VALUE, &[made])?;
            Ok(())
        })
        .unwrap()
}

/// Asserts `r` is custack's refusal before the driver (`InvalidValue`, with a detail that says
/// the graph keeps allocations and names `flag`).
fn assert_refused_here(r: custack::Result<()>, flag: &str) {
    let e = r.expect_err("instantiated");
    assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e:?}");
    let said = e.detail().unwrap_or_default();
    assert!(
        said.contains("keeps allocations") && said.contains(flag),
        "not custack's refusal of {flag}: {e:?}"
    );
}

/// Asserts `r` is the driver's refusal of a launch while an allocation of the previous launch
/// is unfreed (`CUDA_ERROR_INVALID_VALUE`), not custack's refusal of a launch before the take.
fn assert_refused_by_the_driver(r: custack::Result<()>) {
    let e = r.expect_err("a launch while the previous launch's kept allocation is unfreed ran");
    assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e:?}");
    assert!(
        !e.detail().unwrap_or_default().contains("take_kept"),
        "refused before the take, not by the driver: {e:?}"
    );
}

/// The executable graph of `kept_fill_graph` a program gets when it asks for
/// `AUTO_FREE_ON_LAUNCH`: refused before the driver, so instantiated without. (Granted, as it
/// was before the refusal, each route below relaunched it over memory the program owned, and
/// the route's assertions fail.)
fn kept_exec_asking_for_auto_free<'g>(
    guard: &'g custack::PushedGuard<'_, '_>,
) -> custack::graph::GraphExec<'g, ()> {
    match kept_fill_graph(guard).instantiate_with(InstantiateFlags::AUTO_FREE_ON_LAUNCH) {
        Err(e) => {
            assert_refused_here(Err(e), "AUTO_FREE_ON_LAUNCH");
            kept_fill_graph(guard).instantiate().unwrap()
        }
        Ok(exec) => exec,
    }
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

/// One launch of `exec` on `stream`, in a scope: the launch's result.
fn relaunch<P: custack::Payload>(
    stream: &custack::Stream<'_>,
    exec: &mut custack::graph::GraphExec<'_, P>,
) -> custack::Result<()> {
    stream
        .scope(|s| s.launch_graph(&s.bind_graph(exec)))
        .unwrap()
}

/// The program's pattern, written into the taken memory: unlike the graph's value anywhere.
fn pattern() -> Vec<u32> {
    (0..KEPT_N as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) | 1)
        .collect()
}

/// Asserts `got` is the program's pattern, element by element.
fn assert_pattern(got: &[u32], route: &str) {
    let want = pattern();
    assert_eq!(got.len(), want.len(), "{route}");
    let bad = got.iter().zip(&want).filter(|(g, w)| g != w).count();
    assert_eq!(
        bad, 0,
        "{route}: {bad} of {KEPT_N} elements of memory the program owns changed by the \
         relaunch (first: {:#x})",
        got[0]
    );
}

/// Launches the graph, takes its allocation (checked to hold the graph's value) and writes
/// the program's pattern into it.
macro_rules! launch_take_and_write {
    ($stream:expr, $exec:ident) => {{
        $exec = launched(&$stream, $exec);
        let mut x = $exec.take_kept::<u32>(0).unwrap();
        assert!(x.to_vec().unwrap().iter().all(|&v| v == GRAPH_VALUE));
        x.copy_from_host(&pattern()).unwrap();
        x
    }};
}

/// After a route: nothing kept is left (the program freed what it took, and the refused
/// relaunches made nothing), and nothing was recorded by a drop.
fn assert_nothing_left(ctx: &custack::Context) {
    assert_eq!(graph_memory_held_after_trim(ctx), 0, "graph memory left");
    let errors = custack::take_drop_errors();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_taken_buffer_parked_keeps_its_memory_the_relaunch_is_refused_by_the_driver() {
    let _alone = GRAPH_MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let mut exec = kept_exec_asking_for_auto_free(&guard);
    let x = launch_take_and_write!(stream, exec);
    // Parked, the buffer borrows only the context: the executable graph is free again.
    let parked = guard.park(x);
    // An upload while the taken memory lives changes none of it either (checked below).
    println!(
        "upload while the taken allocation lives: {:?}",
        exec.upload(&stream)
    );
    let again = relaunch(&stream, &mut exec);
    println!("relaunch with the taken buffer parked: {again:?}");
    assert_refused_by_the_driver(again);
    assert_eq!(
        exec.take_kept::<u32>(0).map(drop).unwrap_err().kind(),
        ErrorKind::InvalidValue,
        "the refused launch made nothing"
    );
    let x = guard.attach(parked).unwrap();
    assert_pattern(&x.to_vec().unwrap(), "parked");
    drop(x);
    // Freed by the program: the graph launches again and makes its memory anew.
    exec = launched(&stream, exec);
    assert!(
        exec.take_kept::<u32>(0)
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .all(|&v| v == GRAPH_VALUE)
    );
    drop(exec);
    assert_nothing_left(&ctx);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_taken_buffer_in_a_parked_submission_keeps_its_memory_the_relaunch_is_refused_by_the_driver() {
    let _alone = GRAPH_MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let other = guard.stream().unwrap();
    let mut exec = kept_exec_asking_for_auto_free(&guard);
    let x = launch_take_and_write!(stream, exec);
    // The buffer moves into a submission on another stream that reads it, which parks.
    let pending = other
        .submit((x, vec![0u32; KEPT_N]), |s, (d, h)| s.copy_to_host(h, &d))
        .unwrap();
    let parked = guard.park_submission(pending);
    let again = relaunch(&stream, &mut exec);
    println!("relaunch with the taken buffer in a parked submission: {again:?}");
    assert_refused_by_the_driver(again);
    let (x, read) = parked.wait().unwrap();
    assert_pattern(&read, "read by the parked submission");
    let x = guard.attach(x).unwrap();
    assert_pattern(&x.to_vec().unwrap(), "parked submission");
    drop(x);
    drop(exec);
    assert_nothing_left(&ctx);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_taken_buffer_in_a_parked_graph_s_payload_keeps_its_memory_the_relaunch_is_refused_by_the_driver()
 {
    let _alone = GRAPH_MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let mut exec = kept_exec_asking_for_auto_free(&guard);
    let x = launch_take_and_write!(stream, exec);
    // The buffer moves into another graph's payload (a graph that copies it to the host),
    // whose executable graph parks.
    let reader = guard
        .build_graph((x, vec![0u32; KEPT_N]), |b, (d, out)| {
            b.copy_to_host(out, &d, &[])?;
            Ok(())
        })
        .unwrap()
        .instantiate()
        .unwrap();
    let parked = guard.park_graph(reader);
    let again = relaunch(&stream, &mut exec);
    println!("relaunch with the taken buffer in a parked graph's payload: {again:?}");
    assert_refused_by_the_driver(again);
    let reader = guard.attach_graph(parked).unwrap();
    let reader = stream
        .submit(reader, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    let (d, out) = reader.payload();
    assert_pattern(out, "copied out by the parked graph");
    assert_pattern(&d.to_vec().unwrap(), "parked graph's payload");
    drop(reader);
    drop(exec);
    assert_nothing_left(&ctx);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_taken_buffer_in_a_leaked_submission_keeps_its_memory_the_relaunch_is_refused_by_the_driver() {
    let _alone = GRAPH_MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let other = guard.stream().unwrap();
    let mut exec = kept_exec_asking_for_auto_free(&guard);
    let x = launch_take_and_write!(stream, exec);
    let (ptr, len) = (x.device_ptr(), x.len());
    // The buffer moves into a submission on another stream that reads it, which is leaked
    // (sound, R11): the buffer is never freed, its borrow of the executable graph ends.
    let pending = other
        .submit((x, vec![0u32; KEPT_N]), |s, (d, h)| s.copy_to_host(h, &d))
        .unwrap();
    core::mem::forget(pending);
    // While the leaked copy may still read the memory on the other stream, the relaunch would
    // free it: refused.
    let again = relaunch(&stream, &mut exec);
    println!("relaunch with the taken buffer in a leaked submission: {again:?}");
    assert_refused_by_the_driver(again);
    guard.synchronize().unwrap();
    // SAFETY: the graph allocation the leaked buffer owned, which nothing frees (leaked) and
    // no work uses any more (the context is synchronized), of this context; `cuMemFree` frees
    // graph allocations no free node frees. Adopted to read it, then freed.
    let x = unsafe { guard.buffer_from_raw::<u32>(ptr, len) };
    assert_pattern(&x.to_vec().unwrap(), "leaked submission");
    drop(x);
    drop(exec);
    assert_nothing_left(&ctx);
}

#[test]
#[ignore = "needs a CUDA device"]
fn every_way_to_instantiate_a_graph_that_keeps_allocations_with_auto_free_is_refused_first() {
    let _alone = GRAPH_MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    // `instantiate_with`, alone or with another flag, and DEVICE_LAUNCH (a launch from the
    // device would pass by the record of what each launch made): custack's refusals.
    for (flags, named) in [
        (InstantiateFlags::AUTO_FREE_ON_LAUNCH, "AUTO_FREE_ON_LAUNCH"),
        (
            InstantiateFlags::AUTO_FREE_ON_LAUNCH | InstantiateFlags::USE_NODE_PRIORITY,
            "AUTO_FREE_ON_LAUNCH",
        ),
        (InstantiateFlags::DEVICE_LAUNCH, "DEVICE_LAUNCH"),
    ] {
        let made = kept_fill_graph(&guard).instantiate_with(flags);
        assert_refused_here(made.map(drop), named);
    }
    // Both at once: refused as a combination the driver documents as invalid.
    let both = InstantiateFlags::AUTO_FREE_ON_LAUNCH | InstantiateFlags::DEVICE_LAUNCH;
    let made = kept_fill_graph(&guard).instantiate_with(both);
    assert_eq!(made.map(drop).unwrap_err().kind(), ErrorKind::InvalidValue);
    // A shared instantiation, with the flag or without, and a clone (whose shared
    // instantiation is the only other way to instantiate): refused for such a graph.
    let graph = kept_fill_graph(&guard);
    for flags in [
        InstantiateFlags::AUTO_FREE_ON_LAUNCH,
        InstantiateFlags::empty(),
    ] {
        let e = graph.instantiate_shared(flags).map(drop).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(
            e.detail().unwrap_or_default().contains("keeps allocations"),
            "{e:?}"
        );
    }
    let e = graph.clone_graph().map(drop).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert!(
        e.detail().unwrap_or_default().contains("keeps allocations"),
        "{e:?}"
    );
    // A whole-graph update, either way: refused (the record of the executable graph's kept
    // allocations would not match its nodes).
    let plain = guard
        .build_graph((), |b, ()| {
            let (made, mut x) = b.alloc::<u32>(KEPT_N, &[])?;
            let set = b.fill_u32(&mut x, 1, &[made])?;
            b.free(x, &[set])?;
            Ok(())
        })
        .unwrap();
    let mut plain_exec = plain.instantiate().unwrap();
    let e = plain_exec.update(graph).map(drop).unwrap_err();
    assert_eq!(e.error().kind(), ErrorKind::InvalidValue);
    // Refused before the driver: the graph comes back.
    assert!(e.graph().is_some());
    drop(plain_exec);
    let mut kept_exec = kept_fill_graph(&guard).instantiate().unwrap();
    let other = guard
        .build_graph((), |b, ()| {
            let (made, mut x) = b.alloc_kept::<u32>(KEPT_N, &[])?;
            b.fill_u32(&mut x, 1, &[made])?;
            Ok(())
        })
        .unwrap();
    let e = kept_exec.update(other).map(drop).unwrap_err();
    assert_eq!(e.error().kind(), ErrorKind::InvalidValue);
    assert!(e.graph().is_some());
    drop(kept_exec);
    // A child-graph node of such a graph: refused before the driver (the parent's executable
    // graph would have no record of the allocations).
    let child = guard.build_graph(kept_fill_graph(&guard), |b, g| {
        b.child(&g, &[])?;
        Ok(())
    });
    let e = child.map(drop).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert!(
        e.detail().unwrap_or_default().contains("keeps allocations"),
        "{e:?}"
    );
    // Any other flag is the graph's: instantiated and launched, its allocation taken.
    let mut exec = kept_fill_graph(&guard)
        .instantiate_with(InstantiateFlags::USE_NODE_PRIORITY)
        .unwrap();
    let stream = guard.stream().unwrap();
    exec = launched(&stream, exec);
    assert!(
        exec.take_kept::<u32>(0)
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .all(|&v| v == GRAPH_VALUE)
    );
    drop(exec);
    assert_nothing_left(&ctx);
}
