//! C29 batched copies: a batch belongs to the scope that made it and takes only memory bound
//! to that scope: a destination bound to an outer stream's scope cannot join a batch of an
//! inner scope on another stream, whose copies would run concurrently with the outer scope's
//! work. Positive twin: `c29_batch_of_copies` in `tests/patterns.rs`.
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
        two.scope(|s2| -> custack::Result<()> {
            let mut batch = s2.batch();
            batch.to_device(x1, &host)?; //~ ERROR E0521
            s2.copy_batch(batch)
        })?
    })??;
    Ok(())
}
