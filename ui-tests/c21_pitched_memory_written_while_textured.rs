//! C21 host memory the GPU can see (pitched memory): a pitched image cannot be written while a
//! texture object reads it: the texture borrows it.
//! Positive twin: `texture_over_pitched_memory` in `tests/gpu_sampling.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TextureOptions, TextureResource};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut image = guard.alloc_pitched::<f32>(100, 37)?;
    let texture = guard.texture_from(TextureResource::pitched(&image), &TextureOptions::default())?;
    image.copy_from_host(&vec![0.0; 100 * 37])?; //~ ERROR E0502
    drop(texture);
    Ok(())
}
