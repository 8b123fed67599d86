//! C22 several contexts in flight: what a parked graph launch hands back is a `ParkedGraph`,
//! which borrows only its context and cannot be launched (or bound to a scope) until it is
//! attached to a guard of that context (`attach_graph`, checked by a pointer compare).
//! Positive twin: `p9_graph_in_flight` in `tests/gpu_in_flight.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let exec = stream
        .capture((guard.load_ptx("")?, guard.alloc::<u32>(16)?), |s, (_m, mut x)| s.fill_bytes(&mut x, 1))?
        .instantiate()?;
    let pending = guard.park_submission(stream.submit(exec, |s, g| s.launch_graph(&g))?);
    let parked = pending.wait()?;
    stream.submit(parked, |s, g| s.launch_graph(&g))?.wait()?; //~ ERROR E0277
    Ok(())
}
