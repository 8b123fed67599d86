//! C22 several contexts in flight: memory moved into context A's parked work cannot be reached
//! while it is pending, in particular not while context B is current.
//! Positive twin: `p9_two_contexts_in_flight` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let host = guard_a.park_pinned(guard_a.alloc_pinned::<u32>(16)?);
    let pending_a = {
        let stream = guard_a.stream()?;
        let host = guard_a.attach_pinned(host)?;
        let dev = guard_a.alloc::<u32>(16)?;
        let work = stream.submit((host, dev), |s, (h, mut d)| s.copy_to_device(&mut d, h))?;
        guard_a.park_submission(work)
    };
    guard_a.with_pushed(&b, |_guard_b| host[0])?; //~ ERROR E0382
    pending_a.wait()?;
    Ok(())
}
