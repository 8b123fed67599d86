//! C2 escape: a stream lent by the guard of `with_pushed` cannot be returned from the closure.
//! Positive twin: `c2_results_and_parked_forms_escape` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let stream = stack.with_pushed(&ctx, |guard| guard.stream())??; //~ ERROR lifetime may not live long enough
    stream.synchronize()?;
    Ok(())
}
