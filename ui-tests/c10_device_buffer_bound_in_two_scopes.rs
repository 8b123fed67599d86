//! C10 pending device memory: device memory bound exclusively to one stream's scope cannot be
//! bound again by a scope of another stream, which would run concurrently with it.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let add = module.function("add_u32")?;
    let mut x = guard.alloc::<u32>(1024)?;
    let cfg = LaunchConfig::for_elements(1024);
    one.scope(|s1| {
        let x1 = s1.bind_mut(&mut x);
        unsafe { s1.launch(&add, cfg, (x1, 1u32, 1024u32)) }?;
        two.scope(|s2| {
            //~^ ERROR E0499
            let x2 = s2.bind_mut(&mut x);
            unsafe { s2.launch(&add, cfg, (x2, 2u32, 1024u32)) }
        })?
    })??;
    Ok(())
}
