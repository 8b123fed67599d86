//! C29 batched copies: a batch is branded with its scope and cannot leave it, so its copies
//! cannot be enqueued after the scope has waited for its stream and released what they borrow.
//! Positive twin: `c29_batch_of_copies` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let escaped = stream.scope(|s| s.batch())?; //~ ERROR lifetime may not live long enough
    drop(escaped);
    Ok(())
}
