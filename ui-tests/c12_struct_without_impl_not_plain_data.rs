//! C12 plain data only: a user type is not plain data until it (unsafely) implements `DeviceCopy`, even when it is `Copy`.
//! Positive twin: `c12_plain_data_round_trips` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

#[derive(Clone, Copy)]
#[repr(C)]
struct Pair {
    x: f32,
    y: f32,
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _buffer = guard.alloc::<Pair>(16)?; //~ ERROR E0277
    Ok(())
}
