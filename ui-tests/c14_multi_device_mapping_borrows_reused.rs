//! C14 no aliasing (VMM across devices): as `c14_vmm_mapping_borrows_reused`, the exclusive
//! borrows of a writable peer mapping are taken by value, so one set of them cannot map the same
//! allocation a second time at another offset.
//! Positive twin: `a_vector_striped_over_every_device_is_written_by_a_kernel_on_each` in
//! `tests/gpu_vmm_devices.rs`.
use custack::{Access, Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.granularity_on(device)?;
    let mut p = guard.create_physical_on(device, g)?;
    let space = guard.reserve_multi_device(2 * g)?;
    let rw = [(device, Access::ReadWrite)];
    let borrows = [&mut p];
    let first = space.map::<u32>(0, borrows, &rw)?;
    let second = space.map::<u32>(g, borrows, &rw)?; //~ ERROR E0382
    drop((first, second));
    Ok(())
}
