//! C7 handles stay on their thread: an event lent by a guard cannot be sent to another thread.
//! Positive twin: `c7_parked_buffer_sent_to_another_thread` in `tests/patterns.rs` (a parked
//! buffer is `Send` and is re-attached there).
use custack::{Context, ContextFlags, Driver, EventFlags, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let event = guard.event(EventFlags::empty())?;
    std::thread::scope(|s| {
        s.spawn(move || event.synchronize()); //~ ERROR E0277
    });
    Ok(())
}
