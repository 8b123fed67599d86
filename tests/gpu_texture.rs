//! CUDA arrays, texture objects and surface objects on a device: copies sync and in scopes, a
//! kernel reading an array through a texture and one writing an array through a surface
//! (after NVIDIA's simpleTextureDrv and simpleSurfaceWrite samples).
mod common;
use common::context;
use custack::{DevicePtr, LaunchConfig, Stack, TextureHandle, TextureOptions};

const PTX: &str = include_str!("fixtures/texture.ptx");
const W: usize = 64;
const H: usize = 32;

custack::kernel_contract! {
    /// `surf_write(cudaSurfaceObject_t surf, unsigned w, unsigned h)`: writes its index to the
    /// texel (x, y) of the surface's array for every launched thread with x < w and y < h
    /// (checked), through the surface (bounds-checked by the hardware).
    unsafe kernel SurfWrite = "surf_write"(surf: surface, w: u32, h: u32);
}

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
    let surf_write = module.declared::<SurfWrite>().unwrap();
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
                // A safe launch: the surface is bound to this scope exclusively.
                s.run(&surf_write, cfg, (&mut sf, W as u32, H as u32))
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

/// A 3D array: packed host voxels in and out synchronously and in a scope, and read by a
/// kernel through a 3D texture at every voxel centre.
#[test]
#[ignore = "needs a CUDA device"]
fn three_dimensional_arrays() {
    const D: usize = 8;
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(PTX).unwrap();
    let tex3d_read = module
        .kernel::<(TextureHandle, DevicePtr<f32>, u32, u32)>("tex3d_read")
        .unwrap();
    let stream = guard.stream().unwrap();

    let voxels: Vec<f32> = (0..W * H * D)
        .map(|i| f32::from((i % 1009) as u16))
        .collect();
    let mut volume = guard.alloc_array_3d::<f32>(W, H, D).unwrap();
    assert_eq!((volume.width(), volume.height(), volume.depth()), (W, H, D));
    volume.copy_from_host(&voxels).unwrap();
    assert_eq!(volume.to_vec().unwrap(), voxels, "synchronous round trip");
    let err = volume.copy_from_host(&voxels[..W * H]).unwrap_err();
    assert_eq!(err.kind(), custack::ErrorKind::LengthMismatch);
    assert!(err.to_string().contains("64x32x8"), "{err}");

    // Reversed voxels in through a scope, read back through a scope.
    let reversed: Vec<f32> = voxels.iter().rev().copied().collect();
    let mut back = vec![0f32; W * H * D];
    stream
        .scope(|s| {
            let mut a = s.bind_array(&mut volume);
            s.copy_to_array(&mut a, &reversed)?;
            s.copy_from_array(&mut back, &a)
        })
        .unwrap()
        .unwrap();
    assert_eq!(back, reversed, "scoped round trip, in stream order");

    let texture = guard.texture(&volume, &TextureOptions::default()).unwrap();
    let mut out = guard.alloc_zeroed::<f32>(W * H * D).unwrap();
    let cfg = LaunchConfig {
        grid: (W as u32 / 16, H as u32 / 16, D as u32),
        block: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    stream
        .scope(|s| {
            let (t, mut o) = (s.bind_texture(&texture), s.bind_mut(&mut out));
            // SAFETY: tex3d_read samples voxel centres and writes w*h floats per z block.
            unsafe { s.launch_kernel(&tex3d_read, cfg, (t, &mut o, W as u32, H as u32)) }
        })
        .unwrap()
        .unwrap();
    assert_eq!(
        custack::DeviceMemory::to_vec(&out).unwrap(),
        reversed,
        "point-sampled voxels"
    );

    // A 1D array: height and depth 1.
    let mut line = guard.alloc_array_3d::<u32>(1000, 1, 1).unwrap();
    let ramp: Vec<u32> = (0..1000).collect();
    line.copy_from_host(&ramp).unwrap();
    assert_eq!(line.to_vec().unwrap(), ramp);
    assert_eq!(
        guard.alloc_array_3d::<u32>(4, 4, 0).unwrap_err().kind(),
        custack::ErrorKind::InvalidValue
    );
}
