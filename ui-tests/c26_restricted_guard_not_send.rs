//! C26 the profile's guard stays on its thread, as every guard does (C6): a `RestrictedGuard`
//! cannot be sent to another thread, where its context is not current.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    std::thread::scope(|t| {
        t.spawn(move || guard.shutdown()); //~ ERROR E0277
    });
    Ok(())
}
