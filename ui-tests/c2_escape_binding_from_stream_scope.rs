//! C2 escape: device memory bound to a stream scope cannot be smuggled out of the scope's
//! closure, where the memory would be free to use again while still bound.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut dev = guard.alloc::<u32>(4)?;
    let mut smuggled = None;
    stream.scope(|s| {
        smuggled = Some(s.bind_mut(&mut dev)); //~ ERROR E0521
    })?;
    if let Some(bound) = smuggled {
        println!("{:#x}", bound.device_ptr());
    }
    Ok(())
}
