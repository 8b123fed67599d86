//! C31 external semaphores: a semaphore waited on in a scope stays borrowed until the scope's
//! end has waited for the stream, so it cannot be destroyed with the wait pending.
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
    stream.scope(|s| -> custack::Result<()> {
        s.wait_semaphore(&semaphore, 1)?; //~ ERROR E0597
        drop(semaphore); //~ ERROR E0505
        Ok(())
    })??;
    Ok(())
}
