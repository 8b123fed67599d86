//! The program `graph_host` (C28): host nodes of graphs built node by node
//! (`GraphBuilder::host`).

use crate::common::{N, Unwind};
use custack::graph::{Graph, InstantiateFlags};
use custack::{Context, DeviceBuffer, PushedGuard, Result, Stack};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

/// Counts its drops: a host node's closure holds one, so a test sees the closure dropped.
struct Token(Arc<AtomicU32>);

impl Drop for Token {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A graph of a memset, then a host node that adds `k` to `calls` (and panics if `panics`).
fn build<'g>(
    guard: &'g PushedGuard<'_, '_>,
    k: u32,
    panics: bool,
    calls: &Arc<AtomicU32>,
    drops: &Arc<AtomicU32>,
) -> Result<Graph<'g, DeviceBuffer<'g, u32>>> {
    let (calls, token) = (Arc::clone(calls), Token(Arc::clone(drops)));
    guard.build_graph(guard.alloc::<u32>(N)?, move |b, mut x| {
        let set = b.fill_u32(&mut x, k, &[])?;
        b.host(
            move || {
                let _ = &token;
                calls.fetch_add(k, SeqCst);
                if panics {
                    std::panic::panic_any(Unwind);
                }
            },
            &[set],
        )?;
        Ok(())
    })
}

/// Host nodes (C28): a built graph's host node runs once per launch of a shared executable
/// graph and of the executable graph made from it; an update from another graph runs the new
/// graph's closure; every closure is dropped once everything that could call it is gone; a
/// panicking host node is reported by the next wait of its context, as `HostFunctionPanicked`.
pub(crate) fn graph_host(ctx: &Context) -> Result<()> {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<Unwind>() {
            quiet(info);
        }
    }));
    let (calls, drops) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let graph = build(&guard, 1, false, &calls, &drops)?;
    {
        let shared = graph.instantiate_shared(InstantiateFlags::empty())?;
        stream.scope(|s| {
            let g = s.bind_shared(&shared);
            s.launch_graph(&g)
        })??;
    }
    let mut exec = graph.instantiate()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    assert_eq!(calls.load(SeqCst), 2, "one call per launch");
    let old = exec
        .update(build(&guard, 10, false, &calls, &drops)?)
        .map_err(custack::graph::UpdateError::into_error)?;
    drop(old);
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    assert_eq!(
        calls.load(SeqCst),
        12,
        "the updated node calls the new closure"
    );
    drop(exec);

    let mut exec = build(&guard, 100, true, &calls, &drops)?.instantiate()?;
    let launched = stream.scope(|s| {
        let g = s.bind_graph(&mut exec);
        s.launch_graph(&g)
    });
    match launched {
        Err(e) if e.kind() == custack::ErrorKind::HostFunctionPanicked => {}
        Err(e) => return Err(e),
        Ok(r) => {
            r?;
            panic!("a host node's panic was not reported by the scope's wait");
        }
    }
    assert_eq!(calls.load(SeqCst), 112, "the panicking node ran once");
    drop(exec);

    // A closure an update gave a host node goes with the executable graph when it parks, and
    // is dropped once the parked graph is destroyed (leaked before: the parked form kept no
    // record of it).
    let mut exec = build(&guard, 1000, false, &calls, &drops)?.instantiate()?;
    let (given, token) = (Arc::clone(&calls), Token(Arc::clone(&drops)));
    exec.update_nodes(move |u, _| {
        u.set_host(u.host_node(0)?, move || {
            let _ = &token;
            given.fetch_add(10_000, SeqCst);
        })
    })?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    assert_eq!(calls.load(SeqCst), 10_112, "the given closure ran");
    drop(guard.park_graph(exec));
    stream.synchronize()?;
    // Every closure dropped (under the double at once; the driver's destructors may run
    // later), unless a destroy failed and left its graph behind: the four builds' and the
    // given one.
    match custack::take_drop_errors().into_iter().next() {
        None => assert_eq!(drops.load(SeqCst), 5, "each closure dropped once"),
        Some(e) => return Err(e),
    }
    replaced_on_this_thread(&guard, &calls, &drops, ctx)
}

/// Makes (and destroys) a context when dropped, keeping what that answered.
struct MakesAContext(custack::Device, Arc<std::sync::Mutex<Option<Result<()>>>>);

impl Drop for MakesAContext {
    fn drop(&mut self) {
        let made = Context::new(self.0, custack::ContextFlags::empty()).map(drop);
        *self
            .1
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(made);
    }
}

/// A closure an update replaces is dropped on the program's thread, not the driver's: what its
/// drop does (here make a context and destroy it) reaches the driver as anywhere in the
/// program, not refused as inside a driver callback (where custack makes no call). A closure
/// whose update failed is leaked (its drop never runs), so nothing here is left behind.
fn replaced_on_this_thread(
    guard: &PushedGuard<'_, '_>,
    calls: &Arc<AtomicU32>,
    drops: &Arc<AtomicU32>,
    ctx: &Context,
) -> Result<()> {
    let mut exec = build(guard, 1, false, calls, drops)?.instantiate()?;
    let answer = Arc::new(std::sync::Mutex::new(None));
    let probe = MakesAContext(ctx.device(), Arc::clone(&answer));
    exec.update_nodes(move |u, _| {
        u.set_host(u.host_node(0)?, move || {
            let _ = &probe;
        })
    })?;
    exec.update_nodes(|u, _| u.set_host(u.host_node(0)?, || {}))?;
    let answer = answer
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    match answer {
        Some(made) => made,
        None => Err(crate::common::unexpected(
            "the replaced closure was not dropped by the update",
        )),
    }
}
