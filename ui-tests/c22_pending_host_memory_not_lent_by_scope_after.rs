//! C22 several contexts in flight: a scope that waited for context A's pending work on the GPU
//! (`scope_after`) is not lent that work's host memory: the host does not know the work is
//! done (it may still write it).
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
        let work = stream.submit((guard_a.alloc::<u32>(16)?, vec![0u32; 16]), |s, (d, h)| {
            s.copy_to_host(h, &d)
        })?;
        guard_a.park_submission(work)
    };
    let first = guard_a.with_pushed(&b, |guard_b| -> custack::Result<u32> {
        let stream = guard_b.stream()?;
        stream.scope_after(&pending_a, |_s, (_dev_a, host_a)| host_a[0]) //~ ERROR E0608
    })??;
    pending_a.wait()?;
    println!("{first}");
    Ok(())
}
