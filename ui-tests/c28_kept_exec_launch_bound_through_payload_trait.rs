//! C28.9 an executable graph that keeps allocations bound for a launch through the `Payload`
//! trait's own method, callable by name from safe code: `Payload::bind` is an `unsafe fn`
//! (the caller promises the exclusive borrow a scope's `bind_graph` proves), so binding it
//! outside a scope, to launch it while a taken buffer lives or after a free, needs `unsafe`.
//! Positive twin: `a_kept_graph_allocation_is_taken_after_each_launch_read_and_freed_then_launched_again`
//! in `tests/gpu_graph_build.rs`.
use custack::Payload;
use custack::graph::GraphExec;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let graph = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc_kept::<u32>(4, &[])?;
        b.fill_u32(&mut x, 7, &[made])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    stream.scope(|s| {
        let g = <GraphExec<'_, ()> as Payload>::bind(&mut exec); //~ ERROR E0133
        s.launch_graph(&g)
    })??;
    Ok(())
}
