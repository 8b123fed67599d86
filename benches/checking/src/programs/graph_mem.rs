//! The program `graph_mem` (C28): memory allocation and free nodes of graphs built node by node
//! (`GraphBuilder::alloc`, `GraphBuilder::free`), and allocations that outlive the launch
//! (`GraphBuilder::alloc_kept`, `GraphExec::take_kept`).

use crate::common::{KERNELS, N, N32};
use crate::kernels::AddU32;
use custack::graph::{Graph, GraphAlloc, GraphBuilder, GraphNode};
use custack::{
    Context, DeviceMemory, Driver, ErrorKind, LaunchConfig, PushedGuard, Result, ScopedHost, Stack,
    StandIn,
};

/// Expects `built` refused by the builder's ordering checks (an `InvalidValue` that names a
/// graph allocation, not the driver's); returns a driver error the build met first.
fn refused<P: custack::Payload>(built: Result<Graph<'_, P>>, what: &str) -> Result<()> {
    let ours = |e: &custack::Error| e.detail().is_some_and(|d| d.contains("graph allocation"));
    match built {
        Err(e) if e.kind() == ErrorKind::InvalidValue && ours(&e) => Ok(()),
        Err(e) => Err(e),
        Ok(_) => panic!("{what}: built"),
    }
}

/// The four builds the builder refuses: a memset not after the allocation node, a free not
/// after every node that used the memory, an allocation never freed, a copy whose host side
/// made a node while it was being made.
fn out_of_order(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let before = guard.build_graph((), |b, ()| {
        let (_made, mut x) = b.alloc::<u32>(N, &[])?;
        b.fill_u32(&mut x, 1, &[])?;
        b.free(x, &[])?;
        Ok(())
    });
    refused(before, "a memset not after its allocation node")?;
    let early = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc::<u32>(N, &[])?;
        let set = b.fill_u32(&mut x, 1, &[made])?;
        b.fill_u32(&mut x, 2, &[made])?;
        // After the first memset, not the second.
        b.free(x, &[set])?;
        Ok(())
    });
    refused(early, "a free not after every user")?;
    let kept = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc::<u32>(N, &[])?;
        b.fill_u32(&mut x, 1, &[made])?;
        Ok(())
    });
    refused(kept, "an allocation never freed")?;
    refused(stolen_use(guard), "a copy whose host side made a node between its checks")
}

/// The host side of a copy, whose conversion (a program's own `From`) makes a node of the
/// build: of another allocation, after its allocation node, noted in `made`.
struct MakesANode<'s, 'b> {
    b: &'b GraphBuilder<'b>,
    y: &'s mut GraphAlloc<'b, u32>,
    after: GraphNode<'b>,
    made: &'s core::cell::Cell<Option<Result<GraphNode<'b>>>>,
}

/// The host memory the copy reads.
static HOST: [u32; N] = [7; N];

impl<'b> From<MakesANode<'_, 'b>> for ScopedHost<'b, u32> {
    fn from(m: MakesANode<'_, 'b>) -> Self {
        m.made.set(Some(m.b.fill_u32(&mut *m.y, 3, &[m.after])));
        (&HOST[..]).into()
    }
}

/// A copy into an allocation whose host side makes a node while the copy is being made, the
/// copy made after no node (its allocation node not among its ancestors): refused, as any
/// such copy is. Before the copies converted their host side first, the node made in the
/// conversion took the use the device side had noted, and the copy was built unordered with
/// its allocation and free nodes (a device write outside the allocation's life at every
/// launch); the build then passed (the tenth session's review of graphs).
fn stolen_use<'g>(guard: &'g PushedGuard<'_, '_>) -> Result<Graph<'g, ()>> {
    guard.build_graph((), |b, ()| {
        let (made_x, mut x) = b.alloc::<u32>(N, &[])?;
        let (made_y, mut y) = b.alloc::<u32>(N, &[])?;
        let made = core::cell::Cell::new(None);
        let host = MakesANode {
            b,
            y: &mut y,
            after: made_y,
            made: &made,
        };
        let copied = b.copy_to_device(&mut x, host, &[]);
        // The node made in the conversion: a driver error (a fault schedule's) comes first; the
        // builder's own refusal is what an attacker ignores (before the fix, that refused node
        // was the one that took the copy's use).
        let y_last = match made.take() {
            Some(Ok(node)) => node,
            Some(Err(e)) if e.kind() == ErrorKind::InvalidValue && e.detail().is_some() => made_y,
            Some(Err(e)) => return Err(e),
            None => made_y,
        };
        let set = b.fill_u32(&mut x, 1, &[made_x, copied?])?;
        b.free(x, &[set])?;
        b.free(y, &[y_last])?;
        Ok(())
    })
}

