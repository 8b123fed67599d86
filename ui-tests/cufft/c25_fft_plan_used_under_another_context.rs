//! C25 library handles: a cuFFT plan cannot be used while another context is pushed on top of
//! the guard that made it (cuFFT would run in the wrong context).
//! Positive twin: `a_plan_is_used_again_after_an_inner_guard_pops` in `tests/gpu_cufft.rs`.
use custack::fft::{C2c, Fft};
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let plan = guard_a.fft_plan::<C2c<f32>>(&Fft::new(&[4]))?;
    guard_a.with_pushed(&b, |_guard_b| {
        //~^ ERROR E0502
        plan.destroy()
    })??;
    Ok(())
}
