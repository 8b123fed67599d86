//! C21 host memory the GPU can see (its virtual-memory kin, across devices): a peer mapping
//! cannot outlive the reservation it lies in.
//! Positive twin: `a_vector_striped_over_every_device_is_written_by_a_kernel_on_each` in
//! `tests/gpu_vmm_devices.rs`.
use custack::{Access, Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.granularity_on(device)?;
    let space = guard.reserve_multi_device(g)?;
    let pieces = vec![guard.create_physical_on(device, g)?];
    let mapping = space.map_owned::<u32>(0, pieces, &[(device, Access::ReadWrite)])?;
    drop(space); //~ ERROR E0505
    drop(mapping);
    Ok(())
}
