//! C28.9 an executable graph moved by value into a submission (to launch it again) while a
//! buffer taken from it lives: the buffer borrows the executable graph, so the move is a borrow
//! error (the driver refuses the relaunch too, while the memory is unfreed).
//! Positive twin: `a_kept_graph_allocation_is_taken_after_each_launch_read_and_freed_then_launched_again`
//! in `tests/gpu_graph_build.rs`.
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
    let x = exec.take_kept::<u32>(0)?;
    let relaunched = stream.submit(exec, |s, g| s.launch_graph(&g))?; //~ ERROR E0505
    let _ = x.to_vec()?;
    drop(relaunched);
    Ok(())
}
