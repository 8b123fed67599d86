//! C28.2 conditional nodes: a node of the graph around a conditional node is a
//! `GraphNode<'b, RootGraph>`, a dependency in a body takes a `GraphNode<'b, BodyGraph<'c>>`:
//! a node of the outer graph cannot be a dependency inside a body (the body runs after the
//! conditional node's own dependencies, which the node names).
//! Positive twin: `an_if_node_runs_its_body_only_when_a_kernel_set_its_condition` in
//! `tests/gpu_graph_conditional.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _g = guard.build_graph(guard.alloc::<u32>(4)?, |b, mut x| {
        let set = b.fill_u32(&mut x, 1, &[])?;
        let cond = b.condition(1, true)?;
        b.if_then(cond, &[], |then| {
            then.fill_u32(&mut x, 2, &[set])?; //~ ERROR E0308
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(())
}
