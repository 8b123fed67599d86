//! C21 host memory the GPU can see (mipmapped arrays): no level of a mipmapped array can be
//! written while a texture object reads it: the texture borrows the whole mipmapped array.
//! Positive twin: `mipmapped_array_is_read_at_two_levels` in `tests/gpu_sampling.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TextureOptions, TextureResource};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut mip = guard.alloc_mipmapped_array::<f32>(64, 32, 2)?;
    let texture = guard.texture_from(TextureResource::mipmapped(&mip), &TextureOptions::default())?;
    mip.copy_level_from_host(1, &vec![0.0; 32 * 16])?; //~ ERROR E0502
    drop(texture);
    Ok(())
}
