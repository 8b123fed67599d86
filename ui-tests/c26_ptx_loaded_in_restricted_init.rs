//! C26 CUDA SAFETY 1.2 (no PTX, no JIT): an `InitPhase` has no `load_ptx`. The driver would
//! compile the PTX at load time; the profile loads only cubins built ahead of time
//! (`load_cubin`).
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let _module = init.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?; //~ ERROR E0599
    Ok(())
}
