//! C10 pending device memory: device memory cannot be dropped while an asynchronous copy into
//! it may still run.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let host = guard.alloc_pinned::<u32>(1024)?;
    let mut dev = guard.alloc::<u32>(1024)?;
    stream.scope(|s| -> custack::Result<()> {
        s.copy_to_device(s.bind_mut(&mut dev), &host)?; //~ ERROR E0597
        drop(dev); //~ ERROR E0505
        Ok(())
    })??;
    Ok(())
}
