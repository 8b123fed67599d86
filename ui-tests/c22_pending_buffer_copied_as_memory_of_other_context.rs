//! C22 several contexts in flight: a device buffer of context A's pending work, lent to
//! context B's scope that waited for it on the GPU (`scope_after`), is only the source of a
//! peer copy: B's kernels and copies do not take it as B's device memory.
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
        let work = stream.submit((guard_a.alloc::<u32>(16)?,), |s, (mut d,)| s.fill_bytes(&mut d, 0))?;
        guard_a.park_submission(work)
    };
    guard_a.with_pushed(&b, |guard_b| -> custack::Result<()> {
        let stream = guard_b.stream()?;
        let mut host = vec![0u32; 16];
        stream.scope_after(&pending_a, |s, (dev_a,)| s.copy_to_host(&mut host, dev_a))? //~ ERROR E0277
    })??;
    pending_a.wait()?;
    Ok(())
}
