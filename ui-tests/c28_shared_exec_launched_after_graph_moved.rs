//! C28.4 graphs that survive instantiation: an executable graph made by `instantiate_shared`
//! borrows the graph whose payload its nodes use, so the graph cannot be moved away (into
//! another owner that may free it) while that executable graph can still be launched.
//! Positive twin: `two_shared_execs_and_a_clone_run_over_one_graph_s_payload_which_survives_them`
//! in `tests/gpu_graph_exec.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use custack::graph::InstantiateFlags;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let graph = guard.build_graph(guard.alloc::<u32>(1024)?, |b, mut dx| {
        b.fill_u32(&mut dx, 7, &[])?;
        Ok(())
    })?;
    let clone = graph.clone_graph()?;
    let exec = clone.instantiate_shared(InstantiateFlags::empty())?;
    drop(clone);
    let owned = graph.instantiate()?; //~ ERROR E0505
    stream.scope(|s| s.launch_graph(&s.bind_shared(&exec)))??;
    drop(owned);
    Ok(())
}
