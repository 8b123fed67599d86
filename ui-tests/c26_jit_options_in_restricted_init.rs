//! C26 CUDA SAFETY 1.2 (no PTX, no JIT): an `InitPhase` has no `load_ptx_with`. JIT options
//! (`cuModuleLoadDataEx`) configure a compilation at load time; the profile's one load,
//! `load_cubin`, takes no options because nothing is compiled.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::safety::{Budget, Profile, RestrictedContext};
use custack::{JitOptions, Stack};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let ptx = ".version 6.0\n.target sm_50\n.address_size 64\n";
    let (_module, _log) = init.load_ptx_with(ptx, &JitOptions::default())?; //~ ERROR E0599
    Ok(())
}