/// Graph allocations (C28): a graph that allocates, fills, adds with a kernel, copies to the
/// host and frees its own memory, launched three times with the result each time; two
/// allocations, one read by a copy into the other; and the three builds refused (nothing left
/// behind: each refused graph destroyed with its allocation).
pub(crate) fn graph_mem(ctx: &Context) -> Result<()> {
    // SAFETY: as the kernel, the stand-in reads and writes x[0..n).
    let _add_u32_on_cpu = unsafe {
        StandIn::register(&Driver::init()?, "add_u32", |call| {
            let (x, k, n) = (
                call.arg::<u64>(0)?,
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<u32>(x, n as usize)?;
            for e in &mut v {
                *e += k;
            }
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let stream = guard.stream()?;
    let payload = (module.declared::<AddU32>()?, vec![0u32; N]);
    let graph = guard.build_graph(payload, |b, (add, out)| {
        let (made, mut x) = b.alloc::<u32>(N, &[])?;
        let (other, mut y) = b.alloc::<u32>(N, &[])?;
        let set = b.fill_u32(&mut x, 40, &[made])?;
        let cfg = LaunchConfig::for_elements(N32);
        let added = b.kernel(&add, cfg, (&mut x, 2u32, N32), &[set])?;
        let moved = b.copy_device(&mut y, &x, &[added, other])?;
        let freed = b.free(x, &[moved])?;
        let copied = b.copy_to_host(out, &y, &[moved])?;
        b.free(y, &[copied, freed])?;
        Ok(())
    })?;
    if graph.node_count()? != 8 {
        return Err(crate::common::unexpected("a graph of 8 nodes"));
    }
    let mut exec = graph.instantiate()?;
    for _ in 0..3 {
        exec.payload_mut().1.fill(0);
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
        if !exec.payload().1.iter().all(|&v| v == 42) {
            return Err(crate::common::unexpected(
                "40 + 2 copied out at each launch",
            ));
        }
    }
    drop(exec);
    out_of_order(&guard)?;
    kept(&guard)
}

/// Expects `r` refused by custack (an `InvalidValue` with custack's detail), not the driver's.
fn refused_here<T>(r: Result<T>, what: &str) -> Result<()> {
    match r {
        Err(e) if e.kind() == ErrorKind::InvalidValue && e.detail().is_some() => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Err(crate::common::unexpected(what)),
    }
}

/// Allocations that outlive the launch (`alloc_kept`, C28): made by each launch, taken once
/// per launch as a buffer that frees them (dropped, or freed by hand); a launch before the take
/// refused; a second take, a take of another type refused; one launch's left untaken, freed
/// by the executable graph's drop. A kept allocation's free node refused in the build.
fn kept(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let freed_in_graph = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc_kept::<u32>(N, &[])?;
        let set = b.fill_u32(&mut x, 1, &[made])?;
        b.free(x, &[set])?;
        Ok(())
    });
    refused(freed_in_graph, "a kept allocation freed by a free node")?;
    let module = guard.load_ptx(KERNELS)?;
    let graph = guard.build_graph(module.declared::<AddU32>()?, |b, add| {
        let (made, mut x) = b.alloc_kept::<u32>(N, &[])?;
        let set = b.fill_u32(&mut x, 40, &[made])?;
        let cfg = LaunchConfig::for_elements(N32);
        b.kernel(&add, cfg, (&mut x, 2u32, N32), &[set])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    if exec.kept_count() != 1 {
        return Err(crate::common::unexpected("one kept allocation"));
    }
    refused_here(exec.take_kept::<u32>(0), "a take before any launch")?;
    let stream = guard.stream()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    refused_here(exec.take_kept::<f32>(0), "a take of another element type")?;
    refused_here(exec.take_kept::<u32>(1), "a take of no kept allocation")?;
    {
        let x = exec.take_kept::<u32>(0)?;
        if x.to_vec()? != vec![42u32; N] {
            return Err(crate::common::unexpected("40 + 2 in the kept allocation"));
        }
        refused_here(exec.take_kept::<u32>(0), "a second take of one launch's")?;
    } // freed (cuMemFree): the graph can be launched again
    stream.scope(|s| {
        let g = s.bind_graph(&mut exec);
        s.launch_graph(&g)?;
        refused_here(
            s.launch_graph(&g),
            "a launch before the previous launch's take",
        )
    })??;
    exec.take_kept::<u32>(0)?.free()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    // Not taken: the executable graph's drop frees it.
    drop(exec);
    Ok(())
}
