//! C28.12 a kept allocation freed in stream order inside a submission, which can be parked or
//! leaked with the free still pending: `free_kept` borrows the executable graph for the scope's
//! `'scope`, which a submission's closure holds for every lifetime, so only an executable graph
//! borrowed for ever (`&'static`, never launched again) could be named there.
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
    let mut exec = graph.instantiate()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    // Parked and attached again: the buffer no longer borrows the executable graph.
    let x = guard.attach(guard.park(exec.take_kept::<u32>(0)?))?;
    let pending = stream.submit((), |s, ()| s.free_kept(&exec, x))?; //~ ERROR E0597
    // Leaked with the free pending: the executable graph would be free to launch again.
    core::mem::forget(pending);
    Ok(())
}
