//! C27 the run phase loads nothing: a `RunPhase` has no `load_cubin`; modules are loaded, and
//! their kernels looked up, in the init phase.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let run = init.seal();
    let bytes: Vec<u8> = Vec::new();
    // SAFETY: the cubin built for this device ahead of time (the program is only type-checked).
    let _module = unsafe { run.load_cubin(&bytes)? }; //~ ERROR E0599
    Ok(())
}
