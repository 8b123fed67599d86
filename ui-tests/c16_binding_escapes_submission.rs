//! C16 pending owned work: the payload's bound handles cannot leave the submission's closure,
//! so nothing outside can reach the memory while the submission owns it.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, ScopedSliceMut, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(4)?;
    let mut escaped: Option<ScopedSliceMut<'_, u32>> = None;
    let pending = stream.submit(dev, |_s, dev| {
        escaped = Some(dev); //~ ERROR E0521
        Ok(())
    })?;
    drop(escaped);
    pending.wait()?;
    Ok(())
}
