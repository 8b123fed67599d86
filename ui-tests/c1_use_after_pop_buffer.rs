//! C1 use-after-pop: a device buffer lent by a guard cannot be used after the guard is dropped.
//! Positive twin: `c1_handles_used_before_pop` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let buffer = guard.alloc::<u32>(16)?;
    drop(guard); //~ ERROR E0505
    let _ = buffer.to_vec()?;
    Ok(())
}
