//! C21 host memory the GPU can see (mipmapped arrays): no level of a mipmapped array can be
//! bound to a scope for copies while a texture reads it (the binding borrows it exclusively).
//! Positive twin: `mipmapped_array_is_read_at_two_levels` in `tests/gpu_sampling.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TextureOptions, TextureResource};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut mip = guard.alloc_mipmapped_array::<f32>(64, 32, 2)?;
    let texture = guard.texture_from(TextureResource::mipmapped(&mip), &TextureOptions::default())?;
    let host = vec![0.0f32; 32 * 16];
    stream.scope(|s| { //~ ERROR E0502 (the closure borrows `mip` mutably)
        let mut l1 = s.bind_level(&mut mip, 1)?;
        s.copy_to_array(&mut l1, &host)
    })??;
    drop(texture);
    Ok(())
}
