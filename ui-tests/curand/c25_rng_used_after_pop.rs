//! C25 library handles: a cuRAND generator lent by a guard cannot be used after the guard is
//! dropped (its context popped).
//! Positive twin: `one_generator_serves_two_streams_and_submissions_and_drops_with_work_pending`
//! in `tests/gpu_curand.rs`.
use custack::rand::Pseudo;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut rng = guard.rng(Pseudo::Xorwow, 1)?;
    drop(guard); //~ ERROR E0505
    rng.set_offset(4)?;
    Ok(())
}
