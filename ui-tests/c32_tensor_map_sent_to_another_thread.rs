//! C32 tensor maps: a map names device memory of the context current on this thread, so it
//! cannot be sent to another thread, where a scope of another context could launch with it.
//! Positive twin: `tiles_loaded_through_a_tensor_map_match_the_cpu` in `tests/gpu_tensor_map.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TensorMap, Tiled};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let buf = guard.alloc_zeroed::<f32>(64 * 32)?;
    let map = TensorMap::tiled(&buf, &Tiled::new(&[64, 32], &[256], &[16, 8]))?;
    std::thread::scope(|t| {
        t.spawn(|| map.base()); //~ ERROR E0277
    });
    Ok(())
}
