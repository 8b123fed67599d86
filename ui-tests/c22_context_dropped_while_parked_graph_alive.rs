//! C22 several contexts in flight: a parked graph (and its parked module and memory) borrows
//! its context, so the context cannot be dropped while it exists.
//! Positive twin: `p9_graph_in_flight` in `tests/gpu_in_flight.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let parked = {
        let guard = stack.push(&ctx)?;
        let stream = guard.stream()?;
        let exec = stream
            .capture((guard.load_ptx("")?, guard.alloc::<u32>(16)?), |s, (_m, mut x)| s.fill_bytes(&mut x, 1))?
            .instantiate()?;
        guard.park_graph(exec)
    };
    drop(ctx); //~ ERROR E0505
    drop(parked);
    Ok(())
}
