//! C18 graphs: while a launch of an executable graph is pending (a submission owns it), the
//! host cannot reach the memory the graph's nodes use.
//! Positive twin: `a_captured_graph_runs_again_and_again_on_the_memory_it_owns` in
//! `tests/gpu_graph.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let graph = stream.capture(vec![0u32; 4], |_s, _host| Ok(()))?;
    let mut exec = graph.instantiate()?;
    let pending = stream.submit(exec, |s, g| s.launch_graph(&g))?;
    exec.payload_mut()[0] = 1; //~ ERROR E0382
    pending.wait()?;
    Ok(())
}
