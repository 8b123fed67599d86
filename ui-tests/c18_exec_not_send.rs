//! C18 graphs: an executable graph stays on its guard's thread.
//! Positive twin: `a_captured_graph_runs_again_and_again_on_the_memory_it_owns` in
//! `tests/gpu_graph.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let exec = stream.capture(vec![0u32; 4], |_s, _host| Ok(()))?.instantiate()?;
    std::thread::scope(|t| {
        t.spawn(move || drop(exec)); //~ ERROR E0277
    });
    Ok(())
}
