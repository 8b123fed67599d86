//! C10 pending device memory: once a stream-ordered allocation's free is enqueued, no later
//! operation of the scope can use it. Positive twin: `c10_stream_ordered_alloc_in_scope` in
//! `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let host = [1u32; 16];
    let mut out = [0u32; 16];
    stream.scope(|s| -> custack::Result<()> {
        let mut a = s.alloc::<u32>(16)?;
        s.copy_to_device(&mut a, &host)?;
        a.free()?;
        s.copy_to_host(&mut out, &a) //~ ERROR E0382
    })??;
    Ok(())
}
