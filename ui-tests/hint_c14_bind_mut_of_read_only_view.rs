//! Hint (C14 no aliasing): a `DeviceView` only reads, so `bind_mut` refuses it; the message
//! names the writable kinds (`as_view_mut`, `slice_mut`).
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let x = guard.alloc::<f32>(4)?;
    let mut view = x.slice(0..2)?;
    stream.scope(|s| {
        let _b = s.bind_mut(&mut view); //~ ERROR E0277
    })?;
    Ok(())
}
