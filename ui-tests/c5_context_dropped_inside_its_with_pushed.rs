//! C5 context outlives its pushes: a `Context` cannot be dropped inside the `with_pushed`
//! closure that has it pushed.
//! Positive twin: `c5_context_dropped_after_its_guards` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    stack.with_pushed(&ctx, |guard| {
        //~^ ERROR E0505
        drop(ctx);
        guard.synchronize()
    })??;
    Ok(())
}
