//! C27 one init phase per restricted context, opened from one thread: a shared
//! `&RestrictedContext` (it is `Sync`) cannot be pushed, because `RestrictedContext::push`
//! takes `&mut self`; so two threads holding the same context cannot each open an init phase,
//! one of them allocating while the other's run phase runs.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let shared = &ctx;
    std::thread::scope(|t| {
        for _ in 0..2 {
            t.spawn(move || -> Result<(), custack::Error> {
                let mut stack = Stack::new()?;
                let mut guard = shared.push(&mut stack)?; //~ ERROR E0596
                let init = guard.init()?;
                let _buffer = init.alloc::<u8>(6_500_000)?;
                Ok(())
            });
        }
    });
    ctx.destroy()
}
