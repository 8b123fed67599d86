//! C25 library handles: a complex-to-real transform may overwrite its input (cuFFT's
//! documentation says so, out of place too), so its input cannot be a read-only binding.
//! Positive twin: `real_transforms_keep_half_the_spectrum_and_come_back` in
//! `tests/gpu_cufft.rs`.
use custack::fft::{C2r, Complex32, Fft};
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.fft_plan::<C2r<f32>>(&Fft::new(&[8]))?;
    let spectrum = guard.alloc_zeroed::<Complex32>(5)?;
    let mut signal = guard.alloc_zeroed::<f32>(8)?;
    guard.stream()?.scope(|s| {
        plan.run(s, s.bind(&spectrum), s.bind_mut(&mut signal)) //~ ERROR E0277
    })??;
    Ok(())
}
