//! C9 function outlives module: a module cannot be dropped (unloaded) inside a stream scope
//! after one of its kernels was launched there: the launch borrows the function, and so the
//! module, until the scope has waited for the stream. Positive twin:
//! `c9_function_used_while_module_loaded` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    stream.scope(|s| -> custack::Result<()> {
        let module = guard.load_ptx("")?;
        let empty = module.function("empty")?;
        unsafe { s.launch(&empty, LaunchConfig::for_elements(1), ()) }?; //~ ERROR E0597
        drop(module);
        Ok(())
    })??;
    Ok(())
}
