//! C21 host memory the GPU can see (arrays), for a contract launch: a kernel whose contract
//! declares a texture parameter (`tex: texture`) takes the texture bound to the launching scope,
//! which borrows the texture, which borrows its array, so the array cannot be written while a
//! launch that samples it may run.
//! Positive twin: `simple_texture_drv_port` in `tests/gpu_sampling.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack, TextureOptions};

custack::kernel_contract! {
    /// `tex_read(cudaTextureObject_t tex, float* out, unsigned w, unsigned h)`.
    unsafe kernel TexRead = "tex_read"(tex: texture, out: &mut [f32; w * h], w: u32, h: u32);
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let tex_read = module.declared::<TexRead>()?;
    let mut array = guard.alloc_array::<f32>(64, 32)?;
    let texture = guard.texture(&array, &TextureOptions::default())?;
    let mut out = guard.alloc::<f32>(64 * 32)?;
    guard.stream()?.scope(|s| -> custack::Result<()> {
        let (t, mut o) = (s.bind_texture(&texture), s.bind_mut(&mut out));
        s.run(&tex_read, LaunchConfig::for_elements(64 * 32), (t, &mut o, 64, 32))?;
        array.copy_from_host(&vec![0.0; 64 * 32]) //~ ERROR E0502
    })??;
    Ok(())
}
