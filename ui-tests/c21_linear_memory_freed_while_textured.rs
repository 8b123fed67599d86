//! C21 host memory the GPU can see (linear memory): a device buffer cannot be freed while a
//! texture object over a view of it exists: the texture borrows the view, which borrows it.
//! Positive twin: `texture_over_linear_memory_and_a_view_of_it` in `tests/gpu_sampling.rs`.
use custack::{
    Context, ContextFlags, DeviceMemory, Driver, Stack, TextureOptions, TextureResource,
};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let buffer = guard.alloc::<f32>(1024)?;
    let half = buffer.slice(..512)?;
    let texture = guard.texture_from(TextureResource::linear(&half), &TextureOptions::default())?;
    buffer.free()?; //~ ERROR E0505
    drop(texture);
    Ok(())
}
