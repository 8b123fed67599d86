//! C18 graphs: a host function captured into a graph (`StreamScope::graph_host_fn`) must be
//! `'static`: the graph calls it at every launch, long after the capture's closure (and what it
//! owns) is gone, so it cannot borrow a local of that closure.
//! Positive twin: `a_captured_host_function_runs_once_per_launch_and_is_dropped_after_the_last_exec` in `tests/gpu_graph_capture_forked.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let graph = stream.capture((), |s, ()| {
        let mut launches = 0u32;
        s.graph_host_fn(|| launches += 1) //~ ERROR E0373
    })?;
    drop(graph);
    Ok(())
}
