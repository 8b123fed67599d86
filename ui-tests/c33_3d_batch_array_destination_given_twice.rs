//! C33 batched 3D copies: a batch borrows an array destination mutably while it lives, so one
//! array cannot be two destinations of a batch, whose copies the driver runs in no
//! order. Positive twin: `a_3d_batch_uploads_arrays_and_pitched_memory_and_another_reads_them_back`
//! in `tests/gpu_batch_copies.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let (one, two) = (vec![1.0f32; 64], vec![2.0f32; 64]);
    let mut a = guard.alloc_array::<f32>(8, 8)?;
    stream.scope(|s| -> custack::Result<()> {
        let mut sa = s.bind_array(&mut a);
        let mut batch = s.batch_3d();
        batch.to_array(&mut sa, &one)?;
        batch.to_array(&mut sa, &two)?; //~ ERROR E0499
        s.copy_3d_batch(batch)
    })??;
    Ok(())
}
