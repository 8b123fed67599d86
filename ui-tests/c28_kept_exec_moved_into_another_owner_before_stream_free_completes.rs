//! C28.12 an executable graph whose kept allocation a scope frees in stream order cannot be
//! moved into another owner (a `Box` pushed into a `Vec`, from where it could be launched or
//! dropped) before the scope has waited for the free: `free_kept` borrows it for `'scope`.
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
    let mut owners = Vec::new();
    stream.scope(|s| {
        s.free_kept(&exec, x)?;
        owners.push(Box::new(exec)); //~ ERROR E0505
        Ok::<(), custack::Error>(())
    })??;
    drop(owners);
    Ok(())
}
