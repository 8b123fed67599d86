//! C27 no second init phase while the run phase lives: `RestrictedGuard::init` borrows the
//! guard exclusively for as long as the run phase and the values the first init made are used.
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
    let second = guard.init()?; //~ ERROR E0499
    let _extra = second.stream()?;
    stream.synchronize()?;
    run.synchronize()?;
    Ok(())
}
