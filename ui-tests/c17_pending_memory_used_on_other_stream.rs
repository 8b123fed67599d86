//! C17 cross-stream use: memory owned by a pending submission on one stream cannot be used by
//! work on another stream without a GPU-side wait on it (`submit_after`).
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (a, b) = (guard.stream()?, guard.stream()?);
    let host = guard.alloc_pinned::<u32>(1024)?;
    let dev = guard.alloc::<u32>(1024)?;
    let upload = a.submit((host, dev), |s, (host, mut dev)| s.copy_to_device(&mut dev, host))?;
    let mut out = vec![0u32; 1024];
    b.scope(|s| s.copy_to_host(&mut out, s.bind(&dev)))??; //~ ERROR E0382
    upload.wait()?;
    Ok(())
}
