//! The program `textures` (C21): arrays, a mipmapped array, and textures over every resource kind
//! (an array and a view of it, a mipmapped array, linear and pitched memory); a surface over a
//! level; a texture bound to a scope and passed to a kernel; an asynchronous copy into an array;
//! a view wider than its array refused before the driver.

use custack::{Context, DeviceMemory, LaunchConfig, Result, Stack};

custack::kernel_contract! {
    /// `tex_read(cudaTextureObject_t tex, float* out, unsigned w, unsigned h)`: for x < w and
    /// y < h (checked), `out[y * w + x]` = the texel at (x, y).
    unsafe kernel TexRead = "tex_read"(tex: texture, out: &mut [f32; w * h], w: u32, h: u32);
}

/// Arrays, a mipmapped array and textures over every resource kind: a CUDA array
/// and a view of it, a mipmapped array, linear and pitched device memory; a surface over a
/// level; a texture bound to a scope and passed to a kernel; an asynchronous copy into an
/// array. (After `tests/gpu_sampling.rs` and `tests/gpu_texture.rs`.)
pub(crate) fn textures(ctx: &Context) -> Result<Vec<f32>> {
    use custack::{AddressMode, FilterMode, ResourceView, TextureOptions, TextureResource};
    const TEXTURE_PTX: &str = include_str!("../../../../tests/fixtures/texture.ptx");
    let (w, h) = (64usize, 32usize);
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(TEXTURE_PTX)?;
    let tex_read = module.declared::<TexRead>()?;
    let stream = guard.stream()?;
    let pixels = vec![0.5f32; w * h];
    let mut array = guard.alloc_array::<f32>(w, h)?;
    array.copy_from_host(&pixels)?;
    let mut mip = guard.alloc_mipmapped_array::<f32>(w, h, 2)?;
    mip.copy_level_from_host(0, &pixels)?;
    mip.copy_level_from_host(1, &pixels[..w * h / 4])?;
    let mut pitched = guard.alloc_pitched::<f32>(w, h)?;
    pitched.copy_from_host(&pixels)?;
    let linear = guard.alloc_from(&pixels)?;
    let options = TextureOptions {
        filter: FilterMode::Linear,
        normalized: true,
        border_color: [1.0, 0.0, 0.0, 0.0],
        max_mipmap_level_clamp: 1.0,
        ..TextureOptions::default().with_address(AddressMode::Wrap)
    };
    let view = ResourceView::of_array(&array);
    // A view wider than its array is refused before the driver is called (no
    // `cuTexObjectCreate`; the differential run's calls are the same either way).
    let wide = ResourceView {
        width: 2 * w,
        ..view
    };
    match guard.texture_from(TextureResource::array_view(&array, &wide), &options) {
        Err(e) if e.kind() == custack::ErrorKind::InvalidValue => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("a view twice its array's width made a texture"),
    }
    let textures = [
        guard.texture(&array, &options)?,
        guard.texture_from(TextureResource::array_view(&array, &view), &options)?,
        guard.texture_from(TextureResource::mipmapped(&mip), &options)?,
        guard.texture_from(
            TextureResource::mipmapped_view(&mip, &ResourceView::of_mipmapped(&mip).levels(0, 1)),
            &options,
        )?,
        guard.texture_from(
            TextureResource::pitched(&pitched),
            &TextureOptions::default(),
        )?,
        guard.texture_from(TextureResource::linear(&linear), &TextureOptions::default())?,
    ];
    let mut out = guard.alloc_zeroed::<f32>(w * h)?;
    let cfg = LaunchConfig {
        grid: (w as u32 / 16, h as u32 / 16, 1),
        block: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    for texture in &textures {
        stream.scope(|s| {
            let (t, mut o) = (s.bind_texture(texture), s.bind_mut(&mut out));
            // A contract launch with a texture parameter: the texture bound to this scope.
            s.run(&tex_read, cfg, (t, &mut o, w as u32, h as u32))
        })??;
    }
    drop(textures);
    {
        let _surface = guard.surface_level(&mut mip, 1)?;
    }
    drop(guard.surface(&mut array)?);
    stream.scope(|s| {
        let mut a = s.bind_array(&mut array);
        s.copy_to_array(&mut a, &pixels)
    })??;
    let mut level1 = vec![0.0f32; w * h / 4];
    stream.scope(|s| {
        let l1 = s.bind_level(&mut mip, 1)?;
        s.copy_from_array(&mut level1, &l1)
    })??;
    let mut result = out.to_vec()?;
    result.extend(mip.level_to_vec(1)?);
    result.extend(array.to_vec()?);
    Ok(result)
}
