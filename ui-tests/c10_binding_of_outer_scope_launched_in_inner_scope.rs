//! C10 pending device memory: device memory bound to one stream's scope cannot be a kernel
//! argument in a scope of another stream, where both kernels would write it concurrently.
//! (Found in review: an earlier `launch` only asked that arguments outlive the scope, and two
//! streams lost updates on an H100.) Positive twin: `c10_c11_memory_reused_after_scope` in
//! `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let add = module.function("add_u32")?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let mut x = guard.alloc::<u32>(1024)?;
    let cfg = LaunchConfig::for_elements(1024);
    one.scope(|s1| {
        let mut x1 = s1.bind_mut(&mut x);
        unsafe { s1.launch(&add, cfg, (&mut x1, 1u32, 1024u32)) }?;
        two.scope(|s2| -> custack::Result<()> {
            unsafe { s2.launch(&add, cfg, (x1, 2u32, 1024u32)) }?; //~ ERROR E0521
            Ok(())
        })?
    })??;
    Ok(())
}
