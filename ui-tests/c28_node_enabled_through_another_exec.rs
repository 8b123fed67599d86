//! C28.5 enabling and disabling nodes: a node `set_enabled` takes is branded by its update's
//! lifetime, invariant and chosen anew for each update, so a memcpy node of one executable
//! graph cannot leave its update's closure to be disabled through another executable graph's.
//! Positive twin: `a_disabled_kernel_node_does_not_run_and_runs_its_kept_parameters_once_enabled_again`
//! in `tests/gpu_graph_build.rs`.
use custack::graph::CopyNode;
use custack::{Context, ContextFlags, Driver, Stack};
use std::cell::Cell;
use std::rc::Rc;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut execs = Vec::new();
    for _ in 0..2 {
        let payload = (guard.alloc::<u32>(4)?, vec![0u32; 4]);
        let graph = guard.build_graph(payload, |b, (x, out)| {
            b.copy_to_host(out, &x, &[])?;
            Ok(())
        })?;
        execs.push(graph.instantiate()?);
    }
    let smuggled: Rc<Cell<Option<CopyNode<'static>>>> = Rc::default();
    let out = Rc::clone(&smuggled);
    execs[0].update_nodes(move |u, _| {
        out.set(Some(u.copy_node(0)?)); //~ ERROR
        Ok(())
    })?;
    execs[1].update_nodes(move |u, _| {
        let Some(of_a) = smuggled.get() else { return Ok(()) }; //~ ERROR
        u.set_enabled(of_a, false)
    })?;
    Ok(())
}
