//! C11 pending host memory: page-locked memory handed to an asynchronous copy cannot be moved
//! (here: into a `Vec` that may free it) before the copy is known complete.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut host = guard.alloc_pinned::<u32>(1024)?;
    let dev = guard.alloc::<u32>(1024)?;
    let mut keep = Vec::new();
    stream.scope(|s| -> custack::Result<()> {
        s.copy_to_host(&mut host, s.bind(&dev))?; //~ ERROR E0597
        keep.push(host); //~ ERROR E0505
        Ok(())
    })??;
    Ok(())
}
