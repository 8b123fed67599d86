//! C14 no aliasing: one physical allocation cannot appear twice in one writable mapping, whose
//! halves (`split_at_mut`) would be two mutable views of the same bytes.
//! Positive twin: `c14_vmm_mappings` in `tests/patterns.rs` (the same allocation twice in a
//! shared, read-only mapping).
use custack::{Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.allocation_granularity()?;
    let mut p = guard.create_physical(g)?;
    let space = guard.reserve(2 * g)?;
    let mut both = space.map::<u32, _>(&guard, [&mut p, &mut p])?; //~ ERROR E0499
    let half = both.len() / 2;
    let (_front, _back) = both.split_at_mut(half)?;
    Ok(())
}
