//! C21 host memory the GPU can see: a registered vector cannot grow (which would reallocate it
//! under the registration); it is a slice until given back with `into_vec`.
//! Positive twin: `memsets_pointer_attributes_and_registered_host_memory` in
//! `tests/gpu_memory.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut registered = guard.register_vec(vec![0u32; 1024])?;
    registered.push(1); //~ ERROR E0599
    Ok(())
}
