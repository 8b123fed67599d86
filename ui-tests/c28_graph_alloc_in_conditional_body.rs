//! C28.8 graph allocations: allocation and free nodes are methods of the root graph's builder
//! (`GraphBuilder<'b, RootGraph>`) only; a conditional node's body, built through a
//! `GraphBuilder<'b, BodyGraph<'c>>`, has none (the driver takes no memory node in a body).
//! Positive twin: `a_built_graph_allocates_fills_adds_copies_and_frees_its_own_memory_at_each_launch`
//! in `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _g = guard.build_graph((), |b, ()| {
        let cond = b.condition(1, true)?;
        b.if_then(cond, &[], |then| {
            let (_made, x) = then.alloc::<u32>(4, &[])?; //~ ERROR E0599
            then.free(x, &[])?;
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(())
}
