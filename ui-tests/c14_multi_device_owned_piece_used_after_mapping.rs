//! C14 no aliasing (VMM across devices): physical memory handed to `map_owned` is released
//! right after mapping; it cannot be mapped again (it was moved into the mapping).
//! Positive twin: `a_vector_striped_over_every_device_is_written_by_a_kernel_on_each` in
//! `tests/gpu_vmm_devices.rs`.
use custack::{Access, Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.granularity_on(device)?;
    let space = guard.reserve_multi_device(2 * g)?;
    let mut p = guard.create_physical_on(device, g)?;
    let rw = [(device, Access::ReadWrite)];
    let owned = space.map_owned::<u32>(0, vec![p], &rw)?;
    let again = space.map::<u32>(g, [&mut p], &rw)?; //~ ERROR E0382
    drop((owned, again));
    Ok(())
}
