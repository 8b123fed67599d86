//! C10 pending device memory: device memory bound to one stream's scope cannot be the target of
//! a copy enqueued by a scope of another stream, which would run concurrently with it.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let host = guard.alloc_pinned::<u32>(1024)?;
    let mut x = guard.alloc::<u32>(1024)?;
    one.scope(|s1| {
        let mut x1 = s1.bind_mut(&mut x);
        s1.fill_bytes(&mut x1, 0)?;
        two.scope(|s2| s2.copy_to_device(x1, &host))? //~ ERROR E0521
    })??;
    Ok(())
}
