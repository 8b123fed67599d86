//! C28.13 a kept allocation's view (`GraphExec::kept_view`) alive while a scope launches the
//! executable graph again, which would make the memory anew under the view: the view borrows
//! the executable graph exclusively, so `bind_graph(&mut exec)` is a second mutable borrow.
//! Positive twin: `a_kept_allocation_s_address_is_known_after_the_build_and_its_view_reads_it_before_the_take`
//! in `tests/gpu_graph_kept_free.rs`.
use custack::DeviceMemory;
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
    let view = exec.kept_view::<u32>(0)?;
    stream.scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))??; //~ ERROR E0499
    let _ = view.to_vec()?;
    Ok(())
}
