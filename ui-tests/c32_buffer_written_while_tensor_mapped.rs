//! C32 tensor maps: a tensor map borrows its memory shared, so nothing writes the memory (a copy
//! into it, a writable binding) while the map may be launched with.
//! Positive twin: `tiles_loaded_through_a_tensor_map_match_the_cpu` in `tests/gpu_tensor_map.rs`.
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, Stack, TensorMap, Tiled};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut buf = guard.alloc_zeroed::<f32>(64 * 32)?;
    let map = TensorMap::tiled(&buf, &Tiled::new(&[64, 32], &[256], &[16, 8]))?;
    buf.copy_from_host(&[1.0; 64 * 32])?; //~ ERROR E0502
    let _ = map.base();
    Ok(())
}
