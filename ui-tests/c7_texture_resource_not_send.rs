//! C7 handles stay on their thread: a texture resource names memory of the context current on
//! this thread, so it cannot be sent to another thread (where another context may be current)
//! to make a texture there.
//! Positive twin: `texture_over_pitched_memory` in `tests/gpu_sampling.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TextureResource};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let image = guard.alloc_pitched::<f32>(100, 37)?;
    let resource = TextureResource::pitched(&image);
    std::thread::scope(|s| {
        s.spawn(move || drop(resource)); //~ ERROR E0277
    });
    Ok(())
}
