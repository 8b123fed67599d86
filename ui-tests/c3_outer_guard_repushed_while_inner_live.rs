//! C3 out-of-order pop: an outer guard cannot push again while a guard pushed on top of it is
//! alive: only the innermost guard can push.
//! Positive twin: `c3_outer_guard_used_after_inner_pops` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let c = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    guard_a.with_pushed(&b, |_guard_b| {
        //~^ ERROR E0499
        guard_a.with_pushed(&c, |guard_c| guard_c.synchronize())
    })???;
    Ok(())
}
