//! C1 use-after-pop: a kernel function (through its module) cannot be used after the guard
//! that lent the module is dropped.
//! Positive twin: `c1_handles_used_before_pop` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let function = module.function("empty")?;
    drop(guard); //~ ERROR E0505
    let _ = function.max_threads_per_block()?;
    Ok(())
}
