//! C28.1 explicit graphs: a graph built by hand writes only memory its payload owns, so a buffer
//! its nodes write cannot be freed while an executable graph made from it can be launched. The
//! builder's closure is `'static`: it cannot reach memory borrowed around it, here a buffer
//! bound to an open scope, which the host frees once the scope ends.
//! Positive twin: `a_built_graph_of_memset_kernel_and_copy_runs_twice` in
//! `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut x = guard.alloc::<u32>(1024)?;
    let exec = stream.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        let graph = guard.build_graph((), move |b, ()| {
            b.fill_u32(&mut dx, 7, &[])?; //~ ERROR
            Ok(())
        })?;
        graph.instantiate()
    })??;
    x.free()?;
    stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    Ok(())
}
