//! C28.12 a kept allocation freed in stream order under an executable graph that lives only
//! inside the scope's closure: `free_kept` takes `&'scope GraphExec`, and a shorter borrow
//! cannot stand in for it (`'scope` is invariant), so the executable graph outlives the scope's
//! wait for the free and cannot be relaunched or dropped before it.
//! Positive twin: `a_kept_allocation_freed_in_stream_order_by_each_route_lets_the_graph_launch_again`
//! in `tests/gpu_graph_kept_free.rs`.
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
    stream.scope(move |s| {
        let exec = graph.instantiate()?;
        let x = exec.take_kept::<u32>(0)?;
        s.free_kept(&exec, x) //~ ERROR E0597
    })??;
    Ok(())
}
