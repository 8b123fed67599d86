//! The program `safety_graph` (P14, C27, C28, R22, R23; the double reporting 13.0): a graph built
//! node by node under the restricted profile, with a WHILE node, from a cubin whose one undefined
//! symbol is `cudaGraphSetConditional`; a build past the budget refused; the graph launched in
//! three bounded scopes, its root kernel node updated between them. A strict program of the hang
//! pass.

use crate::common::unexpected;
use crate::double::report_driver_version;
use crate::kernels::JACOBI_DECLARATIONS;
use crate::{cubin, differential};
use custack::{LaunchConfig, Result, Stack};

custack::kernel_contract! {
    /// `jacobi_step(const float* b, const float* x, float* y, unsigned* diff, unsigned n)`
    /// (`tests/fixtures/conditional.cu`).
    unsafe kernel JacobiStep = "jacobi_step"(
        b: &[f32; n], x: &[f32; n], y: &mut [f32; n], diff: &mut [u32; 1], n: u32,
    );
    /// `jacobi_check(handle cond, unsigned* diff, unsigned* iters, float tol, unsigned max)`.
    unsafe kernel JacobiCheck = "jacobi_check"(
        cond: conditional, diff: &mut [u32; 1], iters: &mut [u32; 1], tol: f32, max_iters: u32,
    );
}

