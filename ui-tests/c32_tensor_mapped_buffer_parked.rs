//! C32 tensor maps: a map borrows the device memory it is over, so the buffer cannot be moved
//! into a parked buffer (which floats free of the guard and may be freed or attached elsewhere)
//! while the map lives.
//! Positive twin: `tiles_loaded_through_a_tensor_map_match_the_cpu` in `tests/gpu_tensor_map.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TensorMap, Tiled};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let buf = guard.alloc_zeroed::<f32>(64 * 32)?;
    let map = TensorMap::tiled(&buf, &Tiled::new(&[64, 32], &[256], &[16, 8]))?;
    let parked = guard.park(buf); //~ ERROR E0505
    let _ = map.base();
    drop(parked);
    Ok(())
}
