//! NVIDIA's simpleTexture, as C writes it: an image rotated through a texture that *wraps*
//! around its edges, filters linearly and takes normalized coordinates.
//!
//! `cargo run --release --example 14_texture_rotation`
//!
//! The rotation reads outside the image at its corners; with wrap addressing those reads come
//! from the opposite edge. The example rotates the same image through a wrapping and a clamping
//! texture (`TextureOptions::address`, `AddressMode`), checks the wrapping one against a CPU
//! wrap of the same coordinates, and says how many pixels the clamping one gets wrong: those a
//! port that could only clamp would have got wrong.
// Pixel indices and extents are small: their conversions to floats are exact.
#![allow(clippy::cast_precision_loss, clippy::many_single_char_names)]
use custack::{
    AddressMode, Context, ContextFlags, DeviceMemory, Driver, FilterMode, LaunchConfig, Stack,
    TextureOptions,
};
use std::process::ExitCode;

const PTX: &str = include_str!("../tests/fixtures/sampling.ptx");
const W: usize = 512;
const H: usize = 384;
const ANGLE: f32 = 0.5;

custack::kernel_contract! {
    /// `rotate(cudaTextureObject_t tex, float* out, unsigned w, unsigned h, float c, float s)`:
    /// for each pixel `x < w`, `y < h` (checked), samples the texture at the pixel's position
    /// rotated by the angle of cosine `c` and sine `s` and writes it to `out[y * w + x]`.
    unsafe kernel Rotate = "rotate"(tex: texture, out: &mut [f32; w * h], w: u32, h: u32, c: f32, s: f32);
}

/// A test card: a smooth ramp with a checker on it, different at every edge.
fn image() -> Vec<f32> {
    (0..W * H)
        .map(|i| {
            let (x, y) = (i % W, i / W);
            let checker = if (x / 32 + y / 32) % 2 == 0 {
                0.25
            } else {
                0.0
            };
            x as f32 / W as f32 * 0.5 + y as f32 / H as f32 * 0.25 + checker
        })
        .collect()
}

/// The CPU's wrap-addressed bilinear sample of the rotation at pixel (x, y), with the same f32
/// coordinate arithmetic as the kernel; and how far the GPU may be from it (its filter weights
/// have 8 fractional bits).
fn cpu_wrap(src: &[f32], x: usize, y: usize, c: f32, s: f32) -> (f32, f32) {
    let u = x as f32 / W as f32 - 0.5;
    let v = y as f32 / H as f32 - 0.5;
    let (tu, tv) = ((u * c - v * s) + 0.5, (v * c + u * s) + 0.5);
    let (xb, yb) = (
        f64::from(tu) * W as f64 - 0.5,
        f64::from(tv) * H as f64 - 0.5,
    );
    let (i, j) = (xb.floor() as i64, yb.floor() as i64);
    let (a, b) = (xb - xb.floor(), yb - yb.floor());
    let texel = |i: i64, j: i64| {
        f64::from(src[j.rem_euclid(H as i64) as usize * W + i.rem_euclid(W as i64) as usize])
    };
    let t = [
        texel(i, j),
        texel(i + 1, j),
        texel(i, j + 1),
        texel(i + 1, j + 1),
    ];
    let value =
        (1.0 - a) * (1.0 - b) * t[0] + a * (1.0 - b) * t[1] + (1.0 - a) * b * t[2] + a * b * t[3];
    let spread =
        t.iter().copied().fold(f64::MIN, f64::max) - t.iter().copied().fold(f64::MAX, f64::min);
    (value as f32, (spread * 3.0 / 256.0 + 1e-5) as f32)
}

/// Rotates on the GPU through a wrapping and a clamping texture.
fn run() -> custack::Result<(Vec<f32>, Vec<f32>)> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(PTX)?;
    let rotate = module.declared::<Rotate>()?;
    let mut array = guard.alloc_array::<f32>(W, H)?;
    array.copy_from_host(&image())?;
    let stream = guard.stream()?;
    let cfg = LaunchConfig {
        grid: (W.div_ceil(16) as u32, H.div_ceil(16) as u32, 1),
        block: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    let mut results = Vec::new();
    for mode in [AddressMode::Wrap, AddressMode::Clamp] {
        let options = TextureOptions {
            filter: FilterMode::Linear,
            normalized: true,
            ..TextureOptions::default().with_address(mode)
        };
        let texture = guard.texture(&array, &options)?;
        let mut out = guard.alloc::<f32>(W * H)?;
        stream.scope(|s| {
            let (t, mut o) = (s.bind_texture(&texture), s.bind_mut(&mut out));
            let args = (t, &mut o, W as u32, H as u32, ANGLE.cos(), ANGLE.sin());
            // A safe launch: `out` is checked to hold w*h floats; the texture is bound to the
            // scope, so its array stays unwritten while the kernel samples it.
            s.run(&rotate, cfg, args)
        })??;
        results.push(out.to_vec()?);
    }
    let clamped = results.pop().unwrap_or_default();
    let wrapped = results.pop().unwrap_or_default();
    Ok((wrapped, clamped))
}

fn main() -> ExitCode {
    let (wrapped, clamped) = match run() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("14_texture_rotation: no GPU work done: {e}");
            return ExitCode::FAILURE;
        }
    };
    let src = image();
    let (c, s) = (ANGLE.cos(), ANGLE.sin());
    let (mut wrong, mut clamp_differs) = (0, 0);
    for y in 0..H {
        for x in 0..W {
            let (want, tolerance) = cpu_wrap(&src, x, y, c, s);
            wrong += usize::from((wrapped[y * W + x] - want).abs() > tolerance);
            clamp_differs += usize::from((clamped[y * W + x] - want).abs() > tolerance);
        }
    }
    if wrong > 0 {
        eprintln!(
            "14_texture_rotation: {wrong} of {} pixels differ from the CPU wrap",
            W * H
        );
        return ExitCode::FAILURE;
    }
    println!(
        "texture_rotation: {W}x{H} image rotated by {ANGLE} rad through a wrap-addressed, linearly filtered, normalized texture: every pixel equal to the CPU wrap; clamping instead would change {clamp_differs} pixels ({:.1}%)",
        100.0 * clamp_differs as f64 / (W * H) as f64
    );
    ExitCode::SUCCESS
}
