//! C22 several contexts in flight: a context cannot be dropped while its parked work is
//! pending (the parked submission borrows it).
//! Positive twin: `p9_two_contexts_in_flight` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let a = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let pending_a = {
        let guard_a = stack.push(&a)?;
        let stream = guard_a.stream()?;
        let work = stream.submit(guard_a.alloc::<u32>(16)?, |s, mut d| s.fill_bytes(&mut d, 0))?;
        guard_a.park_submission(work)
    };
    drop(a); //~ ERROR E0505
    pending_a.wait()?;
    Ok(())
}
