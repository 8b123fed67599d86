//! C10 pending device memory: a stream-ordered allocation of one stream's scope cannot be used
//! by a scope of another stream, whose work is not ordered with its free. Positive twin:
//! `c10_stream_ordered_alloc_in_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    one.scope(|s1| -> custack::Result<()> {
        let mut a = s1.alloc::<u8>(64)?;
        two.scope(|s2| s2.fill_bytes(&mut a, 0))? //~ ERROR E0521
    })??;
    Ok(())
}
