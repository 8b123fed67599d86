//! C18 graphs: a graph can use only what it owns: device memory borrowed from outside cannot be
//! bound during capture (the graph may be launched long after the borrow ends).
//! Positive twin: `a_captured_graph_runs_again_and_again_on_the_memory_it_owns` in
//! `tests/gpu_graph.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(4)?;
    let graph = stream.capture(vec![0u32; 4], |s, host| {
        s.copy_to_host(host, s.bind(&dev)) //~ ERROR E0597
    })?;
    drop(graph);
    Ok(())
}
