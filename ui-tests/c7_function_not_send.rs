//! C7 handles stay on their thread: a kernel function cannot be sent to another thread.
//! Positive twin: `c7_parked_buffer_sent_to_another_thread` in `tests/patterns.rs` (a parked
//! buffer is `Send` and is re-attached there).
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let function = module.function("empty")?;
    std::thread::scope(|s| {
        s.spawn(move || function.max_threads_per_block()); //~ ERROR E0277
    });
    Ok(())
}
