//! C1 use-after-pop: page-locked host memory lent by a guard cannot be used after the guard is
//! dropped (the driver frees it with the context).
//! Positive twin: `c1_handles_used_before_pop` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut pinned = guard.alloc_pinned::<u32>(16)?;
    drop(guard); //~ ERROR E0505
    pinned[0] = 1;
    Ok(())
}
