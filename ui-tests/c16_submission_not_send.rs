//! C16 pending owned work: a submission stays on the thread of its guard (`!Send`), even when
//! its payload is a plain host vector.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let pending = stream.submit(vec![0u32; 4], |_s, _host| Ok(()))?;
    std::thread::scope(|t| {
        t.spawn(move || pending.wait()); //~ ERROR E0277
    });
    Ok(())
}
