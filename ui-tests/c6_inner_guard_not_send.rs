//! C6 guard stays on its thread: the guard `with_pushed` lends cannot be sent to another thread.
//! Positive twin: `p4_shared_context` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    stack.with_pushed(&ctx, |guard| {
        std::thread::scope(|s| {
            s.spawn(move || guard.synchronize()); //~ ERROR E0277
        });
    })?;
    Ok(())
}
