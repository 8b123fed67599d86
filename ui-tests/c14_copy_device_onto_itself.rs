//! C14 no aliasing: a device-to-device copy cannot read and write the same bound memory.
//! Positive twin: `c14_disjoint_views` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut x = guard.alloc::<u32>(16)?;
    stream.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        s.copy_device(&mut dx, &dx) //~ ERROR E0502
    })??;
    Ok(())
}
