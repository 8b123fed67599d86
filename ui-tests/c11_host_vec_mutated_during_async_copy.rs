//! C11 pending host memory: a `Vec` handed to an asynchronous copy cannot be mutated (here:
//! grown, which may reallocate it) before the copy is known complete.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut host = vec![1u32; 1024];
    let mut dev = guard.alloc::<u32>(1024)?;
    stream.scope(|s| -> custack::Result<()> {
        s.copy_to_device(s.bind_mut(&mut dev), &host)?;
        host.push(2); //~ ERROR E0502
        Ok(())
    })??;
    Ok(())
}
