//! C7 handles stay on their thread: the scope of `Stream::scope` (and memory bound to it)
//! cannot be used from another thread, where the stream's context is not current.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut dev = guard.alloc::<u32>(4)?;
    stream.scope(|s| {
        let bound = s.bind_mut(&mut dev);
        std::thread::scope(|t| {
            t.spawn(move || s.fill_bytes(bound, 0)); //~ ERROR E0277
        });
    })?;
    Ok(())
}
