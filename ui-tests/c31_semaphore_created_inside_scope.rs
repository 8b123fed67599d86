//! C31 external semaphores: a scope borrows the semaphores it waits on for its whole life, so
//! one imported inside the scope (destroyed before the scope's end waits) cannot be waited on.
//! Positive twin: `c31_semaphore_waited_and_signalled_in_a_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, Timeline};
use std::os::fd::OwnedFd;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    stream.scope(|s| -> custack::Result<()> {
        let fd: OwnedFd = std::fs::File::open("/dev/null").map_err(|_| custack::Error::from_kind(custack::ErrorKind::InvalidValue))?.into();
        let semaphore = guard.import_semaphore::<Timeline>(fd)?;
        s.wait_semaphore(&semaphore, 1) //~ ERROR E0597
    })??;
    Ok(())
}
