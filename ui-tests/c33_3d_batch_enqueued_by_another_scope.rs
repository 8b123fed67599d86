//! C33 batched 3D copies: a batch is branded with the scope that made it (invariant `'scope`), so
//! a batch over an array bound to one scope cannot be enqueued by another scope (of another
//! stream, opened inside the first), whose end would not wait for the array's scope's work nor
//! the array's scope for its copies.
//! Positive twin: `a_3d_batch_uploads_arrays_and_pitched_memory_and_another_reads_them_back` in
//! `tests/gpu_batch_copies.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, other) = (guard.stream()?, guard.stream()?);
    let up = vec![1.0f32; 64];
    let mut a = guard.alloc_array::<f32>(8, 8)?;
    stream.scope(|s| -> custack::Result<()> {
        let mut sa = s.bind_array(&mut a);
        let mut batch = s.batch_3d();
        batch.to_array(&mut sa, &up)?;
        other.scope(|t| t.copy_3d_batch(batch))? //~ ERROR E0521
    })??;
    Ok(())
}
