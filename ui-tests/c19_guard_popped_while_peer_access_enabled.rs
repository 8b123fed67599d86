//! C19 two contexts at once: the context that enabled peer access cannot be popped while the
//! access is enabled (its drop disables the access in that context).
//! Positive twin: `copies_between_two_contexts` in `tests/gpu_peer.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let (a, b) = (Context::new(device, ContextFlags::empty())?, Context::new(device, ContextFlags::empty())?);
    let mut stack = Stack::new()?;
    let guard = stack.push(&a)?;
    let access = guard.enable_peer_access(&b)?;
    guard.pop()?; //~ ERROR E0505
    drop(access);
    Ok(())
}
