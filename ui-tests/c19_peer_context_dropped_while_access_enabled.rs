//! C19 two contexts at once: the peer context of an enabled peer access cannot be dropped while
//! the access is enabled.
//! Positive twin: `copies_between_two_contexts` in `tests/gpu_peer.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let (a, b) = (Context::new(device, ContextFlags::empty())?, Context::new(device, ContextFlags::empty())?);
    let mut stack = Stack::new()?;
    let guard = stack.push(&a)?;
    let access = guard.enable_peer_access(&b)?;
    drop(b); //~ ERROR E0505
    drop(access);
    Ok(())
}
