//! C17 cross-stream use: once a submission on another stream has taken a pending one over
//! (`submit_after`), the first one's memory cannot be handed back on its own: it comes back
//! with the joint submission, after the second stream's work.
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
    let out = vec![0u32; 1024];
    let download = b.submit_after(upload, out, |s, ((_, dev), out)| s.copy_to_host(out, &dev))?;
    let (_host, _dev) = upload.wait()?; //~ ERROR E0382
    download.wait()?;
    Ok(())
}
