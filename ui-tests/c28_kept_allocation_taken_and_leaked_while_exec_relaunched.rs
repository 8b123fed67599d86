//! C28.9 a taken kept allocation leaked (`Box::leak`), to outlive its executable graph's borrow
//! while the graph is launched again: the leaked reference still carries the buffer's borrow of
//! the executable graph (leaked for `'static`, it borrows the graph for ever), so the relaunch's
//! `&mut` borrow is refused; moved into a `Box`, `Vec`, `Rc` or a struct, the borrow goes along.
//! Positive twin: `a_kept_graph_allocation_is_taken_after_each_launch_read_and_freed_then_launched_again`
//! in `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};

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
    let leaked = Box::leak(Box::new(exec.take_kept::<u32>(0)?));
    stream.scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))??; //~ ERROR E0502
    let _ = leaked.to_vec()?;
    Ok(())
}
