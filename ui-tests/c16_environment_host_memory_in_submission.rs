//! C16 pending owned work: host memory borrowed from outside cannot be copied from in a
//! submission; move it in (a `Vec`, a `Box<[T]>` or a page-locked buffer) instead.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(4)?;
    let host = vec![1u32; 4];
    let pending = stream.submit(dev, |s, mut dev| { //~ ERROR E0373
        s.copy_to_device(&mut dev, &host)
    })?;
    drop(host);
    pending.wait()?;
    Ok(())
}
