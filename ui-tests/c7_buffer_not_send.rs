//! C7 handles stay on their thread: a device buffer lent by a guard cannot be sent to another thread.
//! Positive twin: `c7_parked_buffer_sent_to_another_thread` in `tests/patterns.rs` (a parked
//! buffer is `Send` and is re-attached there).
use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let buffer = guard.alloc::<u32>(16)?;
    std::thread::scope(|s| {
        s.spawn(move || buffer.to_vec()); //~ ERROR E0277
    });
    Ok(())
}
