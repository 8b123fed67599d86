//! C11 pending host memory: a parked page-locked buffer of context A cannot be freed while an
//! asynchronous copy of context B's stream scope may still write it.
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
        let dev = gb.alloc::<u32>(1024)?;
        stream.scope(|s| -> custack::Result<()> {
            s.copy_to_host(&mut staging, s.bind(&dev))?;
            staging.free()?; //~ ERROR E0505
            Ok(())
        })?
    })??;
    Ok(())
}
