//! CUDA arrays, texture objects and surface objects on a device: copies sync and in scopes, a
//! kernel reading an array through a texture and one writing an array through a surface
//! (after NVIDIA's simpleTextureDrv and simpleSurfaceWrite samples).
mod common;
use common::context;
use custack::{DevicePtr, LaunchConfig, Stack, SurfaceHandle, TextureHandle, TextureOptions};

const PTX: &str = include_str!("fixtures/texture.ptx");
const W: usize = 64;
const H: usize = 32;

#[test]
#[ignore = "needs a CUDA device"]
fn arrays_textures_and_surfaces() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(PTX).unwrap();
    let tex_read = module
        .kernel::<(TextureHandle, DevicePtr<f32>, u32, u32)>("tex_read")
        .unwrap();
    let surf_write = module
        .kernel::<(SurfaceHandle, u32, u32)>("surf_write")
        .unwrap();
    let cfg = LaunchConfig {
        grid: (W as u32 / 16, H as u32 / 16, 1),
        block: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    let stream = guard.stream().unwrap();

    // An f32 image: copied in and out synchronously, then read by a kernel through a texture.
    let image: Vec<f32> = (0..W * H)
        .map(|i| f32::from((i % 251) as u8) * 0.5)
        .collect();
    let mut array = guard.alloc_array::<f32>(W, H).unwrap();
    array.copy_from_host(&image).unwrap();
    assert_eq!(array.to_vec().unwrap(), image);
    let texture = guard.texture(&array, &TextureOptions::default()).unwrap();
    let mut out = guard.alloc_zeroed::<f32>(W * H).unwrap();
    stream
        .scope(|s| {
            let (t, mut o) = (s.bind_texture(&texture), s.bind_mut(&mut out));
            // SAFETY: tex_read reads the texture at texel centres and writes w*h floats.
            unsafe { s.launch_kernel(&tex_read, cfg, (t, &mut o, W as u32, H as u32)) }
        })
        .unwrap()
        .unwrap();
    assert_eq!(
        custack::DeviceMemory::to_vec(&out).unwrap(),
        image,
        "point-sampled texels"
    );
    drop(texture); // the array may be written again

    // A u32 array written by a kernel through a surface, then copied out in a scope.
    let mut ids = guard.alloc_array::<u32>(W, H).unwrap();
    {
        let mut surface = guard.surface(&mut ids).unwrap();
        stream
            .scope(|s| {
                let mut sf = s.bind_surface(&mut surface);
                // SAFETY: surf_write writes w*h texels within the array's bounds.
                unsafe { s.launch_kernel(&surf_write, cfg, (&mut sf, W as u32, H as u32)) }
            })
            .unwrap()
            .unwrap();
    }
    let mut back = vec![0u32; W * H];
    stream
        .scope(|s| {
            let a = s.bind_array(&mut ids);
            s.copy_from_array(&mut back, &a)
        })
        .unwrap()
        .unwrap();
    let expected: Vec<u32> = (0..(W * H) as u32).collect();
    assert_eq!(back, expected);
    // And back in, asynchronously.
    stream
        .scope(|s| {
            let mut a = s.bind_array(&mut array);
            s.copy_to_array(&mut a, &image)
        })
        .unwrap()
        .unwrap();
    assert_eq!(array.to_vec().unwrap(), image);
    assert_eq!(
        array.copy_from_host(&image[1..]).unwrap_err().kind(),
        custack::ErrorKind::LengthMismatch
    );
}
