//! C28.12 a kept allocation freed in stream order under another context: the executable graph
//! and its taken buffer borrow their guard, so no scope of a context pushed on top of it can
//! free the memory (a stream of one context freeing another's).
//! Positive twin: `a_kept_allocation_freed_in_stream_order_by_each_route_lets_the_graph_launch_again`
//! in `tests/gpu_graph_kept_free.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let (a, b) = (Context::new(device, ContextFlags::empty())?, Context::new(device, ContextFlags::empty())?);
    let mut stack = Stack::new()?;
    let mut guard = stack.push(&a)?;
    let graph = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc_kept::<u32>(4, &[])?;
        b.fill_u32(&mut x, 7, &[made])?;
        Ok(())
    })?;
    let exec = graph.instantiate()?;
    let x = exec.take_kept::<u32>(0)?;
    guard.with_pushed(&b, |inner| { //~ ERROR E0502
        let other = inner.stream()?;
        other.scope(|s| s.free_kept(&exec, x))?
    })??;
    Ok(())
}
