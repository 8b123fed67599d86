//! C6 guard stays on its thread: a `PushedGuard` cannot be sent to another thread.
//! Positive twin: `p4_shared_context` in `tests/patterns.rs` (each thread pushes on its own
//! stack).
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    std::thread::scope(|s| {
        s.spawn(move || guard.synchronize()); //~ ERROR E0277
    });
    Ok(())
}
