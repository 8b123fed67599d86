//! C22 several contexts in flight: what `scope_after` lends of A's pending work is branded with
//! the scope that waited for it on the GPU; a scope nested in it on another stream of B, which
//! never waited, cannot copy from it while A's work may still write it.
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
        let work = stream.submit(guard_a.alloc::<u32>(16)?, |s, mut d| s.fill_bytes(&mut d, 1))?;
        guard_a.park_submission(work)
    };
    guard_a.with_pushed(&b, |guard_b| -> custack::Result<()> {
        let (waited, other) = (guard_b.stream()?, guard_b.stream()?);
        let mut copy = guard_b.alloc::<u32>(16)?;
        waited.scope_after(&pending_a, |_s, src| {
            other.scope(|s2| s2.copy_from_pending(s2.bind_mut(&mut copy), src))? //~ ERROR E0521
        })?
    })??;
    pending_a.wait()?;
    Ok(())
}
