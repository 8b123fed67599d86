//! C26 CUDA SAFETY 1.1 (no callbacks): a `RestrictedKernel` lends no `Function`, so the
//! occupancy calculator, whose `cuOccupancyMaxPotentialBlockSize` calls back into the program
//! for each block size, cannot be reached from the profile (nor can a raw launch).
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

custack::kernel_contract! {
    /// `add_u32(uint* x, uint k, uint n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let bytes: Vec<u8> = Vec::new();
    // SAFETY: the cubin built for this device ahead of time (the program is only type-checked).
    let module = unsafe { init.load_cubin(&bytes)? };
    let add = init.kernel::<AddU32>(&module)?;
    let function = add.function(); //~ ERROR E0599
    let (_grid, _block) = function.suggested_block_size_with(&|block| block as usize * 4)?;
    Ok(())
}
