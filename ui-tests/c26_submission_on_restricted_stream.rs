//! C26 CUDA SAFETY 1.1 (no callbacks): a `RestrictedStream` has no `submit`. A submission's
//! future is woken by a host function the driver calls on its own thread when the stream
//! reaches it, a callback that NVIDIA's safety subset excludes; a scope waits instead.
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
    let _run = init.seal();
    let pending = stream.submit(vec![0u32; 4], |_s, _host| Ok(()))?; //~ ERROR E0599
    pending.wait()?;
    Ok(())
}
