//! C25 library handles: a read-only binding (`ScopedSlice`, from `bind`) cannot be filled by a
//! cuRAND generator: every fill writes its output, which must be bound with `bind_mut`.
//! Positive twin: `uniform_values_are_in_zero_one_with_the_uniform_moments` in
//! `tests/gpu_curand.rs`.
use custack::rand::Pseudo;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let rng = guard.rng(Pseudo::Philox4x32_10, 1)?;
    let x = guard.alloc_zeroed::<f32>(4)?;
    guard.stream()?.scope(|s| {
        rng.uniform(s, s.bind(&x)) //~ ERROR E0277
    })??;
    Ok(())
}
