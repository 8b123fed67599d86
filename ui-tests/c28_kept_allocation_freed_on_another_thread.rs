//! C28.12 a kept allocation freed from another thread: the taken buffer is not `Send`, so it
//! cannot reach a thread where its context is not current, to be freed there (by a scope's
//! `free_kept` or by its drop).
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
    let x = exec.take_kept::<u32>(0)?;
    std::thread::scope(|t| {
        t.spawn(move || drop(x)); //~ ERROR E0277
    });
    Ok(())
}
