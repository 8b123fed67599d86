//! Texture sampling as C asks for it: an address mode per dimension (wrap, clamp,
//! mirror, border with a border colour), linear filtering and normalized coordinates, checked
//! texel by texel against a CPU reference that implements the same addressing and filtering
//! (after NVIDIA's simpleTexture, which rotates an image through a wrap-addressed texture); a
//! mipmapped array read at two levels; textures over pitched and linear device memory; a
//! resource view.
//!
//! Positive twins of `ui-tests/c21_*_while_textured.rs`: the memory a texture reads is written
//! again only after the texture is dropped.
// Texel indices and extents here are small: their conversions to floats are exact.
#![allow(clippy::cast_precision_loss, clippy::many_single_char_names)]
mod common;
use common::context;
use custack::{
    AddressMode, DeviceMemory, DevicePtr, FilterMode, LaunchConfig, ResourceView, Stack,
    TextureHandle, TextureOptions, TextureResource,
};

const PTX: &str = include_str!("fixtures/sampling.ptx");
const TEXTURE_PTX: &str = include_str!("fixtures/texture.ptx");
const W: usize = 64;
const H: usize = 48;

custack::kernel_contract! {
    /// simpleTextureDrv's `transformKernel` (`transform` in `fixtures/sampling.ptx`): writes
    /// `out[y * w + x]` for every launched thread, with no bounds check, so it stays in
    /// `grid_y` rows of `w` only while the grid's x threads fit a row, in one layer of blocks.
    unsafe kernel Transform = "transform"(
        out: &mut [f32; grid_y * w],
        w: u32,
        h: u32,
        c: f32,
        s: f32,
        tex: texture,
    ) requires(w > 0, grid_x <= w, blocks_z == 1);
}

/// A 2D grid covering `w` × `h` in 16 × 16 blocks.
fn grid(w: usize, h: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (w.div_ceil(16) as u32, h.div_ceil(16) as u32, 1),
        block: (16, 16, 1),
        shared_mem_bytes: 0,
    }
}

/// An image with no symmetry: a ramp plus a pattern, so that every address mode reads
/// different texels outside the image.
fn image() -> Vec<f32> {
    (0..W * H)
        .map(|i| {
            let (x, y) = (i % W, i / W);
            ((x * 7 + y * 13) % 29) as f32 + 0.25 * x as f32 - 0.5 * y as f32
        })
        .collect()
}

/// The texel `k` of `n` that `mode` reads, or `None` for the border colour.
fn address(mode: AddressMode, k: i64, n: usize) -> Option<usize> {
    let n = n as i64;
    let k = match mode {
        AddressMode::Wrap => k.rem_euclid(n),
        AddressMode::Clamp => k.clamp(0, n - 1),
        AddressMode::Mirror => {
            let m = k.rem_euclid(2 * n);
            if m < n { m } else { 2 * n - 1 - m }
        }
        AddressMode::Border => {
            if (0..n).contains(&k) {
                k
            } else {
                return None;
            }
        }
    };
    Some(k as usize)
}

/// The rotation `rotate` computes, on the CPU: the same coordinates (the same f32 operations,
/// none fused), then bilinear filtering of the four texels around each (CUDA Programming
/// Guide, "Linear Filtering": `xB = x·W − 0.5`, taps `floor(xB)` and `floor(xB) + 1`, each
/// addressed by its dimension's mode). Returns each texel's value and its tolerance: the
/// hardware keeps the filter weights in 9-bit fixed point (8 fractional bits), so a result may
/// differ by a few 256ths of the spread of the four taps.
fn rotated(src: &[f32], modes: [AddressMode; 2], border: f32, c: f32, s: f32) -> Vec<(f32, f32)> {
    let tap = |i: i64, j: i64| match (address(modes[0], i, W), address(modes[1], j, H)) {
        (Some(x), Some(y)) => src[y * W + x],
        _ => border,
    };
    let mut out = Vec::with_capacity(W * H);
    for y in 0..H {
        for x in 0..W {
            let u = x as f32 / W as f32 - 0.5;
            let v = y as f32 / H as f32 - 0.5;
            let tu = (u * c - v * s) + 0.5;
            let tv = (v * c + u * s) + 0.5;
            let xb = f64::from(tu) * W as f64 - 0.5;
            let yb = f64::from(tv) * H as f64 - 0.5;
            let (i, j) = (xb.floor() as i64, yb.floor() as i64);
            let (a, b) = (xb - xb.floor(), yb - yb.floor());
            let t = [tap(i, j), tap(i + 1, j), tap(i, j + 1), tap(i + 1, j + 1)];
            let value = (1.0 - a) * (1.0 - b) * f64::from(t[0])
                + a * (1.0 - b) * f64::from(t[1])
                + (1.0 - a) * b * f64::from(t[2])
                + a * b * f64::from(t[3]);
            let spread = t.iter().copied().fold(f32::MIN, f32::max)
                - t.iter().copied().fold(f32::MAX, f32::min);
            out.push((
                value as f32,
                spread * 3.0 / 256.0 + 1e-4 * (1.0 + value.abs() as f32),
            ));
        }
    }
    out
}

