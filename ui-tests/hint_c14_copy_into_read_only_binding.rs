//! Hint (C14 no aliasing): a `s.bind(&x)` binding only reads; copying into it fails, and the
//! message says to bind the destination with `bind_mut`.
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let x = guard.alloc::<f32>(4)?;
    let host = vec![1.0f32; 4];
    stream.scope(|s| {
        let a = s.bind(&x);
        s.copy_to_device(a, &host) //~ ERROR E0277
    })??;
    Ok(())
}
