//! C16 pending owned work: a submission cannot outlive the guard whose stream it was made on.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(1024)?;
    let pending = stream.submit(dev, |s, mut dev| s.fill_bytes(&mut dev, 0))?;
    drop(guard); //~ ERROR E0505
    pending.wait()?;
    Ok(())
}
