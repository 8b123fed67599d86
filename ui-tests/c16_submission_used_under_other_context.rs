//! C16 pending owned work: a submission cannot be waited for (or used at all) while another
//! context is pushed on top of its guard.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let (a, b) = (Context::new(device, ContextFlags::empty())?, Context::new(device, ContextFlags::empty())?);
    let mut stack = Stack::new()?;
    let mut guard = stack.push(&a)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(1024)?;
    let pending = stream.submit(dev, |s, mut dev| s.fill_bytes(&mut dev, 0))?;
    guard.with_pushed(&b, |_inner| pending.wait())??; //~ ERROR E0502
    Ok(())
}
