//! C7 handles stay on their thread: an exclusive view of device memory cannot be sent to another thread.
//! Positive twin: `c7_parked_buffer_sent_to_another_thread` in `tests/patterns.rs` (a parked
//! buffer is `Send` and is re-attached there).
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut buffer = guard.alloc::<u32>(16)?;
    let mut view = buffer.as_view_mut();
    std::thread::scope(|s| {
        s.spawn(move || view.fill_u32(7)); //~ ERROR E0277
    });
    Ok(())
}
