//! C14 no aliasing: device memory cannot be bound exclusively twice, which would give two
//! mutable handles of the same memory.
//! Positive twin: `c14_disjoint_views` in `tests/patterns.rs` (disjoint views bound separately).
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut x = guard.alloc::<u32>(1024)?;
    stream.scope(|s| {
        let first = s.bind_mut(&mut x);
        let second = s.bind_mut(&mut x); //~ ERROR E0499
        s.fill_bytes(first, 1)?;
        s.fill_bytes(second, 2)
    })??;
    Ok(())
}
