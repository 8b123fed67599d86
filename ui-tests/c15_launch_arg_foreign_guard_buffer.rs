//! C15 wrong-type arguments: a buffer of an outer guard cannot be a kernel argument of a launch
//! inside a nested push: it is not lent by the current guard.
//! Positive twin: `p3_nested_push` in `tests/patterns.rs` (park, nested push, attach).
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let mut buffer_a = guard_a.alloc::<u32>(1024)?;
    guard_a.with_pushed(&b, |guard_b| -> custack::Result<()> {
        //~^ ERROR E0502
        let stream_b = guard_b.stream()?;
        let module_b = guard_b.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
        let add_b = module_b.function("add_u32")?;
        let cfg = LaunchConfig::for_elements(1024);
        stream_b.scope(|s| unsafe {
            s.launch(&add_b, cfg, (s.bind_mut(&mut buffer_a), 1u32, 1024u32))
        })?
    })??;
    Ok(())
}
