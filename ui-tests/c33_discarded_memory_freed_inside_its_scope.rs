//! C33 batched discards: managed memory a discard batch names is bound to the scope for the
//! whole scope, so it cannot be freed after the batch is enqueued and before the scope's end has
//! waited for the discard.
//! Positive twin: `batched_prefetches_move_managed_memory_and_a_discard_leaves_it_writable` in
//! `tests/gpu_batch_copies.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut m = guard.alloc_managed::<f32>(1024)?;
    stream.scope(|s| -> custack::Result<()> {
        let w = s.bind_mut(&mut m);
        let mut batch = s.discard_batch();
        batch.add(w);
        s.discard_all(batch)?;
        drop(m); //~ ERROR E0505
        Ok(())
    })??;
    Ok(())
}
