//! C2 escape: a buffer lent by the guard of `with_pushed` cannot be smuggled out of the closure.
//! Positive twin: `c2_results_and_parked_forms_escape` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut smuggled = None;
    stack.with_pushed(&ctx, |guard| {
        smuggled = guard.alloc::<u32>(16).ok(); //~ ERROR E0521
    })?;
    if let Some(buffer) = &smuggled {
        let _ = buffer.to_vec()?;
    }
    Ok(())
}
