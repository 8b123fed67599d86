//! C16 pending owned work: a host vector moved into a submission cannot be written (or read,
//! moved, dropped) on the host before the submission hands it back.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(4)?;
    let mut host = vec![0u32; 4];
    let pending = stream.submit((dev, host), |s, (dev, host)| s.copy_to_host(host, &dev))?;
    host[0] = 1; //~ ERROR E0382
    pending.wait()?;
    Ok(())
}
