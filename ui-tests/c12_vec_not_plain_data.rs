//! C12 plain data only: a slice of `Vec`s cannot be copied to device memory: a `Vec` owns host memory.
//! Positive twin: `c12_plain_data_round_trips` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _buffer = guard.alloc_from(&[vec![1u8], vec![2u8]])?; //~ ERROR E0277
    Ok(())
}
