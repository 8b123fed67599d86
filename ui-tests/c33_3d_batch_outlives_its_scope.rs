//! C33 batched 3D copies: a batch is branded with its scope and cannot leave it (returned as the
//! scope's value), so its copies cannot be enqueued after the scope has waited for its stream
//! and released the arrays and host memory they name.
//! Positive twin: `a_3d_batch_uploads_arrays_and_pitched_memory_and_another_reads_them_back` in
//! `tests/gpu_batch_copies.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let escaped = stream.scope(|s| s.batch_3d())?; //~ ERROR lifetime may not live long enough
    drop(escaped);
    Ok(())
}
