//! C26 the safety subset has no managed memory: an `InitPhase` has no `alloc_managed`. Unified
//! memory migrates between host and device on demand, at times the program does not fix; the
//! profile allocates device memory (`alloc`) and page-locked memory (`alloc_pinned`) only.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let _managed = init.alloc_managed::<u32>(1024)?; //~ ERROR E0599
    Ok(())
}
