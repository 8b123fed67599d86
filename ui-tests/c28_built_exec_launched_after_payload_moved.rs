//! C28.1 explicit graphs: the payload moves into the graph it was built over, then into the
//! executable graph, so it cannot be moved away (and freed) while that executable graph can
//! still be launched.
//! Positive twin: `a_built_graph_of_memset_kernel_and_copy_runs_twice` in
//! `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let x = guard.alloc::<u32>(1024)?;
    let graph = guard.build_graph(x, |b, mut dx| {
        b.fill_u32(&mut dx, 7, &[])?;
        Ok(())
    })?;
    let exec = graph.instantiate()?;
    let moved = x; //~ ERROR E0382
    moved.free()?;
    stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    Ok(())
}