/// Rotates `image()` by 0.5 rad through a linearly filtered, normalized texture with these
/// address modes (x, y) and border colour; returns the GPU's result and the CPU reference.
fn rotate_on_device(modes: [AddressMode; 2], border: f32) -> (Vec<f32>, Vec<(f32, f32)>) {
    let (c, s) = (0.5f32.cos(), 0.5f32.sin());
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(PTX).unwrap();
    let rotate = module
        .kernel::<(TextureHandle, DevicePtr<f32>, u32, u32, f32, f32)>("rotate")
        .unwrap();
    let src = image();
    let mut array = guard.alloc_array::<f32>(W, H).unwrap();
    array.copy_from_host(&src).unwrap();
    let options = TextureOptions {
        address: [modes[0], modes[1], AddressMode::Clamp],
        border_color: [border, 0.0, 0.0, 0.0],
        filter: FilterMode::Linear,
        normalized: true,
        ..TextureOptions::default()
    };
    let texture = guard.texture(&array, &options).unwrap();
    let mut out = guard.alloc_zeroed::<f32>(W * H).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|sc| {
            let (t, mut o) = (sc.bind_texture(&texture), sc.bind_mut(&mut out));
            let args = (t, &mut o, W as u32, H as u32, c, s);
            // SAFETY: `rotate` samples the texture and writes w*h floats of `out`.
            unsafe { sc.launch_kernel(&rotate, grid(W, H), args) }
        })
        .unwrap()
        .unwrap();
    (out.to_vec().unwrap(), rotated(&src, modes, border, c, s))
}

/// Texels where the GPU and the reference differ by more than the tolerance, as
/// `(x, y, gpu, reference)` (the first few, for the message).
fn mismatches(gpu: &[f32], reference: &[(f32, f32)]) -> Vec<(usize, usize, f32, f32)> {
    gpu.iter()
        .zip(reference)
        .enumerate()
        .filter(|(_, (g, (r, tol)))| (**g - *r).abs() > *tol)
        .map(|(i, (g, (r, _)))| (i % W, i / W, *g, *r))
        .collect()
}

