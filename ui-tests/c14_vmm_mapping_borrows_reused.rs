//! C14 no aliasing: the exclusive borrows a writable mapping is made of are taken by value, so
//! one set of them cannot make a second mapping of the same allocation (found in review: with a
//! slice of `&mut`, keeping the array and passing it twice gave two writable mappings of one
//! allocation under a single borrow).
//! Positive twin: `c14_vmm_mappings` in `tests/patterns.rs` (one writable mapping, dropped,
//! then shared read-only mappings).
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.allocation_granularity()?;
    let mut physical = guard.create_physical(g)?;
    let (r1, r2) = (guard.reserve(g)?, guard.reserve(g)?);
    let borrows = [&mut physical];
    let m1 = r1.map::<u32, _>(&guard, borrows)?;
    let m2 = r2.map::<u32, _>(&guard, borrows)?; //~ ERROR E0382
    drop((m1, m2));
    Ok(())
}
