//! C14 no aliasing (VMM across devices): one physical allocation cannot appear twice in one
//! writable peer mapping.
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
    let both = space.map::<u32>(0, [&mut p, &mut p], &rw)?; //~ ERROR E0499
    drop(both);
    Ok(())
}
