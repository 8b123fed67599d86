//! C16 pending owned work: a page-locked buffer moved into a submission cannot be freed before
//! the submission hands it back.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let host = guard.alloc_pinned::<u32>(1024)?;
    let dev = guard.alloc::<u32>(1024)?;
    let pending = stream.submit((host, dev), |s, (host, mut dev)| s.copy_to_device(&mut dev, host))?;
    host.free()?; //~ ERROR E0382
    pending.wait()?;
    Ok(())
}
