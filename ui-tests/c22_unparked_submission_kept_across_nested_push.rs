//! C22 several contexts in flight: a pending submission borrows its guard, so it cannot be kept
//! pending across a nested push of another context; park it (`park_submission`) to borrow only
//! its context.
//! Positive twin: `p9_two_contexts_in_flight` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let stream_a = guard_a.stream()?;
    let pending_a = stream_a.submit(guard_a.alloc::<u32>(16)?, |s, mut d| s.fill_bytes(&mut d, 0))?;
    guard_a.with_pushed(&b, |_guard_b| ())?; //~ ERROR E0502
    pending_a.wait()?;
    Ok(())
}
