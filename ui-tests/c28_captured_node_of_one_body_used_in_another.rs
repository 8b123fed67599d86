//! C28.3 capture into a graph being built: what `GraphBuilder::capture` captures into a
//! conditional node's body is joined in a `GraphNode<'b, BodyGraph<'c>>` of that body's brand,
//! so a node captured into one body of an IF/ELSE node is no dependency of the other body's
//! capture (each body has its own invariant `'c`).
//! Positive twin: `a_while_node_whose_body_is_captured_from_stream_work_runs_jacobi_as_the_cpu_does`
//! in `tests/gpu_graph_capture_into.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _g = guard.build_graph(guard.alloc::<u32>(4)?, |b, mut x| {
        let cond = b.condition(1, true)?;
        b.if_else(cond, &[], |then, otherwise| {
            let filled = then.capture(&[], |s| s.fill_u32(&mut x, 1))?;
            otherwise.capture(&[filled], |s| s.fill_u32(&mut x, 2))?; //~ ERROR
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(())
}
