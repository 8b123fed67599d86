//! Graphs that survive instantiation on a real device (C28): executable graphs sharing a built
//! graph's payload (one made from a clone), uploaded and launched in scopes, the graph's node
//! kinds, the payload read back once they are gone; the instantiation flags, and the one
//! combination refused before the driver sees it.
mod common;
use common::{KERNELS, context};
use custack::graph::{InstantiateFlags, NodeKind};
use custack::prelude::*;
use custack::{ErrorKind, LaunchConfig, Stack};

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
    let exec = graph
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
