//! C14 no aliasing: a mutable view is not `Copy` (nor `Clone`): it cannot be duplicated into two
//! mutable views of the same memory.
//! Positive twin: `c14_disjoint_views` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut dev = guard.alloc::<u32>(1024)?;
    let mut a = dev.as_view_mut();
    let mut b = a;
    a.fill_u32(1)?; //~ ERROR E0382
    b.fill_u32(2)?;
    Ok(())
}
