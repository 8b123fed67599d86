//! C28.7 host nodes: a host node's closure (`GraphBuilder::host`) must be `Sync`: the driver
//! calls it on a thread of its own at each launch, and two executable graphs of one graph (made
//! by `instantiate_shared`, or from a clone) may call it at once; a `Cell` counter would be
//! written from two threads without synchronization.
//! Positive twin: `host_nodes_run_in_the_graph_s_order_once_per_launch_and_are_dropped_after_the_last_exec`
//! in `tests/gpu_graph_host.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use std::cell::Cell;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let graph = guard.build_graph((), |b, ()| {
        let launches = Cell::new(0u32);
        b.host(move || launches.set(launches.get() + 1), &[])?; //~ ERROR E0277
        Ok(())
    })?;
    drop(graph);
    Ok(())
}
