//! C13 launches are unsafe: a kernel cannot be launched outside `unsafe`, since its body is
//! unchecked code.
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let add = module.function("add_u32")?;
    let mut dev = guard.alloc::<u32>(1024)?;
    let cfg = LaunchConfig::for_elements(1024);
    stream.scope(|s| s.launch(&add, cfg, (s.bind_mut(&mut dev), 1u32, 1024u32)))??; //~ ERROR E0133
    Ok(())
}
