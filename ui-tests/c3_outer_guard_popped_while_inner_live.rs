//! C3 out-of-order pop: an outer guard cannot be popped with `PushedGuard::pop` while a guard
//! pushed on top of it is alive.
//! Positive twin: `c3_outer_guard_used_after_inner_pops` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    guard_a.with_pushed(&b, |guard_b| {
        //~^ ERROR E0505
        guard_a.pop()?;
        guard_b.synchronize()
    })??;
    Ok(())
}
