//! Tensor maps on a real device (C32): tiles of a matrix loaded into shared memory by the Tensor
//! Memory Accelerator through a `TensorMap` (`cp.async.bulk.tensor` completing on an mbarrier)
//! and written out, checked against the CPU; a map whose box does not fit the hardware's limit or
//! whose tensor does not fit its buffer refused before the driver is asked; a launch whose map is
//! over another buffer than its contract says, or of another box, refused before anything is
//! enqueued. The kernel is tests/fixtures/tma.cu, built by `scripts/gpu-bundle.sh`'s run.sh with
//! nvcc for the device (`CUSTACK_TMA_CUBIN`); it needs compute capability 9.0.
mod common;
use common::{context, device};
use custack::{
    DeviceMemory, ErrorKind, LaunchConfig, Stack, TensorMap, TensorMapError, TensorMapRule, Tiled,
};

custack::kernel_contract! {
    /// `tma_tiles(const __grid_constant__ CUtensorMap map, const float* src, float* out,
    /// unsigned width, unsigned height)`: block (bx, by) loads the 32 × 8 box at (32 bx, 8 by)
    /// through `map` into its shared tile and writes `out[y * width + x] = tile + src[..]` for
    /// `x < width`, `y < height`; 256 threads in x.
    unsafe kernel TmaTiles = "tma_tiles"(
        map: tensor_map<f32> over src box(32, 8),
        src: &[f32; width * height],
        out: &mut [f32; width * height],
        width: u32,
        height: u32,
    ) requires(block_x == 256, block_y == 1, block_z == 1);
}

fn cubin() -> Vec<u8> {
    let var = "CUSTACK_TMA_CUBIN";
    let path = std::env::var(var)
        .unwrap_or_else(|_| panic!("{var}: set by scripts/gpu-bundle.sh's run.sh, with nvcc"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{var}={path}: {e}"))
}

/// 100 columns (400-byte rows, a multiple of 16) by 37 rows: neither a whole number of 32 × 8
/// tiles, so the last column and row of tiles lie partly outside the matrix.
const W: u32 = 100;
const H: u32 = 37;

fn matrix() -> Vec<f32> {
    (0..W * H)
        .map(|i| f32::from(u16::try_from(i % 1000).unwrap()) * 0.25 - 7.0)
        .collect()
}

fn launch() -> LaunchConfig {
    LaunchConfig {
        grid: (W.div_ceil(32), H.div_ceil(8), 1),
        block: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn rule(e: &custack::Error) -> TensorMapRule {
    assert_eq!(e.kind(), ErrorKind::TensorMapRefused, "{e}");
    TensorMapError::of(e).expect("a tensor-map refusal").rule()
}

#[test]
#[ignore = "needs a CUDA device"]
fn tiles_loaded_through_a_tensor_map_match_the_cpu() {
    let cap = device().compute_capability().unwrap();
    assert!(
        cap.major >= 9,
        "the Tensor Memory Accelerator needs compute capability 9.0, this device is {}.{}",
        cap.major,
        cap.minor
    );
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let image = cubin();
    // SAFETY: a cubin nvcc wrote for this device (run.sh), read whole.
    let module = unsafe { guard.load_cubin(&image) }.unwrap();
    let tiles = module.declared::<TmaTiles>().unwrap();
    let host = matrix();
    let src = guard.alloc_from(&host).unwrap();
    let other = guard.alloc_from(&host).unwrap();
    let mut out = guard.alloc_zeroed::<f32>(host.len()).unwrap();
    let desc = Tiled::new(&[W.into(), H.into()], &[u64::from(W) * 4], &[32, 8]);
    let map = TensorMap::tiled(&src, &desc).unwrap();
    assert_eq!(map.base(), src.device_ptr());
    assert_eq!(map.reach_bytes(), host.len() * 4);
    let stream = guard.stream().unwrap();
    stream
        .scope(|s| {
            let (m, a, mut o) = (s.bind_tensor_map(&map), s.bind(&src), s.bind_mut(&mut out));
            s.run(&tiles, launch(), (m, a, &mut o, W, H))
        })
        .unwrap()
        .unwrap();
    let got = out.to_vec().unwrap();
    // Sums of two equal quarters: exact in f32, so compared bit for bit.
    let want: Vec<f32> = host.iter().map(|v| v + v).collect();
    let wrong: Vec<usize> = (0..got.len())
        .filter(|&i| got[i].to_bits() != want[i].to_bits())
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} elements differ from the CPU's, the first at {} (x {}, y {}): {} for {}",
        wrong.len(),
        got.len(),
        wrong[0],
        wrong[0] as u32 % W,
        wrong[0] as u32 / W,
        got[wrong[0]],
        want[wrong[0]]
    );

    // A map over `other` where the contract says `over src`: refused, nothing enqueued.
    let elsewhere = TensorMap::tiled(&other, &desc).unwrap();
    let e = stream
        .scope(|s| {
            let (m, a, mut o) = (
                s.bind_tensor_map(&elsewhere),
                s.bind(&src),
                s.bind_mut(&mut out),
            );
            s.run(&tiles, launch(), (m, a, &mut o, W, H))
        })
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TensorMapMismatch, "{e}");
    // A map of 16 × 8 boxes, where the kernel's shared tile is 32 × 8: refused.
    let small = Tiled::new(&[W.into(), H.into()], &[u64::from(W) * 4], &[16, 8]);
    let small = TensorMap::tiled(&src, &small).unwrap();
    let e = stream
        .scope(|s| {
            let (m, a, mut o) = (
                s.bind_tensor_map(&small),
                s.bind(&src),
                s.bind_mut(&mut out),
            );
            s.run(&tiles, launch(), (m, a, &mut o, W, H))
        })
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TensorMapMismatch, "{e}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_map_that_does_not_fit_is_refused_before_the_driver() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let src = guard.alloc_zeroed::<f32>((W * H) as usize).unwrap();
    let stride = [u64::from(W) * 4];
    // A box of 512 columns: the hardware's limit is 256 elements per dimension.
    let e =
        TensorMap::tiled(&src, &Tiled::new(&[W.into(), H.into()], &stride, &[512, 8])).unwrap_err();
    assert_eq!(rule(&e), TensorMapRule::BoxSize);
    // One row more than the buffer holds.
    let e = TensorMap::tiled(&src, &Tiled::new(&[W.into(), 38], &stride, &[32, 8])).unwrap_err();
    assert_eq!(rule(&e), TensorMapRule::FitsBuffer);
    // A view that starts 4 bytes in: not 16-byte aligned.
    let view = src.slice(1..).unwrap();
    let e = TensorMap::tiled(&view, &Tiled::new(&[96, 2], &stride, &[32, 2])).unwrap_err();
    assert_eq!(rule(&e), TensorMapRule::BaseAlignment);
    // The driver accepts what passes: the same matrix, whole.
    TensorMap::tiled(&src, &Tiled::new(&[W.into(), H.into()], &stride, &[32, 8])).unwrap();
}
