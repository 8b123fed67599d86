//! C28.9 a kept allocation taken while a scope that launched its executable graph is still
//! open: `bind_graph_and_payload` borrows the executable graph exclusively for `'scope`, and
//! `take_kept` needs `&self`, so no take reaches memory that a launch still pending makes.
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
    stream.scope(|s| {
        let (g, ()) = s.bind_graph_and_payload(&mut exec);
        s.launch_graph(&g)?;
        let x = exec.take_kept::<u32>(0)?; //~ ERROR E0502
        drop(x);
        Ok::<(), custack::Error>(())
    })??;
    Ok(())
}
