//! C18 graphs: a host function captured into a graph (`StreamScope::graph_host_fn`) must be
//! `Send`: the driver calls it on a thread of its own at each launch, and drops it there when
//! the last executable graph goes; an `Rc` would be shared across threads without atomics.
//! Positive twin: `a_captured_host_function_runs_once_per_launch_and_is_dropped_after_the_last_exec` in `tests/gpu_graph_capture_forked.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use std::rc::Rc;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let graph = stream.capture((), |s, ()| {
        let count = Rc::new(0u32);
        s.graph_host_fn(move || drop(Rc::clone(&count))) //~ ERROR E0277
    })?;
    drop(graph);
    Ok(())
}
