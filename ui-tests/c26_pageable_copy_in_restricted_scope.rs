//! C26 a restricted scope copies only page-locked memory the init phase allocated: a copy from
//! or to pageable memory (a `Vec`, an array) is staged by the driver and blocks the host outside
//! any deadline, so it does not compile: `PinnedHost` is made from a `PinnedBuffer` only.
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
    let mut dev = init.alloc::<u32>(1024)?;
    let _run = init.seal();
    let pageable = vec![0u32; 1024];
    stream.scope(|s| {
        let mut d = s.bind_mut(&mut dev);
        s.copy_to_device(&mut d, &pageable) //~ ERROR E0277
    })??;
    Ok(())
}
