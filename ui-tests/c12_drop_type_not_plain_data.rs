//! C12 plain data only: device memory of a type with `Drop` cannot be allocated.
//! Positive twin: `c12_plain_data_round_trips` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

/// Owns something: copying its bytes would duplicate ownership.
struct Handle(u32);

impl Drop for Handle {
    fn drop(&mut self) {
        println!("closing {}", self.0);
    }
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _buffer = guard.alloc::<Handle>(16)?; //~ ERROR E0277
    Ok(())
}
