//! C31 external semaphores: a semaphore is waited on only in a stream scope, whose end (the
//! one host wait, bounded by `scope_by`'s deadline) keeps it borrowed until the wait is over;
//! a stream itself has no such wait.
//! Positive twin: `c31_semaphore_waited_and_signalled_in_a_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, Timeline};
use std::os::fd::OwnedFd;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let fd: OwnedFd = std::fs::File::open("/dev/null")?.into();
    let semaphore = guard.import_semaphore::<Timeline>(fd)?;
    stream.wait_semaphore(&semaphore, 1)?; //~ ERROR E0599
    Ok(())
}
