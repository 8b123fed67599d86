//! C14 no aliasing: two mutable views of overlapping device memory cannot be alive together.
//! Positive twin: `c14_disjoint_views` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut dev = guard.alloc::<u32>(1024)?;
    let mut a = dev.slice_mut(0..512)?;
    let mut b = dev.slice_mut(256..768)?; //~ ERROR E0499
    a.fill_u32(1)?;
    b.fill_u32(2)?;
    Ok(())
}
