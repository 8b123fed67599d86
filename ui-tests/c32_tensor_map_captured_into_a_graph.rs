//! C32 tensor maps: a map over memory the graph does not own cannot reach a capture (its closure
//! is `'static`), so no graph, launched once or many times, holds a map whose memory may be
//! freed after the capture ends.
//! Positive twin: `tiles_loaded_through_a_tensor_map_match_the_cpu` in `tests/gpu_tensor_map.rs`.
use custack::{Context, ContextFlags, Driver, Stack, TensorMap, Tiled};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let buf = guard.alloc_zeroed::<f32>(64 * 32)?;
    let map = TensorMap::tiled(&buf, &Tiled::new(&[64, 32], &[256], &[16, 8]))?;
    let graph = stream.capture((), |s, ()| {
        let _bound = s.bind_tensor_map(&map); //~ ERROR E0373
        Ok(())
    })?;
    drop(buf);
    drop(graph);
    Ok(())
}
