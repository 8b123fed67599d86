//! C32 tensor maps: a map's element type is its buffer's, named by the Rust type, so a map over
//! `u32` memory is not an argument for a contract's `tensor_map<f32>` parameter.
//! Positive twin: `tiles_loaded_through_a_tensor_map_match_the_cpu` in `tests/gpu_tensor_map.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack, TensorMap, Tiled};

custack::kernel_contract! {
    /// Loads tiles of f32 through `map`.
    unsafe kernel Tiles = "tiles"(map: tensor_map<f32>, out: &mut [f32; n], n: u32);
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let tiles = module.declared::<Tiles>()?;
    let words = guard.alloc_zeroed::<u32>(64 * 32)?;
    let mut out = guard.alloc_zeroed::<f32>(64)?;
    let map = TensorMap::tiled(&words, &Tiled::new(&[64, 32], &[256], &[16, 8]))?;
    let stream = guard.stream()?;
    stream.scope(|s| {
        let mut o = s.bind_mut(&mut out);
        s.run(&tiles, LaunchConfig::for_elements(64), (s.bind_tensor_map(&map), &mut o, 64u32)) //~ ERROR E0277
    })??;
    Ok(())
}
