//! C3 out-of-order pop: the stack's own `with_pushed` cannot be used while a guard pushed on
//! the stack is alive: only the top of the stack can push.
//! Positive twin: `c3_outer_guard_used_after_inner_pops` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard_a = stack.push(&a)?;
    stack.with_pushed(&b, |guard_b| guard_b.synchronize())??; //~ ERROR E0499
    guard_a.synchronize()?;
    Ok(())
}
