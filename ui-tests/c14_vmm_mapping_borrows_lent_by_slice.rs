//! C14 no aliasing: a writable mapping takes its exclusive borrows by value; lent through a
//! slice they could be lent again (two writable mappings of one allocation, or a shared mapping
//! beside a writable one, under a single borrow), so a slice is refused.
//! Positive twin: `c14_vmm_mappings` in `tests/patterns.rs` (`[&mut physical]`, by value).
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.allocation_granularity()?;
    let mut physical = guard.create_physical(g)?;
    let space = guard.reserve(g)?;
    let borrows = [&mut physical];
    let writer = space.map::<u32, _>(&guard, &borrows)?; //~ ERROR E0271
    drop(writer);
    Ok(())
}
