//! C10 pending device memory: a stream-ordered allocation is freed on its scope's stream and
//! cannot leave the scope (it is branded with it). Positive twin:
//! `c10_stream_ordered_alloc_in_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let escaped = stream.scope(|s| s.alloc::<u32>(16))?; //~ ERROR lifetime may not live long enough
    drop(escaped);
    Ok(())
}
