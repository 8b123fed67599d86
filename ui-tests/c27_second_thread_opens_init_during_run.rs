//! C27 one init phase per restricted context, opened from one thread: `RestrictedContext::push`
//! borrows the context exclusively for as long as its guard lives, so a second thread cannot
//! push the same context and keep an init phase open (allocating) while this thread's run
//! phase runs. (A later init phase, once this one's guard is gone, is refused at run time.)
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    std::thread::scope(|t| -> Result<(), custack::Error> {
        let intruder = t.spawn(|| -> Result<(), custack::Error> {
            let mut stack = Stack::new()?;
            let mut guard = ctx.push(&mut stack)?;
            let init = guard.init()?;
            let _extra = init.alloc::<u8>(6_500_000)?;
            Ok(())
        });
        let mut stack = Stack::new()?;
        let mut guard = ctx.push(&mut stack)?; //~ ERROR E0499
        let init = guard.init()?;
        let stream = init.stream()?;
        let run = init.seal();
        stream.synchronize()?;
        run.synchronize()?;
        drop((stream, run));
        guard.shutdown()?;
        intruder.join().unwrap_or(Ok(()))
    })
}
