//! C27 the run phase creates nothing: a `RunPhase` has no `redundant`; the two SM partitions,
//! their streams and the second copy of the output are made in the init phase and counted in
//! its budget.
//! Positive twin: `a_clean_redundant_frame_loop_finds_no_difference` in `tests/gpu_redundancy.rs`.
use custack::Stack;
use custack::safety::{Budget, OnMismatch, Profile, RestrictedContext};

custack::kernel_contract! {
    /// `add_u32(uint* x, uint k, uint n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let budget = Budget::page_locked(1 << 20).partitions(2).streams(2);
    let mut ctx = RestrictedContext::primary(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let bytes: Vec<u8> = Vec::new();
    // SAFETY: the cubin built for this device ahead of time (the program is only type-checked).
    let module = unsafe { init.load_cubin(&bytes)? };
    let run = init.seal();
    let _twice = run.redundant::<AddU32, u32>(&module, "x", 1024, 16, OnMismatch::ReturnError)?; //~ ERROR E0599
    Ok(())
}
