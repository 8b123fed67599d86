//! C23 kernel contracts: a surface parameter (`surf: surface`) is one the kernel may write, so
//! it takes `&mut` the surface bound to the scope, like a buffer declared `&mut`; a shared
//! reference to the binding is refused.
//! Positive twin: `arrays_textures_and_surfaces` in `tests/gpu_texture.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

custack::kernel_contract! {
    /// `surf_write(cudaSurfaceObject_t surf, unsigned w, unsigned h)`.
    unsafe kernel SurfWrite = "surf_write"(surf: surface, w: u32, h: u32);
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let surf_write = module.declared::<SurfWrite>()?;
    let mut ids = guard.alloc_array::<u32>(64, 32)?;
    let mut surface = guard.surface(&mut ids)?;
    guard.stream()?.scope(|s| {
        let sf = s.bind_surface(&mut surface);
        s.run(&surf_write, LaunchConfig::for_elements(64), (&sf, 64, 32)) //~ ERROR E0277
    })??;
    Ok(())
}
