//! C27 the run phase allocates nothing: a `RunPhase` has no `alloc_pinned`; page-locked memory
//! is allocated in the init phase, within the context's budget.
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
    let _host = run.alloc_pinned::<u32>(1024)?; //~ ERROR E0599
    Ok(())
}
