//! C7 handles stay on their thread: a module lent by a guard cannot be sent to another thread.
//! Positive twin: `c7_parked_buffer_sent_to_another_thread` in `tests/patterns.rs` (a parked
//! buffer is `Send` and is re-attached there).
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    std::thread::scope(|s| {
        s.spawn(move || module.function("empty").map(drop)); //~ ERROR E0277
    });
    Ok(())
}
