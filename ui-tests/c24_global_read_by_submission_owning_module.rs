//! C24 module globals: a submission that owns its module lends it shared, so its closure cannot
//! read a global on the host after launching a kernel of the module, which may still run (on a
//! non-blocking stream nothing orders the two).
//! Positive twin: `c24_global_read_after_its_kernels` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceMemory, Driver, LaunchConfig, Stack, StreamFlags};

custack::kernel_contract! {
    /// `count_threads()`: adds 1 to the module's global `counters[0]` per thread.
    unsafe kernel CountThreads = "count_threads"();
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream_with(StreamFlags::NON_BLOCKING, 0)?;
    let module = guard.load_ptx("")?;
    let pending = stream.submit(module, |s, module| {
        let count = module.declared::<CountThreads>()?;
        s.run(&count, LaunchConfig::for_elements(1 << 24), ())?;
        let seen = module.global::<u32>("counters")?.to_vec()?; //~ ERROR E0596
        assert_eq!(seen[0], 0);
        Ok(())
    })?;
    drop(pending.wait()?);
    Ok(())
}
