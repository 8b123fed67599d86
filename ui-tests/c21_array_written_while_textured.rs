//! C21 host memory the GPU can see (arrays): an array cannot be written (or freed) while a
//! texture object reads it: the texture borrows it.
//! Positive twin: `arrays_textures_and_surfaces` in `tests/gpu_texture.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TextureOptions};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut array = guard.alloc_array::<f32>(64, 32)?;
    let texture = guard.texture(&array, &TextureOptions::default())?;
    array.copy_from_host(&vec![0.0; 64 * 32])?; //~ ERROR E0502
    drop(texture);
    Ok(())
}
