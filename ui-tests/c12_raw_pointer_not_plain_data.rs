//! C12 plain data only: device memory of host raw pointers cannot be allocated: a host address means nothing on the device.
//! Positive twin: `c12_plain_data_round_trips` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _buffer = guard.alloc::<*const u32>(16)?; //~ ERROR E0277
    Ok(())
}
