//! C14 no aliasing (VMM across devices): physical memory shown read-only by a shared peer
//! mapping cannot be mapped writable beside it.
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
    let (a, b) = (guard.reserve_multi_device(g)?, guard.reserve_multi_device(g)?);
    let reader = a.map_read_only::<u32>(0, &[&p], &[device])?;
    let writer = b.map::<u32>(0, [&mut p], &[(device, Access::ReadWrite)])?; //~ ERROR E0502
    drop((reader, writer));
    Ok(())
}
