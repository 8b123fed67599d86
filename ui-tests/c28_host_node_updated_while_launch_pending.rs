//! C28.11 host node updates: `update_nodes`, the only way to reach `set_host`, takes `&mut` on
//! the executable graph, so no host closure is replaced (and the old one dropped) while a
//! submission that launched the graph owns it: the pending launch may still call the old one.
//! Positive twin: `a_host_node_updated_in_place_calls_the_new_closure_which_the_exec_owns_and_drops_once`
//! in `tests/gpu_graph_exec.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let graph = guard.build_graph((), |b, ()| {
        b.host(|| {}, &[])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    let pending = stream.submit(exec, |s, g| s.launch_graph(&g))?;
    exec.update_nodes(|u, ()| u.set_host(u.host_node(0)?, || {}))?; //~ ERROR E0382
    let _exec = pending.wait()?;
    Ok(())
}
