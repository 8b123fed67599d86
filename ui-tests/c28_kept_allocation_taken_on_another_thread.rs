//! C28.9 a kept allocation taken from another thread reached through `std::thread::scope`:
//! `GraphExec` is not `Sync` (its record of what each launch made is a `Cell`, and its
//! context is current on this thread only), so the scoped thread cannot borrow it.
//! Positive twin: `a_kept_graph_allocation_is_taken_after_each_launch_read_and_freed_then_launched_again`
//! in `tests/gpu_graph_build.rs`.
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
    std::thread::scope(|ts| {
        ts.spawn(|| exec.take_kept::<u32>(0).map(drop)); //~ ERROR E0277
    });
    Ok(())
}
