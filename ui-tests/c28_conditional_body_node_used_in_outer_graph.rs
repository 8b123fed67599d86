//! C28.2 conditional nodes: a body's builder has a brand of its own (`BodyGraph<'c>`, `'c`
//! invariant and chosen anew for each body), so a node of a conditional node's body cannot
//! leave the body's closure, nor be a dependency in the graph around the node.
//! Positive twin: `a_while_node_runs_its_body_until_a_kernel_clears_the_condition_and_not_at_all_from_zero`
//! in `tests/gpu_graph_conditional.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _g = guard.build_graph(guard.alloc::<u32>(4)?, |b, mut x| {
        let cond = b.condition(1, true)?;
        let mut inner = Vec::new();
        b.while_loop(cond, &[], |body| {
            inner.push(body.fill_u32(&mut x, 1, &[])?);
            Ok(())
        })?;
        b.fill_u32(&mut x, 2, &inner)?; //~ ERROR E0308
        Ok(())
    })?;
    Ok(())
}
