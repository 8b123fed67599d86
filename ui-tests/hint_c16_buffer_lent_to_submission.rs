//! Hint (C16 pending owned work): a submission owns what it uses; lending it `&mut dev` fails,
//! and the message says to move the buffer in and take it back from `wait()`.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut dev = guard.alloc::<u32>(4)?;
    let pending = stream.submit(&mut dev, |s, dev| s.fill_u32(dev, 7))?; //~ ERROR E0277
    pending.wait()?;
    Ok(())
}
