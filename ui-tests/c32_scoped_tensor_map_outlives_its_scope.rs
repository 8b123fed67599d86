//! C32 tensor maps: a map bound to a scope is an argument of that scope only; it cannot leave
//! the scope's closure, where its memory would no longer be borrowed by the scope.
//! Positive twin: `tiles_loaded_through_a_tensor_map_match_the_cpu` in `tests/gpu_tensor_map.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TensorMap, Tiled};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let buf = guard.alloc_zeroed::<f32>(64 * 32)?;
    let map = TensorMap::tiled(&buf, &Tiled::new(&[64, 32], &[256], &[16, 8]))?;
    let stream = guard.stream()?;
    let escaped = stream.scope(|s| s.bind_tensor_map(&map))?; //~ ERROR lifetime may not live long enough
    let _ = escaped;
    Ok(())
}
