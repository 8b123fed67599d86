//! C9 function outlives module: a kernel function cannot be returned out of the block that owns
//! its module.
//! Positive twin: `c9_function_used_while_module_loaded` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let function = {
        let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
        module.function("empty")? //~ ERROR E0597
    };
    let _ = function.max_threads_per_block()?;
    Ok(())
}
