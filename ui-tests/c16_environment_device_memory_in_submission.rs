//! C16 pending owned work: a submission's work can use only what the submission owns. Device
//! memory borrowed from outside cannot be bound in it: the submission may outlive any borrow
//! (even leaked), so the memory could be freed while the GPU uses it.
//! Positive twin: `c16_c17_pipeline_hands_memory_back` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(4)?;
    let pending = stream.submit(vec![0u32; 4], |s, host| {
        s.copy_to_host(host, s.bind(&dev)) //~ ERROR E0597
    })?;
    pending.wait()?;
    Ok(())
}
