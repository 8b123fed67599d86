//! C9 function outlives module: a kernel function cannot be launched after `Module::unload`.
//! Positive twin: `c9_function_used_while_module_loaded` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let function = module.function("empty")?;
    module.unload()?; //~ ERROR E0505
    stream.scope(|s| unsafe { s.launch(&function, LaunchConfig::for_elements(1), ()) })??;
    Ok(())
}
