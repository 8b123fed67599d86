//! C3 out-of-order pop: the stack cannot be pushed on again while a guard pushed on it is alive
//! (nested pushes go through the guard's `with_pushed`), so guards cannot pop out of order.
//! Positive twin: `c3_outer_guard_used_after_inner_pops` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard_a = stack.push(&a)?;
    let guard_b = stack.push(&b)?; //~ ERROR E0499
    drop(guard_a);
    drop(guard_b);
    Ok(())
}
