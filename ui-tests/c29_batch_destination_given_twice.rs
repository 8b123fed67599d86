//! C29 batched copies: a batch borrows each device side for as long as it lives, so one
//! binding cannot be two destinations of a batch (or a destination and a source of it), whose
//! copies the driver runs in no order. Positive twin: `c29_batch_of_copies` in
//! `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let (one, two) = (vec![1u32; 64], vec![2u32; 64]);
    let mut x = guard.alloc::<u32>(64)?;
    stream.scope(|s| -> custack::Result<()> {
        let mut d = s.bind_mut(&mut x);
        let mut batch = s.batch();
        batch.to_device(&mut d, &one)?;
        batch.to_device(&mut d, &two)?; //~ ERROR E0499
        s.copy_batch(batch)
    })??;
    Ok(())
}
