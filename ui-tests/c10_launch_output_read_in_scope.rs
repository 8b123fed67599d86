//! C10 pending device memory: device memory a kernel writes cannot be read on the host until
//! the launch is known complete.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemory, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let add = module.function("add_u32")?;
    let mut dev = guard.alloc::<u32>(1024)?;
    stream.scope(|s| -> custack::Result<Vec<u32>> {
        unsafe {
            s.launch(
                &add,
                LaunchConfig::for_elements(1024),
                (s.bind_mut(&mut dev), 1u32, 1024u32),
            )
        }?;
        dev.to_vec() //~ ERROR E0502
    })??;
    Ok(())
}
