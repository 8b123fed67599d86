//! C22 several contexts in flight: what context A's parked work hands back is parked memory of
//! A, which context B's operations do not take as device memory (it must be attached to a
//! guard of A first).
//! Positive twin: `p9_two_contexts_in_flight` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let pending_a = {
        let stream = guard_a.stream()?;
        let work = stream.submit(guard_a.alloc::<u32>(16)?, |s, mut d| s.fill_bytes(&mut d, 0))?;
        guard_a.park_submission(work)
    };
    guard_a.with_pushed(&b, |guard_b| -> custack::Result<()> {
        let dev_a = pending_a.wait()?; // a ParkedBuffer of A
        let mut host = vec![0u32; 16];
        guard_b.stream()?.scope(|s| s.copy_to_host(&mut host, s.bind(&dev_a)))? //~ ERROR E0277
    })??;
    Ok(())
}
