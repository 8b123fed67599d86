//! C15 wrong-type arguments: a reference to host memory cannot be a kernel argument: the
//! device cannot dereference a host address.
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let add = module.function("add_u32")?;
    let mut host = [0u32; 1024];
    let cfg = LaunchConfig::for_elements(1024);
    stream.scope(|s| unsafe { s.launch(&add, cfg, (&mut host, 1u32, 1024u32)) })??; //~ ERROR E0277
    Ok(())
}
