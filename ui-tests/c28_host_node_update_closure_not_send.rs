//! C28.11 host node updates: the driver calls a host node's closure on its own thread, so the
//! closure `set_host` takes is `Send + Sync`, as `GraphBuilder::host`'s: one holding an `Rc`
//! is refused.
//! Positive twin: `a_host_node_updated_in_place_calls_the_new_closure_which_the_exec_owns_and_drops_once`
//! in `tests/gpu_graph_exec.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use std::rc::Rc;

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
        let shared = Rc::new(0u32);
        u.set_host(u.host_node(0)?, move || { //~ ERROR E0277
            let _ = *shared;
        })
    })?;
    Ok(())
}
