//! C4 stale outer handles: an event of the outer context cannot be recorded while another
//! context is pushed on top of it.
//! Positive twin: `p3_nested_push` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, EventFlags, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let event_a = guard_a.event(EventFlags::empty())?;
    guard_a.with_pushed(&b, |guard_b| {
        //~^ ERROR E0502
        let stream_b = guard_b.stream()?;
        stream_b.record(&event_a)
    })??;
    Ok(())
}
