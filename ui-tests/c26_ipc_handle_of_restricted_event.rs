//! C26 the safety subset shares nothing with other processes (the trust boundary is the
//! process): a `RestrictedEvent` has no `ipc_handle` (`cuIpcGetEventHandle`).
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let event = init.event()?;
    let _handle = event.ipc_handle()?; //~ ERROR E0599
    Ok(())
}
