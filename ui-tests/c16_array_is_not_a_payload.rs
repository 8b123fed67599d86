//! C16 pending owned work: only memory whose address survives a move can be moved into a
//! submission. An array's elements move with it, so it is not a `Payload`.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(4)?;
    let pending = stream.submit((dev, [0u32; 4]), |s, (dev, host)| s.copy_to_host(host, &dev))?; //~ ERROR E0277
    pending.wait()?;
    Ok(())
}
