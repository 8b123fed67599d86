//! C4 stale outer handles: a kernel of a module of the outer context cannot be launched while
//! another context is pushed on top of it.
//! Positive twin: `p3_nested_push` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let module_a = guard_a.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let empty_a = module_a.function("empty")?;
    guard_a.with_pushed(&b, |guard_b| {
        //~^ ERROR E0502
        let stream_b = guard_b.stream()?;
        stream_b.scope(|s| unsafe { s.launch(&empty_a, LaunchConfig::for_elements(1), ()) })?
    })??;
    Ok(())
}
