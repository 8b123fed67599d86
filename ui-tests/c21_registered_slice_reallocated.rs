//! C21 host memory the GPU can see: memory registered with the driver cannot be reallocated
//! (or moved, or freed) while it is registered: the registration borrows it.
//! Positive twin: `memsets_pointer_attributes_and_registered_host_memory` in
//! `tests/gpu_memory.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut data = vec![0u32; 1024];
    guard.register_host(&mut data, |registered| {
        data.push(1); //~ ERROR E0499
        drop(registered);
    })?;
    Ok(())
}
