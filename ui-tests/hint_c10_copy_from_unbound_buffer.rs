//! Hint (C10 pending device memory): a scope's copies take device memory bound to the scope;
//! passing the `DeviceBuffer` itself fails, and the message says to bind it first.
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let x = guard.alloc_from(&[1.0f32; 4])?;
    let mut host = vec![0.0f32; 4];
    stream.scope(|s| s.copy_to_host(&mut host, &x))??; //~ ERROR E0277
    Ok(())
}
