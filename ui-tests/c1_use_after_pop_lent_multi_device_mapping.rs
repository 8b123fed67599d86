//! C1 use-after-pop: the view a guard lends of a peer mapping cannot outlive the guard (it
//! would then be used under whatever context is current, maybe one of a device the mapping
//! does not let in).
//! Positive twin: `a_vector_striped_over_every_device_is_written_by_a_kernel_on_each` in
//! `tests/gpu_vmm_devices.rs`.
use custack::{Access, Context, ContextFlags, DeviceMemory, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.granularity_on(device)?;
    let space = guard.reserve_multi_device(g)?;
    let pieces = vec![guard.create_physical_on(device, g)?];
    let striped = space.map_owned::<u32>(0, pieces, &[(device, Access::ReadWrite)])?;
    let view = guard.lend(&striped)?;
    drop(guard); //~ ERROR E0505
    let _ = view.to_vec()?;
    Ok(())
}
