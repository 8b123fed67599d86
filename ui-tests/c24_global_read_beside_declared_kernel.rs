//! C24 module globals: the host cannot hold a view of a module's global beside a declared kernel
//! of that module, which may write it: stream one's kernel would change the global while stream
//! two copies it (a `DeviceView`, like `&[T]`, changing under a shared borrow). `global` borrows
//! the module mutably.
//! Positive twin: `c24_global_read_after_its_kernels` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

custack::kernel_contract! {
    /// `count_threads()`: adds 1 to the module's global `counters[0]` per thread.
    unsafe kernel CountThreads = "count_threads"();
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let mut module = guard.load_ptx("")?;
    let count = module.declared::<CountThreads>()?;
    let counters = module.global::<u32>("counters")?; //~ ERROR E0502
    let mut out = vec![0u32; 4];
    one.scope(|s1| {
        s1.run(&count, LaunchConfig::for_elements(1 << 24), ())?;
        two.scope(|s2| s2.copy_to_host(&mut out[..], s2.bind(&counters)))?
    })??;
    Ok(())
}
