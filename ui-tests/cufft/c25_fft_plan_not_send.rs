//! C25 library handles: a cuFFT plan stays on its thread: it cannot be sent to another thread
//! (its context is current on this one only).
//! Positive twin: `a_plan_is_used_again_after_an_inner_guard_pops` in `tests/gpu_cufft.rs`
//! (used on its own thread).
use custack::fft::{C2c, Fft};
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.fft_plan::<C2c<f32>>(&Fft::new(&[4]))?;
    std::thread::scope(|s| {
        s.spawn(move || plan.work_bytes()); //~ ERROR E0277
    });
    Ok(())
}
