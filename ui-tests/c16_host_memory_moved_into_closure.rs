//! C16 pending owned work: host memory moved into a submission's *closure* (rather than its
//! payload) is dropped when the closure returns, while the copy may still run: it cannot be
//! bound.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(4)?;
    let host = vec![1u32; 4];
    let pending = stream.submit(dev, move |s, mut dev| {
        s.copy_to_device(&mut dev, &host) //~ ERROR E0597
    })?;
    pending.wait()?;
    Ok(())
}
