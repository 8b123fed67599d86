//! C21 host memory the GPU can see (linear memory): a device buffer cannot be written while a
//! texture object reads it: the texture borrows it.
//! Positive twin: `texture_over_linear_memory_and_a_view_of_it` in `tests/gpu_sampling.rs`.
use custack::{
    Context, ContextFlags, DeviceMemoryMut, Driver, Stack, TextureOptions, TextureResource,
};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut buffer = guard.alloc::<f32>(1024)?;
    let texture = guard.texture_from(TextureResource::linear(&buffer), &TextureOptions::default())?;
    buffer.copy_from_host(&vec![0.0; 1024])?; //~ ERROR E0502
    drop(texture);
    Ok(())
}
