//! C21 host memory the GPU can see (mipmapped arrays): no surface can write a level of a
//! mipmapped array while a texture reads it (the surface borrows it exclusively).
//! Positive twin: `mipmapped_array_is_read_at_two_levels` in `tests/gpu_sampling.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TextureOptions, TextureResource};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut mip = guard.alloc_mipmapped_array::<f32>(64, 32, 2)?;
    let texture = guard.texture_from(TextureResource::mipmapped(&mip), &TextureOptions::default())?;
    let surface = guard.surface_level(&mut mip, 1)?; //~ ERROR E0502
    drop((texture, surface));
    Ok(())
}
