//! The program `safety_graph_nodes` (C28): the restricted graph builder's other node kinds, a byte
//! memset, a device copy, IF, IF/ELSE and SWITCH nodes with memsets in their bodies, an event
//! record and wait; launched in two bounded scopes. A strict program of the hang pass.

use crate::common::unexpected;
use crate::double::report_driver_version;
use custack::{Result, Stack};

/// The restricted graph builder's other node kinds (C28): a byte memset, a device copy, an IF,
/// an IF/ELSE and a SWITCH node whose bodies hold memsets, and a record of and a wait for an
/// event the init phase made, shared with the graph's payload (an `Rc<RestrictedEvent>`). The
/// graph is launched in two bounded scopes, after which the event is complete and the copy's
/// destination holds the memset's bytes; the nodes made, bodies' included, are the budget's.
pub(crate) fn safety_graph_nodes() -> Result<()> {
    use custack::safety::{Budget, Profile, Resource, RestrictedContext, WaitBound};
    use std::rc::Rc;
    const N: usize = 64;
    // Root: memset, copy, record, wait, IF, IF/ELSE, SWITCH (7); bodies: 1 + 2 + 3 memsets.
    const NODES: usize = 13;
    const BYTE: u8 = 0x5a;
    report_driver_version(13000)?;
    let profile = Profile::init(1)?;
    let budget = Budget::page_locked(N * size_of::<u32>())
        .waits(WaitBound::fail_stop(std::time::Duration::from_secs(1)))
        .device_bytes(4 * N * size_of::<u32>())
        .streams(1)
        .events(1)
        .graphs(1)
        .graph_nodes(NODES);
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = (|| -> Result<()> {
        let init = guard.init()?;
        let stream = init.stream()?;
        let mut out = init.alloc_pinned::<u32>(N)?;
        let payload = (
            (init.alloc::<u32>(N)?, init.alloc::<u32>(N)?),
            (init.alloc::<u32>(N)?, init.alloc::<u32>(N)?),
            Rc::new(init.event()?),
        );
        let mut graph = init.build_graph(
            &stream,
            payload,
            |g, ((mut src, mut dst), (mut a, mut b), done)| {
                let filled = g.fill_bytes(&mut src, BYTE, &[])?;
                let copied = g.copy_device(&mut dst, &src, &[filled])?;
                let recorded = g.record(&done, &[copied])?;
                let waited = g.wait(&done, &[recorded])?;
                let cond = g.condition(1, true)?;
                let then = g.if_then(cond, &[waited], |body| {
                    body.fill_u32(&mut a, 1, &[])?;
                    Ok(())
                })?;
                let cond = g.condition(0, true)?;
                let branched = g.if_else(cond, &[then], |yes, no| {
                    yes.fill_u32(&mut a, 2, &[])?;
                    no.fill_u32(&mut b, 3, &[])?;
                    Ok(())
                })?;
                let which = g.condition(2, true)?;
                g.switch(which, &[branched], 3, |n, case| {
                    case.fill_u32(&mut b, 10 + n, &[])?;
                    Ok(())
                })?;
                Ok(())
            },
        )?;
        let run = init.seal();
        for _ in 0..2 {
            out.fill(0);
            stream.scope(|s| -> Result<()> {
                let (g, ((_, dst), _, _)) = s.bind_graph(&mut graph);
                s.launch_graph(&g)?;
                s.copy_to_host(&mut out, &dst)
            })??;
            let want = u32::from_ne_bytes([BYTE; 4]);
            if let Some(i) = out.iter().position(|&v| v != want) {
                return Err(unexpected(&format!(
                    "safety_graph_nodes: element {i} of the copy is {:#x}, not {want:#x}",
                    out[i]
                )));
            }
            // The event the graph recorded, through the payload (read and access).
            let (_, _, done) = graph.payload();
            if !done.is_complete()? {
                return Err(unexpected(
                    "safety_graph_nodes: the graph's event is not complete",
                ));
            }
            let (_, _, done) = graph.payload_mut();
            done.synchronize()?;
        }
        run.synchronize()
    })();
    let shutdown = guard.shutdown();
    outcome?;
    shutdown?;
    for r in Resource::ALL {
        let stated = ctx.budget().stated(r);
        if ctx.used(r) != stated {
            return Err(unexpected(&format!(
                "safety_graph_nodes: {r:?}: {} used, {stated} expected",
                ctx.used(r)
            )));
        }
    }
    ctx.destroy()
}
