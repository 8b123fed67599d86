//! C14 no aliasing: a shared view cannot be taken while a mutable view of the same memory is
//! alive.
//! Positive twin: `c14_disjoint_views` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut dev = guard.alloc::<u32>(1024)?;
    let mut writer = dev.slice_mut(0..512)?;
    let reader = dev.slice(256..768)?; //~ ERROR E0502
    writer.fill_u32(1)?;
    let _ = reader.to_vec()?;
    Ok(())
}
