//! C33 batched 3D copies: an array a batch writes is bound to the scope (`bind_array`) for the
//! whole scope, so it cannot be dropped (`cuArrayDestroy`) after the batch is enqueued and
//! before the scope's end has waited for the copy.
//! Positive twin: `a_3d_batch_uploads_arrays_and_pitched_memory_and_another_reads_them_back` in
//! `tests/gpu_batch_copies.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let up = vec![1.0f32; 64];
    let mut a = guard.alloc_array::<f32>(8, 8)?;
    stream.scope(|s| -> custack::Result<()> {
        let mut sa = s.bind_array(&mut a);
        let mut batch = s.batch_3d();
        batch.to_array(&mut sa, &up)?;
        s.copy_3d_batch(batch)?;
        drop(a); //~ ERROR E0505
        Ok(())
    })??;
    Ok(())
}