#[test]
#[ignore = "needs a CUDA device"]
fn rotation_through_a_wrap_addressed_texture_matches_the_cpu_reference() {
    let wrap = [AddressMode::Wrap; 2];
    let (gpu, reference) = rotate_on_device(wrap, 0.0);
    let bad = mismatches(&gpu, &reference);
    assert!(
        bad.is_empty(),
        "{} texels differ: {:?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
    // The mode matters: against a clamping reference, the texels rotated in from outside the
    // image differ (the corners; about a tenth of the image).
    let clamped = rotated(
        &image(),
        [AddressMode::Clamp; 2],
        0.0,
        0.5f32.cos(),
        0.5f32.sin(),
    );
    let differ = mismatches(&gpu, &clamped).len();
    assert!(
        differ > W * H / 20,
        "only {differ} texels tell wrap from clamp"
    );
    println!(
        "wrap: {} texels match, {differ} differ from clamping",
        W * H
    );
}

/// NVIDIA's simpleTextureDrv ported as a user would, with no `unsafe` beyond the declaration:
/// its texture (WRAP addressing, linear filtering, normalized coordinates, as the sample asks),
/// its launch (8 × 8 blocks, a grid of `width / 8 × height / 8`) and its kernel without bounds
/// checks, checked texel by texel against the CPU reference (the sample compares with a
/// reference image); a grid wider than the image is refused before the driver.
#[test]
#[ignore = "needs a CUDA device"]
fn simple_texture_drv_port() {
    let (c, s) = (0.5f32.cos(), 0.5f32.sin());
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(PTX).unwrap();
    let transform = module.declared::<Transform>().unwrap();
    let src = image();
    let mut array = guard.alloc_array::<f32>(W, H).unwrap();
    array.copy_from_host(&src).unwrap();
    let options = TextureOptions {
        filter: FilterMode::Linear,
        normalized: true,
        ..TextureOptions::default().with_address(AddressMode::Wrap)
    };
    let texture = guard.texture(&array, &options).unwrap();
    let mut out = guard.alloc_zeroed::<f32>(W * H).unwrap();
    let blocks = |bx: usize| LaunchConfig {
        grid: (bx as u32, (H / 8) as u32, 1),
        block: (8, 8, 1),
        shared_mem_bytes: 0,
    };
    guard
        .stream()
        .unwrap()
        .scope(|sc| {
            let (t, mut o) = (sc.bind_texture(&texture), sc.bind_mut(&mut out));
            let (w, h) = (W as u32, H as u32);
            // One block too many per row: its threads would write into the next row and past
            // the image's end.
            let e = sc
                .run(&transform, blocks(W / 8 + 1), (&mut o, w, h, c, s, t))
                .unwrap_err();
            assert_eq!(e.kind(), custack::ErrorKind::PreconditionFailed);
            assert!(e.to_string().contains("`grid_x <= w`"), "{e}");
            sc.run(&transform, blocks(W / 8), (&mut o, w, h, c, s, t))
        })
        .unwrap()
        .unwrap();
    let gpu = out.to_vec().unwrap();
    let reference = rotated(&src, [AddressMode::Wrap; 2], 0.0, c, s);
    let bad = mismatches(&gpu, &reference);
    assert!(
        bad.is_empty(),
        "{} texels differ: {:?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn mirror_border_and_mixed_addressing_match_the_cpu_reference() {
    for (modes, border) in [
        ([AddressMode::Mirror; 2], 0.0),
        ([AddressMode::Border; 2], 7.5),
        ([AddressMode::Clamp; 2], 0.0),
        ([AddressMode::Wrap, AddressMode::Border], -3.0),
        ([AddressMode::Mirror, AddressMode::Clamp], 0.0),
    ] {
        let (gpu, reference) = rotate_on_device(modes, border);
        let bad = mismatches(&gpu, &reference);
        assert!(
            bad.is_empty(),
            "{modes:?}: {} texels differ: {:?}",
            bad.len(),
            &bad[..bad.len().min(8)]
        );
        if modes[1] == AddressMode::Border {
            assert!(
                gpu.iter().any(|v| (v - border).abs() < 1e-4),
                "{modes:?}: no texel is the border colour"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn mipmapped_array_is_read_at_two_levels() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(PTX).unwrap();
    let lod_read = module
        .kernel::<(TextureHandle, DevicePtr<f32>, u32, u32, f32)>("lod_read")
        .unwrap();
    let mut mip = guard.alloc_mipmapped_array::<f32>(W, H, 3).unwrap();
    assert_eq!((mip.width(), mip.height(), mip.levels()), (W, H, 3));
    assert_eq!(mip.level_extent(1).unwrap(), [W / 2, H / 2, 1]);
    assert_eq!(
        mip.level_extent(3).unwrap_err().kind(),
        custack::ErrorKind::OutOfRange
    );
    let level = |l: u32| -> Vec<f32> {
        let n = (W >> l) * (H >> l);
        (0..n).map(|i| 1000.0 * l as f32 + i as f32).collect()
    };
    for l in 0..3 {
        mip.copy_level_from_host(l, &level(l)).unwrap();
    }
    assert_eq!(mip.level_to_vec(1).unwrap(), level(1), "level round trip");
    let options = TextureOptions {
        normalized: true,
        max_mipmap_level_clamp: 2.0,
        ..TextureOptions::default()
    };
    let texture = guard
        .texture_from(TextureResource::mipmapped(&mip), &options)
        .unwrap();
    let stream = guard.stream().unwrap();
    for l in [0u32, 1] {
        let (w, h) = (W >> l, H >> l);
        let mut out = guard.alloc_zeroed::<f32>(w * h).unwrap();
        stream
            .scope(|s| {
                let (t, mut o) = (s.bind_texture(&texture), s.bind_mut(&mut out));
                let args = (t, &mut o, w as u32, h as u32, l as f32);
                // SAFETY: `lod_read` samples texel centres of level `l` and writes w*h floats.
                unsafe { s.launch_kernel(&lod_read, grid(w, h), args) }
            })
            .unwrap()
            .unwrap();
        assert_eq!(
            out.to_vec().unwrap(),
            level(l),
            "level {l} through the texture"
        );
    }
    drop(texture);
    mip.copy_level_from_host(0, &level(0)).unwrap(); // writable again
    // Level 2 in and out through a scope, in stream order.
    let reversed: Vec<f32> = level(2).into_iter().rev().collect();
    let mut back = vec![0f32; reversed.len()];
    stream
        .scope(|s| {
            let mut l2 = s.bind_level(&mut mip, 2)?;
            s.copy_to_array(&mut l2, &reversed)?;
            s.copy_from_array(&mut back, &l2)
        })
        .unwrap()
        .unwrap();
    assert_eq!(back, reversed, "level 2 through a scope");
    assert_eq!(mip.level_to_vec(2).unwrap(), reversed);
}

#[test]
#[ignore = "needs a CUDA device"]
fn texture_over_pitched_memory() {
    let (w, h) = (100usize, 37usize);
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(TEXTURE_PTX).unwrap();
    let tex_read = module
        .kernel::<(TextureHandle, DevicePtr<f32>, u32, u32)>("tex_read")
        .unwrap();
    let src: Vec<f32> = (0..w * h).map(|i| i as f32 * 0.5).collect();
    let mut pitched = guard.alloc_pitched::<f32>(w, h).unwrap();
    assert!(pitched.pitch_bytes() > w * 4, "rows are padded");
    pitched.copy_from_host(&src).unwrap();
    let texture = guard
        .texture_from(
            TextureResource::pitched(&pitched),
            &TextureOptions::default(),
        )
        .unwrap();
    let mut out = guard.alloc_zeroed::<f32>(w * h).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let (t, mut o) = (s.bind_texture(&texture), s.bind_mut(&mut out));
            // SAFETY: `tex_read` samples texel centres and writes w*h floats.
            unsafe { s.launch_kernel(&tex_read, grid(w, h), (t, &mut o, w as u32, h as u32)) }
        })
        .unwrap()
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), src, "point-sampled pitched rows");
    drop(texture);
    pitched.copy_from_host(&src).unwrap(); // writable again
}

#[test]
#[ignore = "needs a CUDA device"]
fn texture_over_linear_memory_and_a_view_of_it() {
    const N: usize = 1000;
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(PTX).unwrap();
    let fetch = module
        .kernel::<(TextureHandle, DevicePtr<f32>, u32)>("fetch")
        .unwrap();
    let src: Vec<f32> = (0..N).map(|i| i as f32 - 300.0).collect();
    let buffer = guard.alloc_from(&src).unwrap();
    let stream = guard.stream().unwrap();
    let half = buffer.slice(..N / 2).unwrap();
    for (resource, n) in [
        (TextureResource::linear(&buffer), N),
        (TextureResource::linear(&half), N / 2),
    ] {
        let texture = guard
            .texture_from(resource, &TextureOptions::default())
            .unwrap();
        let mut out = guard.alloc_zeroed::<f32>(n).unwrap();
        stream
            .scope(|s| {
                let (t, mut o) = (s.bind_texture(&texture), s.bind_mut(&mut out));
                let cfg = LaunchConfig::for_elements(n as u32);
                // SAFETY: `fetch` reads element i of the texture and writes n floats.
                unsafe { s.launch_kernel(&fetch, cfg, (t, &mut o, n as u32)) }
            })
            .unwrap()
            .unwrap();
        assert_eq!(out.to_vec().unwrap(), src[..n], "{n} elements fetched");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn array_view_reads_like_the_array() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(TEXTURE_PTX).unwrap();
    let tex_read = module
        .kernel::<(TextureHandle, DevicePtr<f32>, u32, u32)>("tex_read")
        .unwrap();
    let src = image();
    let mut array = guard.alloc_array::<f32>(W, H).unwrap();
    array.copy_from_host(&src).unwrap();
    let view = ResourceView::of_array(&array);
    assert_eq!((view.width, view.height, view.depth), (W, H, 1));
    let texture = guard
        .texture_from(
            TextureResource::array_view(&array, &view),
            &TextureOptions::default(),
        )
        .unwrap();
    let mut out = guard.alloc_zeroed::<f32>(W * H).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let (t, mut o) = (s.bind_texture(&texture), s.bind_mut(&mut out));
            // SAFETY: `tex_read` samples texel centres and writes w*h floats.
            unsafe { s.launch_kernel(&tex_read, grid(W, H), (t, &mut o, W as u32, H as u32)) }
        })
        .unwrap()
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), src, "the view's texels");
}