/// A graph built node by node under the restricted profile (P14, C27, C28), the double
/// reporting 13.0: a cubin whose one undefined symbol is `cudaGraphSetConditional` loads (one
/// that also references `cudaGraphLaunch` is refused before any driver call); the init phase
/// builds a graph with a WHILE node (memsets, the body's three kernel nodes, a root kernel node),
/// instantiates and uploads it, then a second build past the budget's graph nodes is refused
/// (the graph destroyed, its payload dropped); the run phase launches the graph in three bounded
/// scopes, updates its root kernel node between them (an update past a buffer's extent and a
/// node the graph does not have are refused), and ends; the init phase's figures equal the
/// budget's, the body's nodes counted.
#[allow(
    clippy::too_many_lines,
    reason = "a checking scenario, its steps read top to bottom"
)]
pub(crate) fn safety_graph() -> Result<()> {
    use custack::ErrorKind;
    use custack::safety::{Budget, Profile, Resource, RestrictedContext, WaitBound};
    const N: usize = 64;
    const N32: u32 = N as u32;
    const NODES: usize = 7;
    report_driver_version(13000)?;
    let profile = Profile::init(1)?;
    let image = differential::conditional_cubin();
    let launching = cubin::stand_in_cubin(
        &["jacobi_step", "jacobi_check"],
        &["cudaGraphSetConditional", "cudaGraphLaunch"],
        JACOBI_DECLARATIONS,
    );
    let f32s = N * size_of::<f32>();
    let budget = Budget::page_locked(f32s)
        .waits(WaitBound::fail_stop(std::time::Duration::from_secs(1)))
        .device_bytes(4 * f32s + 3 * size_of::<u32>())
        .streams(1)
        .modules(1)
        .kernels(2)
        .graphs(2)
        .graph_nodes(NODES);
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = (|| -> Result<()> {
        let init = guard.init()?;
        // SAFETY: a well-formed cubin the double's builder made, for the double only.
        match unsafe { init.load_cubin(&launching) } {
            Err(e) if e.kind() == ErrorKind::OutsideProfile => {}
            Err(e) => return Err(e),
            Ok(_) => return Err(unexpected("a cubin referencing cudaGraphLaunch was loaded")),
        }
        // SAFETY: a complete cubin (`differential::conditional_cubin`'s), whose kernels honour
        // their contracts (the double runs none; on a GPU, tests/fixtures/conditional.cu's).
        let module = unsafe { init.load_cubin(&image) }?;
        let step = init.kernel::<JacobiStep>(&module)?;
        let check = init.kernel::<JacobiCheck>(&module)?;
        let stream = init.stream()?;
        let mut out = init.alloc_pinned::<f32>(N)?;
        let payload = (
            (init.alloc::<f32>(N)?, init.alloc::<f32>(N)?),
            (init.alloc::<f32>(N)?, init.alloc::<f32>(N)?),
            (init.alloc::<u32>(1)?, init.alloc::<u32>(1)?),
            (step, check),
        );
        let cfg = LaunchConfig::for_elements(N32);
        let mut graph = init.build_graph(
            &stream,
            payload,
            move |g, ((b, b2), (mut x, mut y), (mut diff, mut iters), (step, check))| {
                let clear = [g.fill_u32(&mut x, 0, &[])?, g.fill_u32(&mut iters, 0, &[])?];
                let cond = g.condition(1, true)?;
                let handle = cond.handle();
                let one = LaunchConfig::for_elements(1);
                let looped = g.while_loop(cond, &clear, |body| {
                    let a = body.kernel(&step, cfg, (&b, &x, &mut y, &mut diff, N32), &[])?;
                    let c = body.kernel(&step, cfg, (&b2, &y, &mut x, &mut diff, N32), &[a])?;
                    body.kernel(&check, one, (handle, &mut diff, &mut iters, 1e-6, 8), &[c])?;
                    Ok(())
                })?;
                g.kernel(&step, cfg, (&b, &x, &mut y, &mut diff, N32), &[looped])?;
                Ok(())
            },
        )?;
        // The graph nodes are spent: a second build is destroyed before instantiation.
        match init.build_graph(&stream, init.alloc::<u32>(1)?, |g, mut x| {
            g.fill_u32(&mut x, 0, &[])?;
            Ok(())
        }) {
            Err(e) if e.kind() == ErrorKind::OutsideProfile => {}
            Err(e) => return Err(e),
            Ok(_) => {
                return Err(unexpected(
                    "a graph past the budget's graph nodes was built",
                ));
            }
        }
        let run = init.seal();
        for frame in 0..3 {
            if frame == 1 {
                graph.update_kernels(
                    move |u, ((_, b2), (x, mut y), (mut diff, _), (step, _))| {
                        let node = u.kernel_node(&step, 0)?;
                        u.set_kernel(node, cfg, (&b2, &x, &mut y, &mut diff, N32))
                    },
                )?;
                // Past the buffers' extent: refused by the contract, the node unchanged.
                let past = graph.update_kernels(
                    move |u, ((b, _), (x, mut y), (mut diff, _), (step, _))| {
                        let node = u.kernel_node(&step, 0)?;
                        let wide = LaunchConfig::for_elements(2 * N32);
                        u.set_kernel(node, wide, (&b, &x, &mut y, &mut diff, 2 * N32))
                    },
                );
                match past {
                    Err(e) if e.kind() == ErrorKind::BufferTooShort => {}
                    Err(e) => return Err(e),
                    Ok(()) => return Err(unexpected("an update past a buffer's extent was made")),
                }
                // The body's kernel nodes are not lent: the root has one node of `step`.
                let second = graph
                    .update_kernels(|u, (_, _, _, (step, _))| u.kernel_node(&step, 1).map(drop));
                match second {
                    Err(e) if e.kind() == ErrorKind::InvalidValue => {}
                    Err(e) => return Err(e),
                    Ok(()) => return Err(unexpected("a body's kernel node was lent for update")),
                }
            }
            stream.scope(|s| -> Result<()> {
                let (g, (_, (x, _), _, _)) = s.bind_graph(&mut graph);
                s.launch_graph(&g)?;
                s.copy_to_host(&mut out, &x)
            })??;
        }
        run.synchronize()
    })();
    let shutdown = guard.shutdown();
    outcome?;
    shutdown?;
    // One graph kept (the refused one gave its figure back), and the nodes the budget states.
    for r in Resource::ALL {
        let stated = if r == Resource::Graphs {
            1
        } else {
            ctx.budget().stated(r)
        };
        if ctx.used(r) != stated {
            return Err(unexpected(&format!(
                "safety_graph: {r:?}: {} used, {stated} expected",
                ctx.used(r)
            )));
        }
    }
    ctx.destroy()
}
