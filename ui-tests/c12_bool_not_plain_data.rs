//! C12 plain data only: device memory of `bool` cannot be allocated: not every bit pattern the device may write is a valid `bool`.
//! Positive twin: `c12_plain_data_round_trips` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _buffer = guard.alloc_zeroed::<bool>(16)?; //~ ERROR E0277
    Ok(())
}
