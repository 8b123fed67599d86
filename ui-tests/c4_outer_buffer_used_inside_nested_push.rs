//! C4 stale outer handles: a buffer of the outer context cannot be used while another context
//! is pushed on top of it.
//! Positive twin: `p3_nested_push` in `tests/patterns.rs` (park, nested push, attach).
use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let buffer_a = guard_a.alloc::<u32>(16)?;
    guard_a.with_pushed(&b, |_guard_b| buffer_a.to_vec())??; //~ ERROR E0502
    Ok(())
}
