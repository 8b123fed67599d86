//! C15 wrong-type arguments: a `String` cannot be a kernel argument: it is neither plain data
//! nor device memory.
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let empty_ptr = module.function("empty_ptr")?;
    let name = String::from("not device memory");
    stream.scope(|s| unsafe { s.launch(&empty_ptr, LaunchConfig::for_elements(1), (name,)) })??; //~ ERROR E0277
    Ok(())
}
