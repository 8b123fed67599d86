//! C14 no aliasing: one physical allocation cannot back two writable mappings at once, which
//! would be two exclusive handles of the same bytes (a writable mapping borrows each allocation
//! behind it exclusively).
//! Positive twin: `c14_vmm_mappings` in `tests/patterns.rs` (one writable mapping, dropped,
//! then shared read-only mappings).
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.allocation_granularity()?;
    let mut physical = guard.create_physical(g)?;
    let (r1, r2) = (guard.reserve(g)?, guard.reserve(g)?);
    let mut m1 = r1.map::<u32, _>(&guard, [&mut physical])?;
    let m2 = r2.map::<u32, _>(&guard, [&mut physical])?; //~ ERROR E0499
    m1.fill_u32(7)?;
    drop(m2);
    Ok(())
}
