//! C3 out-of-order pop: the guard `with_pushed` lends cannot be popped or moved by the closure;
//! `with_pushed` alone pops it, when the closure returns.
//! Positive twin: `c3_outer_guard_used_after_inner_pops` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    stack.with_pushed(&ctx, |guard| {
        guard.pop() //~ ERROR E0507
    })??;
    Ok(())
}
