//! Graphs built node by node on a real device (C28): memset, kernel and memcpy nodes with
//! their dependencies, device copies, event record and wait nodes and a child graph;
//! instantiated and launched more than once, the results read back; a kernel node its
//! contract refuses; memory allocation and free nodes, launched three times, and the uses and
//! frees out of order the builder refuses; allocations kept past the launch, taken after each
//! launch and freed by the program (the driver's refusal of a relaunch while one lives, and
//! `AUTO_FREE_ON_LAUNCH`).
mod common;
use common::{KERNELS, context};
use custack::prelude::*;
use custack::{ErrorKind, EventFlags, GraphMem, InstantiateFlags, LaunchConfig, NodeKind, Stack};
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
    graph.write_dot(&path, custack::DotFlags::VERBOSE).unwrap();
    let dot = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(dot.starts_with("digraph"), "{}", &dot[..dot.len().min(200)]);
    assert!(dot.contains("add_u32"), "the kernel node names its kernel");
    let refused = graph.write_dot("a\0b.dot", custack::DotFlags::empty());
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
) -> custack::Graph<'g, custack::Declared<'m, AddU32>> {
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
fn a_kept_allocation_not_freed_fails_the_relaunch_in_the_driver_and_auto_free_relaunches() {
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
    let relaunch = stream.scope(|s| {
        let g = s.bind_graph(&mut exec);
        s.launch_graph(&g)
    });
    println!("a relaunch while the previous launch's allocation lives: {relaunch:?}");
    assert_eq!(
        relaunch.unwrap().unwrap_err().kind(),
        ErrorKind::InvalidValue
    );
    // SAFETY: the graph allocation just given up, freed by `cuMemFree` (the driver's rule for
    // graph allocations no free node frees).
    let x = unsafe { guard.buffer_from_raw::<u32>(ptr, len) };
    assert!(x.to_vec().unwrap().iter().all(|&v| v == 42));
    drop(x);
    drop(exec);
    // Instantiated with AUTO_FREE_ON_LAUNCH: each launch frees what the previous one left.
    let graph = keeping_graph(&guard, &module);
    assert_eq!(
        graph
            .instantiate_shared(InstantiateFlags::empty())
            .map(drop)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidValue
    );
    let mut exec = graph
        .instantiate_with(InstantiateFlags::AUTO_FREE_ON_LAUNCH)
        .unwrap();
    for _ in 0..3 {
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
    }
    let x = exec.take_kept::<u32>(0).unwrap();
    assert!(x.to_vec().unwrap().iter().all(|&v| v == 42));
    drop(x);
    drop(exec);
    assert_eq!(
        graph_memory_held_after_trim(&ctx),
        0,
        "every kept allocation was freed: by the program, or by the next launch (auto-free)"
    );
    let errors = custack::take_drop_errors();
    assert!(errors.is_empty(), "{errors:?}");
}
