//! C27 the run phase creates nothing: `InitPhase::seal` consumes the init phase, so nothing
//! can be allocated from it afterwards.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let stream = init.stream()?;
    let run = init.seal();
    let extra = init.alloc::<u32>(1024)?; //~ ERROR E0382
    stream.synchronize()?;
    run.synchronize()?;
    drop(extra);
    Ok(())
}
