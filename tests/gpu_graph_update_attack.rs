//! A reviewer's routes against the node updates of an executable graph, on a real device (C28.5):
//! a memset node disabled, then the whole graph updated (`GraphExec::update`), which hands the
//! old payload back to the program: whatever the driver does with a disabled node's parameters
//! and its enabled state on a whole-graph update, no later launch writes the memory handed back
//! (the node is lent no more, so it cannot be enabled again with its old parameters), and the
//! memory handed back is the program's to free. And a memcpy node updated to a shorter pair of
//! buffers copies only those (a pair of other lengths refused before the driver). Each fails
//! without a device.

mod common;
use common::context;
use custack::graph::Graph;
use custack::prelude::*;
use custack::{DeviceBuffer, ErrorKind, PushedGuard, Stack};

const N: usize = 1 << 16;

/// One topology over any payload of its type: set the buffer to `value`, copy it out.
fn build<'g>(
    guard: &'g PushedGuard<'_, '_>,
    x: DeviceBuffer<'g, u32>,
    value: u32,
) -> custack::Result<Graph<'g, (DeviceBuffer<'g, u32>, Vec<u32>)>> {
    guard.build_graph((x, vec![0u32; N]), move |b, (mut x, out)| {
        let set = b.fill_u32(&mut x, value, &[])?;
        b.copy_to_host(out, &x, &[set])?;
        Ok(())
    })
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_disabled_node_names_no_memory_handed_back_by_a_whole_graph_update() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let old = guard.alloc_zeroed::<u32>(N).unwrap();
    let mut exec = build(&guard, old, 7).unwrap().instantiate().unwrap();
    // The memset disabled: its parameters (the old buffer, 7) are kept for when it is enabled.
    exec.update_nodes(|u, _| {
        let set = u.fill_node(0)?;
        u.set_enabled(set, false)?;
        assert!(!u.enabled(set)?);
        Ok(())
    })
    .unwrap();
    let new = guard.alloc_zeroed::<u32>(N).unwrap();
    let (old, old_out) = exec
        .update(build(&guard, new, 9).unwrap())
        .map_err(custack::graph::UpdateError::into_error)
        .unwrap();
    // The node is lent no more: nothing can enable it again, whatever it still holds.
    exec.update_nodes(|u, _| {
        assert_eq!(u.fill_node(0).unwrap_err().kind(), ErrorKind::InvalidValue);
        assert_eq!(u.copy_node(0).unwrap_err().kind(), ErrorKind::InvalidValue);
        Ok(())
    })
    .unwrap();
    for _ in 0..2 {
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        // The new memory was set (the node enabled with the new graph's parameters) or not
        // (still disabled), as the driver decides; never the old memory.
        let out = exec.payload().1;
        assert!(
            out.iter().all(|&v| v == 9) || out.iter().all(|&v| v == 0),
            "the new buffer copied out whole: {}",
            out[0]
        );
        assert!(
            old.to_vec().unwrap().iter().all(|&v| v == 0),
            "a launch after the whole-graph update wrote the memory it handed back"
        );
        assert!(old_out.iter().all(|&v| v == 0));
    }
    // The memory handed back is the program's: freed, and the graph launches on.
    drop(old);
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    drop(exec);
    guard.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_memcpy_node_updated_to_a_shorter_pair_copies_only_that_pair() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let payload = (
        guard.alloc::<u32>(N).unwrap(),
        guard.alloc::<u32>(N / 2).unwrap(),
        vec![0u32; N],
        vec![0u32; N / 2],
    );
    let graph = guard
        .build_graph(payload, |b, (mut x, mut half, out, _half_out)| {
            let a = b.fill_u32(&mut x, 7, &[])?;
            let h = b.fill_u32(&mut half, 5, &[])?;
            b.copy_to_host(out, &x, &[a, h])?;
            Ok(())
        })
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    exec.update_nodes(|u, (x, half, out, half_out)| {
        let copy = u.copy_node(0)?;
        // A destination shorter than the source (or longer) is refused before the driver.
        let e = u.set_copy_to_host(copy, half_out, &x).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LengthMismatch, "{e}");
        let e = u.set_copy_to_host(copy, out, &half).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LengthMismatch, "{e}");
        u.set_copy_to_host(copy, half_out, &half)
    })
    .unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    let (_, _, out, half_out) = exec.payload();
    assert!(half_out.iter().all(|&v| v == 5), "{}", half_out[0]);
    assert!(
        out.iter().all(|&v| v == 0),
        "the long host buffer is no longer copied into"
    );
}
