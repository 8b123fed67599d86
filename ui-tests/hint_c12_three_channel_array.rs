//! Hint (C12 plain data only, arrays): CUDA arrays have no 3-channel format; the
//! message lists the element types and says to pad to four channels.
//! Positive twin: `arrays_textures_and_surfaces` in `tests/gpu_texture.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _array = guard.alloc_array::<[f32; 3]>(16, 16)?; //~ ERROR E0277
    Ok(())
}
