//! C25 library handles: a read-only binding (`ScopedSlice`, from `bind`) cannot be the output
//! of a cuFFT plan's execution, which writes it: it must be bound with `bind_mut`.
//! Positive twin: `complex_transforms_match_the_cpu_both_ways_in_both_precisions` in
//! `tests/gpu_cufft.rs`.
use custack::fft::{C2c, Complex32, Direction, Fft};
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.fft_plan::<C2c<f32>>(&Fft::new(&[4]))?;
    let x = guard.alloc_zeroed::<Complex32>(4)?;
    let y = guard.alloc_zeroed::<Complex32>(4)?;
    guard.stream()?.scope(|s| {
        plan.run(s, s.bind(&x), s.bind(&y), Direction::Forward) //~ ERROR E0277
    })??;
    Ok(())
}
