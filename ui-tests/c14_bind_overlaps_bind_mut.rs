//! C14 no aliasing: device memory cannot be bound exclusively to a scope while a view of part
//! of it, bound for reading, is alive: one of two overlapping handles would be mutable.
//! Positive twin: `c14_disjoint_views` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut x = guard.alloc::<u32>(1024)?;
    let mut y = guard.alloc::<u32>(512)?;
    let upper = x.slice(512..)?;
    stream.scope(|s| {
        //~^ ERROR E0502
        let whole = s.bind_mut(&mut x);
        s.fill_bytes(whole, 1)?;
        s.copy_device(s.bind_mut(&mut y), s.bind(&upper))
    })??;
    Ok(())
}
