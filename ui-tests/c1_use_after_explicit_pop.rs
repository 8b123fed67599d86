//! C1 use-after-pop: a buffer lent by a guard cannot be used after `PushedGuard::pop`.
//! Positive twin: `c1_handles_used_before_pop` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut buffer = guard.alloc::<u32>(4)?;
    guard.pop()?; //~ ERROR E0505
    buffer.copy_from_host(&[1, 2, 3, 4])?;
    Ok(())
}
