//! C28.11 host node updates: the closure `set_host` takes is `'static`, as
//! `GraphBuilder::host`'s: the driver calls it at launches long after the update's closure
//! returned, so it cannot borrow a local of that closure (nor anything the program may free).
//! Positive twin: `a_host_node_updated_in_place_calls_the_new_closure_which_the_exec_owns_and_drops_once`
//! in `tests/gpu_graph_exec.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let graph = guard.build_graph((), |b, ()| {
        b.host(|| {}, &[])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    exec.update_nodes(|u, ()| {
        let calls = std::sync::atomic::AtomicU32::new(0);
        u.set_host(u.host_node(0)?, || { //~ ERROR E0373
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
    })?;
    Ok(())
}
