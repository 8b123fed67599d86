//! The program `graph_update_attack` (C28.5): a reviewer's routes against the node updates of
//! an executable graph, under the double, which reports a launch that names freed memory. A
//! memset node disabled, then the whole graph updated (`GraphExec::update`): refused while the
//! node is disabled (the driver would keep it disabled with no node lent after the update), and
//! after the graph parked with it disabled; enabled again, the update hands the old payload back
//! to the program; the node is lent no more; the memory handed back freed, and the graph
//! launched twice after it. A memcpy node updated to a shorter pair of buffers (a pair of other
//! lengths refused before the driver), launched. And a whole-graph update the driver fails
//! with another code than `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` (a fault schedule's): the
//! driver does not say what it applied, so the new graph's host closure must stay alive (it was
//! freed with the graph before the fix: a launch could have called freed memory) and no node is
//! lent any more; the executable graph launches on.

use crate::common::{N, unexpected};
use custack::graph::{Graph, UpdateError};
use custack::{Context, DeviceBuffer, ErrorKind, PushedGuard, Result, Stack};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// Counts its drops: a host closure holding one says when the closure was freed.
struct Dropped(Arc<AtomicU32>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A memset node and a host node after it, whose closure holds a [`Dropped`] of `drops`.
fn build_with_host<'g>(
    guard: &'g PushedGuard<'_, '_>,
    value: u32,
    drops: &Arc<AtomicU32>,
) -> Result<Graph<'g, DeviceBuffer<'g, u32>>> {
    let token = Dropped(Arc::clone(drops));
    guard.build_graph(guard.alloc::<u32>(N)?, move |b, mut x| {
        let set = b.fill_u32(&mut x, value, &[])?;
        b.host(
            move || {
                let _ = &token;
            },
            &[set],
        )?;
        Ok(())
    })
}

/// The third route: a whole-graph update with host closures on both sides. Where the driver
/// fails it with a code that does not say nothing was applied, the new graph's closure stays
/// alive and no node is lent; either way the executable graph launches on, and the failure is
/// then the route's answer.
fn unknown_outcome(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let (old_drops, new_drops) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let mut exec = build_with_host(guard, 1, &old_drops)?.instantiate()?;
    let next = build_with_host(guard, 2, &new_drops)?;
    let failed = match exec.update(next) {
        Ok(old) => {
            drop(old);
            None
        }
        Err(e) => {
            let (error, graph) = e.into_parts();
            if graph.is_some() {
                return Err(error);
            }
            assert_eq!(
                new_drops.load(Ordering::SeqCst),
                0,
                "the closure of a graph the executable graph may now run was freed ({error})"
            );
            exec.update_nodes(|u, _| {
                for lent in [u.fill_node(0).err(), u.host_node(0).err()] {
                    assert_eq!(
                        lent.map(|e| e.kind()),
                        Some(ErrorKind::InvalidValue),
                        "a node lent after an update of unknown outcome"
                    );
                }
                Ok(())
            })?;
            Some(error)
        }
    };
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    drop(exec);
    // The driver's failure is the program's answer, after the launch that followed it.
    failed.map_or(Ok(()), Err)
}

/// One topology over any payload of its type: set the buffer to `value`, copy it out.
fn build<'g>(
    guard: &'g PushedGuard<'_, '_>,
    x: DeviceBuffer<'g, u32>,
    value: u32,
) -> Result<Graph<'g, (DeviceBuffer<'g, u32>, Vec<u32>)>> {
    guard.build_graph((x, vec![0u32; N]), move |b, (mut x, out)| {
        let set = b.fill_u32(&mut x, value, &[])?;
        b.copy_to_host(out, &x, &[set])?;
        Ok(())
    })
}

/// The two routes, in turn.
pub(crate) fn graph_update_attack(ctx: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    // A disabled node, then a whole-graph update that hands its memory back.
    let mut exec = build(&guard, guard.alloc_zeroed::<u32>(N)?, 7)?.instantiate()?;
    exec.update_nodes(|u, _| {
        let set = u.fill_node(0)?;
        u.set_enabled(set, false)?;
        assert!(!u.enabled(set)?, "disabled");
        Ok(())
    })?;
    // Refused while the node is disabled (the driver would keep it disabled, and no node is
    // lent after the update): the graph handed back, nothing updated.
    let Err(refused) = exec.update(build(&guard, guard.alloc_zeroed::<u32>(N)?, 9)?) else {
        return Err(unexpected("a whole-graph update with a node disabled ran"));
    };
    assert_eq!(refused.error().kind(), ErrorKind::InvalidValue, "refused");
    let next = refused
        .into_graph()
        .ok_or_else(|| unexpected("the refused graph was not handed back"))?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    exec.update_nodes(|u, _| u.set_enabled(u.fill_node(0)?, true))?;
    let (old, old_out) = exec.update(next).map_err(UpdateError::into_error)?;
    exec.update_nodes(|u, _| {
        for lent in [u.fill_node(0).err(), u.copy_node(0).err()] {
            assert_eq!(
                lent.map(|e| e.kind()),
                Some(ErrorKind::InvalidValue),
                "a node lent after a whole-graph update"
            );
        }
        Ok(())
    })?;
    drop((old, old_out));
    for _ in 0..2 {
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    }
    drop(exec);
    // Disabled, parked and attached: no node is lent to enable it, so an update is refused.
    let mut exec = build(&guard, guard.alloc_zeroed::<u32>(N)?, 7)?.instantiate()?;
    exec.update_nodes(|u, _| u.set_enabled(u.fill_node(0)?, false))?;
    let mut exec = guard.attach_graph(guard.park_graph(exec))?;
    let Err(refused) = exec.update(build(&guard, guard.alloc_zeroed::<u32>(N)?, 9)?) else {
        return Err(unexpected(
            "a whole-graph update of a graph parked with a node disabled ran",
        ));
    };
    assert_eq!(refused.error().kind(), ErrorKind::InvalidValue, "refused");
    let fresh = refused
        .into_graph()
        .ok_or_else(|| unexpected("the refused graph was not handed back"))?
        .instantiate()?;
    let fresh = stream.submit(fresh, |s, g| s.launch_graph(&g))?.wait()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    drop((exec, fresh));
    // A memcpy node moved to a shorter pair.
    let payload = (
        guard.alloc::<u32>(N)?,
        guard.alloc::<u32>(N / 2)?,
        vec![0u32; N],
        vec![0u32; N / 2],
    );
    let graph = guard.build_graph(payload, |b, (mut x, mut half, out, _half_out)| {
        let a = b.fill_u32(&mut x, 7, &[])?;
        let h = b.fill_u32(&mut half, 5, &[])?;
        b.copy_to_host(out, &x, &[a, h])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    exec.update_nodes(|u, (x, half, out, half_out)| {
        let copy = u.copy_node(0)?;
        for refused in [
            u.set_copy_to_host(copy, half_out, &x),
            u.set_copy_to_host(copy, out, &half),
        ] {
            assert_eq!(
                refused.err().map(|e| e.kind()),
                Some(ErrorKind::LengthMismatch),
                "a copy between buffers of two lengths"
            );
        }
        u.set_copy_to_host(copy, half_out, &half)
    })?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    drop(exec);
    unknown_outcome(&guard)?;
    guard.synchronize()
}
