//! C22 several contexts in flight: a parked page-locked buffer is no payload, so no submission
//! (of another context, which could be leaked while its context is destroyed) can own it.
//! Attach it to its own context's guard first (`attach_pinned`).
//! Positive twin: `p11_staging_through_pinned` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut ga = stack.push(&a)?;
    let staging = ga.park_pinned(ga.alloc_pinned::<u32>(1024)?);
    ga.with_pushed(&b, |gb| -> custack::Result<()> {
        let stream = gb.stream()?;
        let dev = gb.alloc::<u32>(1024)?;
        let pending = stream.submit((staging, dev), |s, (h, mut d)| s.copy_to_device(&mut d, h))?; //~ ERROR E0277
        pending.wait()?;
        Ok(())
    })??;
    Ok(())
}
