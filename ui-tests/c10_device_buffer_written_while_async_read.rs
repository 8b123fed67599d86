//! C10 pending device memory: device memory cannot be overwritten from the host while an
//! asynchronous copy reads it.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut host = guard.alloc_pinned::<u32>(1024)?;
    let mut dev = guard.alloc::<u32>(1024)?;
    stream.scope(|s| -> custack::Result<()> {
        s.copy_to_host(&mut host, s.bind(&dev))?;
        dev.fill_u32(0) //~ ERROR E0502
    })??;
    Ok(())
}
