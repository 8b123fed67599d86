//! C14 no aliasing: while a shared, read-only mapping shows a physical allocation, no writable
//! mapping of it can be made (its writes would change what the shared mapping's readers see,
//! unordered).
//! Positive twin: `c14_vmm_mappings` in `tests/patterns.rs` (the writable mapping is dropped
//! before the shared ones are made).
use custack::{Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.allocation_granularity()?;
    let mut physical = guard.create_physical(g)?;
    let (r1, r2) = (guard.reserve(g)?, guard.reserve(g)?);
    let reader = r1.map_read_only::<u32, _>(&guard, &[&physical])?;
    let mut writer = r2.map::<u32, _>(&guard, [&mut physical])?; //~ ERROR E0502
    writer.fill_u32(1)?;
    println!("{:?}", reader.to_vec()?);
    Ok(())
}
