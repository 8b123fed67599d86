//! C21 host memory the GPU can see (arrays): a surface object borrows its array exclusively: no
//! texture (or anything else) may read it meanwhile.
//! Positive twin: `arrays_textures_and_surfaces` in `tests/gpu_texture.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TextureOptions};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut array = guard.alloc_array::<u32>(64, 32)?;
    let surface = guard.surface(&mut array)?;
    let texture = guard.texture(&array, &TextureOptions::default())?; //~ ERROR E0502
    drop(surface);
    drop(texture);
    Ok(())
}
