//! C22 several contexts in flight: a module moved into a graph's payload is lent to the capture
//! closure only (`&'scope Module<'scope>`), so a function looked up there cannot leave it and
//! outlive the module once the graph parks or drops.
//! Positive twin: `p9_graph_in_flight` in `tests/gpu_in_flight.rs`.
use custack::{Context, ContextFlags, Driver, Function, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut kept: Option<Function<'_>> = None;
    let graph = stream.capture((guard.load_ptx("")?,), |_s, (module,)| {
        kept = Some(module.function("add_u32")?); //~ ERROR borrowed data escapes
        Ok(())
    })?;
    drop(graph);
    drop(kept);
    Ok(())
}
