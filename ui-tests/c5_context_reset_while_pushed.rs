//! C5 context outlives its pushes: a primary context cannot be reset (its state destroyed)
//! while a guard of it is alive.
//! Positive twin: `c5_context_dropped_after_its_guards` in `tests/patterns.rs`.
use custack::{Context, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let mut ctx = Context::primary(Driver::init()?.device(0)?)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    ctx.reset()?; //~ ERROR E0502
    guard.synchronize()?;
    Ok(())
}
