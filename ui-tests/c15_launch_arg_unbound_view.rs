//! C15 wrong-type arguments: a device view must be bound to the launching scope to be a kernel
//! argument.
//! Positive twin: `c14_disjoint_views` in `tests/patterns.rs` (views bound, then launched).
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let add = module.function("add_u32")?;
    let mut dev = guard.alloc::<u32>(1024)?;
    let view = dev.as_view_mut();
    let cfg = LaunchConfig::for_elements(1024);
    stream.scope(|s| unsafe { s.launch(&add, cfg, (view, 1u32, 1024u32)) })??; //~ ERROR E0277
    Ok(())
}
