//! C1 use-after-pop: an event lent by a guard cannot be used after the guard is dropped.
//! Positive twin: `c1_handles_used_before_pop` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, EventFlags, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let event = guard.event(EventFlags::empty())?;
    drop(guard); //~ ERROR E0505
    event.synchronize()?;
    Ok(())
}
