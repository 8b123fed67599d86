//! Hint (C18 graphs): an executable graph is launched bound, moved into a submission or bound to
//! the scope, so that the launch keeps it and the memory it owns until the work is complete;
//! passing a reference to the `GraphExec` itself fails, and the message says how to bind it.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let graph = stream.capture(guard.alloc::<u32>(256)?, |s, mut dev| s.fill_u32(&mut dev, 7))?;
    let exec = graph.instantiate()?;
    stream.scope(|s| s.launch_graph(&exec))??; //~ ERROR E0277
    Ok(())
}
