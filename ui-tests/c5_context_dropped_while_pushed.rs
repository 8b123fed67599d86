//! C5 context outlives its pushes: a `Context` cannot be dropped while a guard of it is alive.
//! Positive twin: `c5_context_dropped_after_its_guards` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    drop(ctx); //~ ERROR E0505
    guard.synchronize()?;
    Ok(())
}
