//! C28.8 graph allocations: a `GraphAlloc<'b, T>` is branded by its builder's lifetime, which is
//! invariant and chosen anew for each graph, so the memory of one graph's allocation node
//! cannot be used by a node of another graph (where it does not exist), nor kept past the build.
//! Positive twin: `a_built_graph_allocates_fills_adds_copies_and_frees_its_own_memory_at_each_launch`
//! in `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use custack::graph::GraphAlloc;
use std::cell::RefCell;
use std::rc::Rc;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let smuggled: Rc<RefCell<Option<GraphAlloc<'static, u32>>>> = Rc::default();
    let out = Rc::clone(&smuggled);
    let _a = guard.build_graph((), move |b, ()| {
        let (_made, x) = b.alloc::<u32>(4, &[])?;
        *out.borrow_mut() = Some(x); //~ ERROR
        Ok(())
    })?;
    let _b = guard.build_graph((), move |b, ()| {
        if let Some(mut x) = smuggled.borrow_mut().take() {
            b.fill_u32(&mut x, 2, &[])?; //~ ERROR
        }
        Ok(())
    })?;
    Ok(())
}
