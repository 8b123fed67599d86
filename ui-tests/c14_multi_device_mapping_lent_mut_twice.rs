//! C14 no aliasing (VMM across devices): a peer mapping is lent writable to one guard at a
//! time (two views of it, one mutable, cannot coexist).
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
    let mut striped = space.map_owned::<u32>(0, pieces, &[(device, Access::ReadWrite)])?;
    let first = guard.lend_mut(&mut striped)?;
    let second = guard.lend(&striped)?; //~ ERROR E0502
    drop((first, second));
    Ok(())
}
