//! C28.12 a kept allocation bound to a scope for its stream-ordered free (`bind_kept`) cannot
//! be smuggled out of the scope through a `Cell` the closure borrows: the `ScopedAlloc<'scope, T>`
//! is invariant in the scope's lifetime, which no outer place can name, so it cannot outlive
//! the scope's wait (and its free could not be ordered before a relaunch of the graph).
//! Positive twin: `a_kept_allocation_freed_in_stream_order_by_each_route_lets_the_graph_launch_again`
//! in `tests/gpu_graph_kept_free.rs`.
use core::cell::Cell;
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
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let x = exec.take_kept::<u32>(0)?;
    let out = Cell::new(None);
    stream.scope(|s| {
        out.set(Some(s.bind_kept(&exec, x)?)); //~ ERROR E0521
        Ok::<(), custack::Error>(())
    })??;
    drop(out);
    Ok(())
}
