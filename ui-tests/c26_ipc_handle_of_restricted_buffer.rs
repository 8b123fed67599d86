//! C26 the safety subset shares no memory with other processes (the trust boundary is the
//! process): a `RestrictedBuffer` has no `ipc_handle` (`cuIpcGetMemHandle`).
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let buf = init.alloc::<u32>(1024)?;
    let _handle = buf.ipc_handle()?; //~ ERROR E0599
    Ok(())
}
