//! C11 pending host memory: host memory an asynchronous copy writes cannot be read before the
//! copy is known complete.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut host = guard.alloc_pinned::<u32>(1024)?;
    let dev = guard.alloc::<u32>(1024)?;
    let first = stream.scope(|s| -> custack::Result<u32> {
        s.copy_to_host(&mut host, s.bind(&dev))?;
        Ok(host[0]) //~ ERROR E0502
    })??;
    assert_eq!(first, 0);
    Ok(())
}
