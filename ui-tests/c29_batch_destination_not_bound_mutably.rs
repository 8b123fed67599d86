//! C29 batched copies: a batch's destination is written, so it must be bound for writing
//! (`bind_mut`), as a single copy's is; a shared binding (`bind`) cannot be a batch's
//! destination. Positive twin: `c29_batch_of_copies` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let host = vec![1u32; 64];
    let x = guard.alloc::<u32>(64)?;
    stream.scope(|s| -> custack::Result<()> {
        let mut batch = s.batch();
        batch.to_device(s.bind(&x), &host)?; //~ ERROR E0277 (not device memory this scope may write)
        s.copy_batch(batch)
    })??;
    Ok(())
}
