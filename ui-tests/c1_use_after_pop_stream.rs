//! C1 use-after-pop: a stream lent by a guard cannot be used after the guard is dropped.
//! Positive twin: `c1_handles_used_before_pop` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    drop(guard); //~ ERROR E0505
    stream.synchronize()?;
    Ok(())
}
