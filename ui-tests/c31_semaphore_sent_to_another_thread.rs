//! C31 external semaphores: a semaphore belongs to the context current on this thread (it
//! borrows the guard), so it cannot be sent to another thread, where its
//! `cuDestroyExternalSemaphore` would run in whatever context is current there.
//! Positive twin: `c31_semaphore_waited_and_signalled_in_a_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, Timeline};
use std::os::fd::OwnedFd;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let fd: OwnedFd = std::fs::File::open("/dev/null")?.into();
    let semaphore = guard.import_semaphore::<Timeline>(fd)?;
    std::thread::scope(|t| {
        t.spawn(move || drop(semaphore)); //~ ERROR E0277
    });
    Ok(())
}
