//! C21 host memory the GPU can see: a registered slice cannot leave the closure that
//! registered it, so no value outlives the registration, and forgetting one (`mem::forget`)
//! inside it leaves nothing registered: the closure's end unregisters the slice, not the
//! value's drop. Were the value returned, the slice's borrow could end while the memory stayed
//! registered, and the program could free it under the registration.
//! Positive twin: `memsets_pointer_attributes_and_registered_host_memory` in
//! `tests/gpu_memory.rs` (a forgotten registration, then the same memory registered again).
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut data = vec![0u32; 1024];
    let kept = guard.register_host(&mut data, |registered| registered)?; //~ ERROR lifetime
    std::mem::forget(kept);
    drop(data);
    Ok(())
}
