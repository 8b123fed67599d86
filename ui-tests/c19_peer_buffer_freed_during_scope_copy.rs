//! C19 two contexts at once: the other context's buffer of a scope's peer copy cannot be freed
//! (or re-attached, or its context dropped) while the copy may run.
//! Positive twin: `copies_between_two_contexts` in `tests/gpu_peer.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let (a, b) = (Context::new(device, ContextFlags::empty())?, Context::new(device, ContextFlags::empty())?);
    let mut stack = Stack::new()?;
    let parked = stack.with_pushed(&b, |g| -> custack::Result<_> { Ok(g.park(g.alloc::<u32>(16)?)) })??;
    let guard = stack.push(&a)?;
    let mut mine = guard.alloc::<u32>(16)?;
    guard.stream()?.scope(|s| -> custack::Result<()> {
        s.copy_from_peer(s.bind_mut(&mut mine), &parked)?; //~ ERROR E0597
        drop(parked); //~ ERROR E0505
        Ok(())
    })??;
    Ok(())
}
