//! C1 use-after-pop: a module lent by a guard cannot be used after the guard is dropped.
//! Positive twin: `c1_handles_used_before_pop` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    drop(guard); //~ ERROR E0505
    let _ = module.function("empty")?;
    Ok(())
}
