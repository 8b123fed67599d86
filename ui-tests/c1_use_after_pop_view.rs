//! C1 use-after-pop: a view of device memory lent by a guard cannot be used after the guard is
//! dropped.
//! Positive twin: `c1_handles_used_before_pop` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let buffer = guard.alloc::<u32>(16)?;
    let view = buffer.slice(4..8)?;
    drop(guard); //~ ERROR E0505
    let _ = view.to_vec()?;
    Ok(())
}
