//! C26 CUDA SAFETY 1.1 (no callbacks): a `RestrictedScope` has no `host_fn`. A host function
//! is a callback that the driver runs on a thread of its own when the stream reaches it, which
//! NVIDIA's safety subset excludes; a frame signals the host with an event instead.
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
    stream.scope(|s| s.host_fn(|| println!("frame done")))??; //~ ERROR E0599
    Ok(())
}
