//! C1 use-after-pop: a stream borrowed from a raw handle (`borrow_stream_raw`) is lent by the
//! guard like any other, so it cannot be used after the guard is dropped.
//! Positive twin: `c1_handles_used_before_pop` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    // SAFETY (for the part that compiles): the NULL stream of the current context.
    let stream = unsafe { guard.borrow_stream_raw(core::ptr::null_mut()) };
    drop(guard); //~ ERROR E0505
    stream.synchronize()?;
    Ok(())
}
