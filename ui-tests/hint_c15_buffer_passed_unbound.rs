//! Hint (C15 wrong-type arguments): a `DeviceBuffer` is bound to the scope before a launch takes
//! it; passing the buffer itself fails, and the message says how to bind it.
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let add = module.function("vector_add")?;
    let cfg = LaunchConfig::for_elements(4);
    let x = guard.alloc_from(&[1.0f32; 4])?;
    let y = guard.alloc_from(&[2.0f32; 4])?;
    let mut z = guard.alloc::<f32>(4)?;
    stream.scope(|s| unsafe { s.launch(&add, cfg, (&x, &y, &mut z, 4u32)) })??; //~ ERROR E0277
    Ok(())
}
