//! C26 through the facade: a program that depends on custack-safety alone cannot name
//! `Context`, so it makes no context of the full API (whose guard lends everything outside
//! the subset) from the profile's device; its contexts are `RestrictedContext`s.
//! Positive twin: `custack-safety/tests/frame_compiles.rs` (example 22 through the facade).
use custack_safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack_safety::Error> {
    let profile = Profile::init(1)?;
    let _full = custack_safety::Context::new(profile.device(0)?, Default::default())?; //~ ERROR E0433
    let _ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    Ok(())
}
