//! C16 pending owned work: a kernel function borrowed from outside cannot be launched in a
//! submission; move the function (it is `Copy`) into the payload, so the submission holds its
//! module.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx("")?;
    let add = module.function("add_u32")?;
    let dev = guard.alloc::<u32>(4)?;
    let pending = stream.submit(dev, |s, mut dev| {
        unsafe { s.launch(&add, LaunchConfig::for_elements(4), (&mut dev, 1u32, 4u32)) } //~ ERROR E0597
    })?;
    pending.wait()?;
    Ok(())
}
