//! C18 graphs: memory moved into a graph at capture cannot be freed, moved or reused by the
//! host while the graph (or its executable graph) can still be launched.
//! Positive twin: `a_captured_graph_runs_again_and_again_on_the_memory_it_owns` in
//! `tests/gpu_graph.rs`.
use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(1024)?;
    let graph = stream.capture(dev, |s, mut dev| s.fill_bytes(&mut dev, 0))?;
    dev.free()?; //~ ERROR E0382
    let _exec = graph.instantiate()?;
    Ok(())
}
