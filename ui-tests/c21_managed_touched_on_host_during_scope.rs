//! C21 host memory the GPU can see: managed memory cannot be touched on the host while device
//! work that may use it is pending (here, a scope's memset).
//! Positive twin: `managed_memory_on_the_host_and_the_device` in `tests/gpu_memory.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut data = guard.alloc_managed::<u32>(1024)?;
    guard.stream()?.scope(|s| -> custack::Result<()> {
        let mut d = s.bind_mut(&mut data);
        s.fill_u32(&mut d, 1)?;
        data[0] = 2; //~ ERROR E0499
        Ok(())
    })??;
    Ok(())
}
