//! C28.1 explicit graphs: a node is branded by its builder's lifetime, which is invariant and
//! chosen anew for each graph, so a node cannot leave its builder's closure, and a node of one
//! graph cannot be a dependency in another.
//! Positive twin: `a_built_graph_of_memset_kernel_and_copy_runs_twice` in
//! `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use custack::graph::GraphNode;
use std::cell::Cell;
use std::rc::Rc;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let smuggled: Rc<Cell<Option<GraphNode<'static>>>> = Rc::default();
    let out = Rc::clone(&smuggled);
    let _a = guard.build_graph(guard.alloc::<u32>(4)?, move |b, mut x| {
        out.set(Some(b.fill_u32(&mut x, 1, &[])?)); //~ ERROR
        Ok(())
    })?;
    let _b = guard.build_graph(guard.alloc::<u32>(4)?, move |b, mut y| {
        let of_a = smuggled.get().into_iter().collect::<Vec<_>>(); //~ ERROR
        b.fill_u32(&mut y, 2, &of_a)?;
        Ok(())
    })?;
    Ok(())
}
