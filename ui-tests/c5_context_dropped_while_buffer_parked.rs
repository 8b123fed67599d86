//! C5 context outlives its pushes: a `Context` cannot be dropped while a buffer parked from one
//! of its guards is alive (dropping the parked buffer pushes the context to free it).
//! Positive twin: `p8_alternating_contexts` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let parked = stack.with_pushed(&ctx, |guard| -> custack::Result<_> {
        Ok(guard.park(guard.alloc::<u32>(16)?))
    })??;
    drop(ctx); //~ ERROR E0505
    drop(parked);
    Ok(())
}
