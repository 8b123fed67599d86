//! C2 escape: the scope of `Stream::scope` cannot be smuggled out of its closure, so no
//! asynchronous work can be enqueued after the scope has waited for the stream.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut dev = guard.alloc::<u32>(4)?;
    let host = [1u32, 2, 3, 4];
    let mut smuggled = None;
    stream.scope(|s| {
        smuggled = Some(s); //~ ERROR E0521
    })?;
    if let Some(s) = smuggled {
        s.copy_to_device(s.bind_mut(&mut dev), &host)?;
    }
    Ok(())
}
