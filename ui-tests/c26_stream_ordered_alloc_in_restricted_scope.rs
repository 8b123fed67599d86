//! C26 the profile offers no stream-ordered allocation: a `RestrictedScope` has no `alloc`
//! (`cuMemAllocAsync`), since no memory pool is reserved for it and the run phase allocates
//! nothing; device memory is allocated in the init phase.
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
    stream.scope(|s| {
        let scratch = s.alloc::<u32>(1024)?; //~ ERROR E0599
        s.fill_bytes(&scratch, 0)
    })??;
    Ok(())
}
