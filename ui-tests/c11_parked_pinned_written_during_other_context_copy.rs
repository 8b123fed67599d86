//! C11 pending host memory: a parked page-locked buffer of context A, handed to an asynchronous
//! copy of context B's stream scope under a nested push, cannot be written before the copy is
//! known complete.
//! Positive twin: `p11_staging_through_pinned` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut ga = stack.push(&a)?;
    let mut staging = ga.park_pinned(ga.alloc_pinned::<u32>(1024)?);
    ga.with_pushed(&b, |gb| -> custack::Result<()> {
        let stream = gb.stream()?;
        let mut dev = gb.alloc::<u32>(1024)?;
        stream.scope(|s| -> custack::Result<()> {
            s.copy_to_device(s.bind_mut(&mut dev), &staging)?;
            staging[0] = 42; //~ ERROR E0502
            Ok(())
        })?
    })??;
    Ok(())
}
