//! C25 library handles: a cuFFT plan made by a guard cannot be used after the guard is dropped
//! (its context popped).
//! Positive twin: `one_plan_serves_two_streams_and_submissions_and_drops_with_work_pending` in
//! `tests/gpu_cufft.rs`.
use custack::fft::{C2c, Fft};
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.fft_plan::<C2c<f32>>(&Fft::new(&[4]))?;
    drop(guard); //~ ERROR E0505
    plan.destroy()?;
    Ok(())
}
