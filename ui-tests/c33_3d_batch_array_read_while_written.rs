//! C33 batched 3D copies: an array written by a batch cannot also be read by it (the source
//! borrow conflicts with the destination's mutable one), so no copy of the batch reads what
//! another writes in no particular order.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let up = vec![1.0f32; 64];
    let mut down = vec![0.0f32; 64];
    let mut a = guard.alloc_array::<f32>(8, 8)?;
    stream.scope(|s| -> custack::Result<()> {
        let mut sa = s.bind_array(&mut a);
        let mut batch = s.batch_3d();
        batch.to_array(&mut sa, &up)?;
        batch.from_array(&mut down, &sa)?; //~ ERROR E0502
        s.copy_3d_batch(batch)
    })??;
    Ok(())
}
