//! C21 host memory the GPU can see: memory cannot be freed while it is registered: the
//! registration borrows it for the length of its closure.
//! Positive twin: `memsets_pointer_attributes_and_registered_host_memory` in
//! `tests/gpu_memory.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut data = vec![0u32; 1024];
    guard.register_host(&mut data, |registered| {
        drop(data); //~ ERROR E0505
        drop(registered);
    })?;
    Ok(())
}
