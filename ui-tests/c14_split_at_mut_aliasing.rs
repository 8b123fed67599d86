//! C14 no aliasing: `split_at_mut` cannot be called again while views from an earlier split are
//! alive, which would give two mutable views of the same memory.
//! Positive twin: `c14_disjoint_views` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut dev = guard.alloc::<u32>(1024)?;
    let (mut low, _high) = dev.split_at_mut(512)?;
    let (mut again, _) = dev.split_at_mut(256)?; //~ ERROR E0499
    low.fill_u32(1)?;
    again.fill_u32(2)?;
    Ok(())
}
