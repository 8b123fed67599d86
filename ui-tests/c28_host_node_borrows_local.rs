//! C28.7 host nodes: a host node's closure (`GraphBuilder::host`) must be `'static`: the graph
//! owns it and calls it at every launch, long after the builder's closure (and what it owns) is
//! gone, so it cannot borrow a local of that closure.
//! Positive twin: `host_nodes_run_in_the_graph_s_order_once_per_launch_and_are_dropped_after_the_last_exec`
//! in `tests/gpu_graph_host.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use std::sync::atomic::{AtomicU32, Ordering};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let graph = guard.build_graph((), |b, ()| {
        let launches = AtomicU32::new(0);
        b.host(|| { launches.fetch_add(1, Ordering::Relaxed); }, &[])?; //~ ERROR E0373
        Ok(())
    })?;
    drop(graph);
    Ok(())
}
