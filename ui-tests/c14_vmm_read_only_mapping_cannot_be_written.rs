//! C14 no aliasing: a shared mapping is read-only device memory (other mappings may show the
//! same bytes), so it cannot be written or bound exclusively.
//! Positive twin: `c14_vmm_mappings` in `tests/patterns.rs` (shared mappings only read).
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.allocation_granularity()?;
    let physical = guard.create_physical(g)?;
    let space = guard.reserve(g)?;
    let mut shared = space.map_read_only::<u32, _>(&guard, &[&physical])?;
    shared.fill_u32(1)?; //~ ERROR E0599
    Ok(())
}
