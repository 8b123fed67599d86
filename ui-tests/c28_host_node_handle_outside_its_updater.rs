//! C28.11 node handles: a `HostNode<'u>` (as `ChildNode`, `RecordNode` and `WaitNode`) is
//! branded by its update's invariant `'u`, lent for any `'u` (`for<'u>`): it cannot leave the
//! update's closure, so it is never used by a later update of another executable graph, nor
//! after the node it names is gone.
//! Positive twin: `a_host_node_updated_in_place_calls_the_new_closure_which_the_exec_owns_and_drops_once`
//! in `tests/gpu_graph_exec.rs`.
use custack::graph::HostNode;
use custack::{Context, ContextFlags, Driver, Stack};
use std::cell::Cell;

thread_local! {
    static KEPT: Cell<Option<HostNode<'static>>> = const { Cell::new(None) };
}

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
        let node = u.host_node(0)?;
        KEPT.with(|k| k.set(Some(node))); //~ ERROR E0521
        Ok(())
    })?;
    Ok(())
}
