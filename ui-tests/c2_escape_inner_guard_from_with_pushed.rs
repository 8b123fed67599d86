//! C2 escape: the guard that `with_pushed` lends cannot be smuggled out of the closure, so the
//! context it pushed is always popped when the closure returns.
//! Positive twin: `c2_results_and_parked_forms_escape` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut smuggled = None;
    stack.with_pushed(&ctx, |guard| {
        smuggled = Some(guard); //~ ERROR E0521
    })?;
    if let Some(guard) = smuggled {
        guard.synchronize()?;
    }
    Ok(())
}
