//! The program `graph_kept_free` (C28.12–C28.14): a kept graph allocation's address after the
//! build and its view before the take (`Graph::kept_device_ptr`, `GraphExec::kept_device_ptr`,
//! `GraphExec::kept_view`); the taken allocation freed in a scope's stream order
//! (`StreamScope::free_kept`, `StreamScope::bind_kept`, `cuMemFreeAsync`) on the launch's stream
//! and on another, after a copy in the same scope, after a park and an attach, each followed by
//! a relaunch that the double, which reports a relaunch with no order after a pending
//! stream-ordered free of its memory, accepts; the frees refused before the driver (memory of
//! another executable graph, of no graph, of another element type, an allocation not taken);
//! the drop orders (the executable graph with an allocation not taken, a taken buffer parked
//! past its executable graph); a graph's payload read through `Graph::payload` between two
//! shared executable graphs' launches.

use crate::common::{N, unexpected};
use custack::graph::{Graph, InstantiateFlags};
use custack::{Context, DeviceMemory, ErrorKind, PushedGuard, Result, Stack};

/// What each launch of `kept_graph` writes into its kept allocation.
const GRAPH_VALUE: u32 = 0x4b45_5054;

/// A graph that allocates memory it keeps (no free node) and fills it with `value`.
fn kept_graph<'g>(guard: &'g PushedGuard<'_, '_>, value: u32) -> Result<Graph<'g, ()>> {
    guard.build_graph((), move |b, ()| {
        let (made, mut x) = b.alloc_kept::<u32>(N, &[])?;
        b.fill_u32(&mut x, value, &[made])?;
        Ok(())
    })
}

/// Expects `r` refused by custack before the driver (an `InvalidValue` with a detail).
fn refused<T>(r: Result<T>, what: &str) -> Result<()> {
    match r {
        Err(e) if e.kind() == ErrorKind::InvalidValue && e.detail().is_some() => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Err(unexpected(what)),
    }
}

/// Expects every element of `got` to be `value`.
fn all(got: &[u32], value: u32, what: &str) -> Result<()> {
    if got.len() == N && got.iter().all(|&v| v == value) {
        Ok(())
    } else {
        Err(unexpected(what))
    }
}

/// The address known after the build and the view before the take; frees in stream order, each
/// followed by a relaunch.
fn frees(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let other = guard.stream()?;
    let graph = kept_graph(guard, GRAPH_VALUE)?;
    let at = graph.kept_device_ptr::<u32>(0)?;
    refused(
        graph.kept_device_ptr::<f32>(0),
        "an address of another type",
    )?;
    refused(
        graph.kept_device_ptr::<u32>(1),
        "an address of no allocation",
    )?;
    let mut exec = graph.instantiate()?;
    if exec.kept_device_ptr::<u32>(0)? != at {
        return Err(unexpected("the executable graph's address is the graph's"));
    }
    refused(exec.kept_view::<u32>(0), "a view before any launch")?;
    let mut out = vec![0u32; N];
    for (round, on) in [&stream, &other, &stream].into_iter().enumerate() {
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
        all(
            &exec.kept_view::<u32>(0)?.to_vec()?,
            GRAPH_VALUE,
            "the view",
        )?;
        let x = exec.take_kept::<u32>(0)?;
        if x.device_ptr() != at {
            return Err(unexpected(
                "the taken buffer at the address known after the build",
            ));
        }
        match round {
            // Read, then freed alone, on the launch's stream.
            0 => {
                all(&x.to_vec()?, GRAPH_VALUE, "the taken buffer")?;
                on.scope(|s| s.free_kept(&exec, x))??;
            }
            // Copied out and freed in one scope, on another stream.
            1 => {
                on.scope(|s| {
                    let x = s.bind_kept(&exec, x)?;
                    s.copy_to_host(&mut out, &x)?;
                    x.free()
                })??;
                all(&out, GRAPH_VALUE, "copied out before the free")?;
            }
            // Parked and attached again, then freed by the scoped allocation's drop.
            _ => {
                let parked = guard.park(x);
                let x = guard.attach(parked)?;
                on.scope(|s| s.bind_kept(&exec, x).map(drop))??;
            }
        }
        refused(exec.kept_view::<u32>(0), "a view after the take")?;
    }
    // Freed: the graph launches again, and the executable graph's drop frees what it made.
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    drop(exec);
    Ok(())
}

/// The frees refused before the driver, each buffer then freed by its drop.
fn refusals(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let mut a = kept_graph(guard, 1)?.instantiate()?;
    let mut b = kept_graph(guard, 2)?.instantiate()?;
    a = stream.submit(a, |s, g| s.launch_graph(&g))?.wait()?;
    b = stream.submit(b, |s, g| s.launch_graph(&g))?.wait()?;
    let xa = a.take_kept::<u32>(0)?;
    // Another executable graph's allocation: `b` would be relaunched with no order after it.
    refused(
        stream.scope(|s| s.free_kept(&b, xa))?,
        "a free under another graph",
    )?;
    // Memory of no graph.
    let plain = guard.alloc::<u32>(N)?;
    refused(
        stream.scope(|s| s.free_kept(&a, plain))?,
        "a free of plain memory",
    )?;
    // A graph that keeps nothing.
    let none = guard
        .build_graph(guard.alloc::<u32>(N)?, |b, mut d| {
            b.fill_u32(&mut d, 3, &[])?;
            Ok(())
        })?
        .instantiate()?;
    let xb = b.take_kept::<u32>(0)?;
    refused(
        stream.scope(|s| s.free_kept(&none, xb))?,
        "a free under a graph that keeps none",
    )?;
    // Taken again after a relaunch: the old buffer is gone (freed by its drop above).
    b = stream.submit(b, |s, g| s.launch_graph(&g))?.wait()?;
    all(
        &b.kept_view::<u32>(0)?.to_vec()?,
        2,
        "the relaunch's memory",
    )?;
    // Drop order: the executable graph frees the allocation nobody took.
    drop(b);
    drop(a);
    Ok(())
}

/// A taken buffer parked past its executable graph, freed by its drop after the attach.
fn outlives_its_exec(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let mut exec = kept_graph(guard, 4)?.instantiate()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let parked = guard.park(exec.take_kept::<u32>(0)?);
    drop(exec);
    let x = guard.attach(parked)?;
    all(&x.to_vec()?, 4, "a buffer past its executable graph")
}

/// A graph's payload read between launches of its shared executable graphs, the graph kept.
fn payload_read(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let mut graph = guard.build_graph(
        (guard.alloc::<u32>(N)?, vec![0u32; N]),
        |b, (mut d, out)| {
            let set = b.fill_u32(&mut d, 9, &[])?;
            b.copy_to_host(out, &d, &[set])?;
            Ok(())
        },
    )?;
    all(graph.payload().1, 0, "the payload before any launch")?;
    for _ in 0..2 {
        let exec = graph.instantiate_shared(InstantiateFlags::empty())?;
        stream.scope(|s| s.launch_graph(&s.bind_shared(&exec)))??;
        drop(exec);
        let (d, out) = graph.payload();
        all(out, 9, "the payload's host copy")?;
        all(&d.to_vec()?, 9, "the payload's device memory")?;
    }
    Ok(())
}

/// The frees, their refusals, a buffer past its executable graph, a graph's payload read.
pub(crate) fn graph_kept_free(ctx: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    frees(&guard)?;
    refusals(&guard)?;
    outlives_its_exec(&guard)?;
    payload_read(&guard)
}
