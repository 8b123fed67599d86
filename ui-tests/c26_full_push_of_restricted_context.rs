//! C26 the full API is never reachable from a `RestrictedContext`: `Stack::push` takes a
//! `Context`, so the restricted context cannot be pushed as one to get a `PushedGuard` (whose
//! API is everything outside the subset); its only guard is `RestrictedContext::push`'s.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?; //~ ERROR E0308
    let _stream = guard.stream()?;
    Ok(())
}
