//! C24 module globals: the host cannot write a global while a pending submission holds a
//! declared kernel of the module (the kernel may read or write it): `global_mut` borrows the
//! module mutably, the submission's payload borrows it shared until `wait`.
//! Positive twin: `c24_global_read_after_its_kernels` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, LaunchConfig, Stack};

custack::kernel_contract! {
    /// `count_threads()`: adds 1 to the module's global `counters[0]` per thread.
    unsafe kernel CountThreads = "count_threads"();
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut module = guard.load_ptx("")?;
    let count = module.declared::<CountThreads>()?;
    let pending = stream.submit(count, |s, count| {
        s.run(&count, LaunchConfig::for_elements(1 << 24), ())
    })?;
    module.global_mut::<u32>("counters")?.fill_u32(0)?; //~ ERROR E0502
    pending.wait()?;
    Ok(())
}