/// A view wider than its array, or of levels its resource does not have, is refused before
/// `cuTexObjectCreate` (`InvalidValue`, naming what does not fit): a texture reads as far as
/// its view says, so a view past its array must never reach the driver. The array stays usable
/// and a fitting view still makes a texture.
#[test]
#[ignore = "needs a CUDA device"]
fn a_view_past_its_array_or_its_levels_is_refused_before_the_driver() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let array = guard.alloc_array::<f32>(W, H).unwrap();
    let whole = ResourceView::of_array(&array);
    let mip = guard.alloc_mipmapped_array::<f32>(W, H, 3).unwrap();
    let options = TextureOptions::default();
    for (resource, says) in [
        (
            TextureResource::array_view(
                &array,
                &ResourceView {
                    width: 2 * W,
                    ..whole
                },
            ),
            "not its resource's",
        ),
        (
            TextureResource::array_view(&array, &whole.levels(0, 1)),
            "are not levels of its resource",
        ),
        (
            TextureResource::mipmapped_view(&mip, &ResourceView::of_mipmapped(&mip).levels(1, 3)),
            "are not levels of its resource",
        ),
    ] {
        let e = guard.texture_from(resource, &options).err().unwrap();
        assert_eq!(e.kind(), custack::ErrorKind::InvalidValue, "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    let fits = ResourceView::of_mipmapped(&mip).levels(1, 2);
    guard
        .texture_from(TextureResource::mipmapped_view(&mip, &fits), &options)
        .unwrap();
    guard
        .texture_from(TextureResource::array_view(&array, &whole), &options)
        .unwrap();
}

/// The CPU reference itself (no GPU): the address modes give different results outside the
/// image, so the GPU comparisons above can tell them apart, and the border colour appears
/// where every tap is outside.
#[test]
fn the_cpu_reference_tells_the_address_modes_apart() {
    let (c, s) = (0.5f32.cos(), 0.5f32.sin());
    let src = image();
    let wrap = rotated(&src, [AddressMode::Wrap; 2], 0.0, c, s);
    let values = |r: &[(f32, f32)]| r.iter().map(|(v, _)| *v).collect::<Vec<_>>();
    for other in [AddressMode::Clamp, AddressMode::Mirror, AddressMode::Border] {
        let r = rotated(&src, [other; 2], 0.0, c, s);
        let differ = mismatches(&values(&r), &wrap).len();
        assert!(
            differ > W * H / 20,
            "{other:?}: only {differ} texels differ from wrap"
        );
        println!("{other:?}: {differ} of {} texels differ from wrap", W * H);
    }
    let border = rotated(&src, [AddressMode::Border; 2], 7.5, c, s);
    assert!(values(&border).contains(&7.5));
    // Inside the image every mode agrees.
    let clamp = rotated(&src, [AddressMode::Clamp; 2], 0.0, c, s);
    let (cx, cy) = (W / 2, H / 2);
    let i = cy * W + cx;
    assert!((wrap[i].0 - clamp[i].0).abs() <= wrap[i].1);
    assert!((wrap[i].0 - border[i].0).abs() <= wrap[i].1);
}
