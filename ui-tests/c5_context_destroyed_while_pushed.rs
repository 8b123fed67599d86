//! C5 context outlives its pushes: `Context::destroy` cannot run while a guard of the context
//! is alive.
//! Positive twin: `c5_context_dropped_after_its_guards` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    ctx.destroy()?; //~ ERROR E0505
    guard.synchronize()?;
    Ok(())
}
