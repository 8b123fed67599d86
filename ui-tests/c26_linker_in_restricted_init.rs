//! C26 CUDA SAFETY 1.2 (no PTX, no JIT): an `InitPhase` has no `linker`. The driver's linker
//! (`cuLinkCreate`) compiles and links at run time; the profile loads only cubins built and
//! linked ahead of time (`load_cubin`).
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::safety::{Budget, Profile, RestrictedContext};
use custack::{JitOptions, Stack};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let _linker = init.linker(&JitOptions::default())?; //~ ERROR E0599
    Ok(())
}
