//! C33 batched discards: discarding leaves a range's contents unspecified, a write, so a
//! discard batch takes only memory the scope may write; a read-only binding is refused.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let m = guard.alloc_managed::<f32>(1024)?;
    stream.scope(|s| -> custack::Result<()> {
        let r = s.bind(&m);
        let mut batch = s.discard_batch();
        batch.add(r); //~ ERROR E0277
        s.discard_all(batch)
    })??;
    Ok(())
}
