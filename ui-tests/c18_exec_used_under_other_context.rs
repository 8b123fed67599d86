//! C18 graphs: an executable graph cannot be launched (or used at all) while another context is
//! pushed on top of its guard.
//! Positive twin: `a_captured_graph_runs_again_and_again_on_the_memory_it_owns` in
//! `tests/gpu_graph.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let (a, b) = (Context::new(device, ContextFlags::empty())?, Context::new(device, ContextFlags::empty())?);
    let mut stack = Stack::new()?;
    let mut guard = stack.push(&a)?;
    let stream = guard.stream()?;
    let graph = stream.capture(vec![0u32; 4], |_s, _host| Ok(()))?;
    let exec = graph.instantiate()?;
    guard.with_pushed(&b, |inner| { //~ ERROR E0502
        let other = inner.stream()?;
        other.submit(exec, |s, g| s.launch_graph(&g))?.wait().map(drop)
    })??;
    Ok(())
}
