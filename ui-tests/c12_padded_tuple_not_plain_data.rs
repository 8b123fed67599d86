//! C12 plain data only: a tuple mixing types may hold padding bytes, which are uninitialized on
//! the host, so it is not plain data (`(u8, u64)` has seven). Tuples of one type are.
//! (Found in review.) Positive twin: `c12_plain_data_round_trips` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let buf = guard.alloc::<(u8, u64)>(4)?; //~ ERROR E0277
    drop(buf);
    Ok(())
}
