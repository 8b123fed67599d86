//! C28.2 conditional nodes: a `ConditionalHandle<'b>` is branded with its graph's invariant
//! lifetime, so it cannot leave the builder's closure: it cannot outlive the graph, nor reach
//! a launch outside it (a stream scope's, after the graph is gone), where
//! `cudaGraphSetConditional` would name a condition of no running graph.
//! Positive twin: `a_while_node_iterates_jacobi_on_the_gpu_until_the_change_is_small_as_the_cpu_does`
//! in `tests/gpu_graph_conditional.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use custack::graph::ConditionalHandle;
use std::cell::Cell;
use std::rc::Rc;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let smuggled: Rc<Cell<Option<ConditionalHandle<'static>>>> = Rc::default();
    let out = Rc::clone(&smuggled);
    let graph = guard.build_graph(guard.alloc::<u32>(4)?, move |b, mut x| {
        let cond = b.condition(1, true)?;
        out.set(Some(cond.handle())); //~ ERROR
        b.while_loop(cond, &[], |body| body.fill_u32(&mut x, 1, &[]).map(drop))?;
        Ok(())
    })?;
    drop(graph);
    let _kept = smuggled.get().is_some();
    Ok(())
}
