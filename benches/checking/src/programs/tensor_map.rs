//! The program `tensor_map` (C32, R10): tensor maps over device memory, tiled and im2col,
//! encoded by the driver (the checking driver checks each documented rule as the driver does, and
//! reports a map reaching past its allocation); maps that break a rule or do not fit their buffer
//! refused before any encode call; a declared kernel with a `tensor_map<f32> over src box(32, 8)`
//! parameter launched in a scope, and its launches with a map over another buffer or of another
//! box refused before anything reaches the driver. The kernel is a declaration only (the double
//! runs no kernel): its PTX entry has `tests/fixtures/tma.cu`'s parameters, which the GPU test
//! (`tests/gpu_tensor_map.rs`) runs.

use crate::common::refused;
use crate::double::calls_seen;
use custack::{
    Context, ErrorKind, Im2col, LaunchConfig, Result, Stack, TensorMap, TensorMapError,
    TensorMapRule, Tiled,
};

/// `tma_tiles`'s entry, parameters only: what the double reads of a PTX module.
const TMA_DECLARATION: &str = "\
.version 8.0
.target sm_90
.address_size 64
.visible .entry tma_tiles(
    .param .align 64 .b8 tma_tiles_param_0[128],
    .param .u64 tma_tiles_param_1,
    .param .u64 tma_tiles_param_2,
    .param .u32 tma_tiles_param_3,
    .param .u32 tma_tiles_param_4
)
{
    ret;
}
";

custack::kernel_contract! {
    /// `tma_tiles` of `tests/fixtures/tma.cu` (the GPU test's contract).
    unsafe kernel TmaTiles = "tma_tiles"(
        map: tensor_map<f32> over src box(32, 8),
        src: &[f32; width * height],
        out: &mut [f32; width * height],
        width: u32,
        height: u32,
    ) requires(block_x == 256, block_y == 1, block_z == 1);
}

/// The encode calls seen so far.
fn encodes_seen() -> u64 {
    calls_seen(|name| name.starts_with(b"cuTensorMapEncode"))
}

/// A map refused by `rule` with no encode call reaching the driver.
fn refused_by(rule: TensorMapRule, make: impl FnOnce() -> Result<()>) {
    let before = encodes_seen();
    match make() {
        Err(e) if TensorMapError::of(&e).map(TensorMapError::rule) == Some(rule) => {}
        other => panic!("expected a {rule:?} refusal, got {other:?}"),
    }
    assert_eq!(encodes_seen(), before, "a refused map reached the driver");
}

pub(crate) fn tensor_map(ctx: &Context) -> Result<()> {
    const W: u32 = 100;
    const H: u32 = 37;
    encodes_seen(); // counting on
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(TMA_DECLARATION)?;
    let tiles = module.declared::<TmaTiles>()?;
    let src = guard.alloc_zeroed::<f32>((W * H) as usize)?;
    let other = guard.alloc_zeroed::<f32>((W * H) as usize)?;
    let mut out = guard.alloc_zeroed::<f32>((W * H) as usize)?;
    let stride = [u64::from(W) * 4];
    let desc = Tiled::new(&[W.into(), H.into()], &stride, &[32, 8]);
    let map = TensorMap::tiled(&src, &desc)?;
    let elsewhere = TensorMap::tiled(&other, &desc)?;
    let small = TensorMap::tiled(&src, &Tiled::new(&[W.into(), H.into()], &stride, &[16, 8]))?;
    // NHWC: 4 channels of f32 (16 bytes), 10 × 10 pixels, batch 9 (14,400 of its 14,800 bytes).
    let im2col = Im2col::new(&[4, 10, 10, 9], &[16, 160, 1600], &[-1, -1], &[1, 1], 4, 32);
    let _im2col = TensorMap::im2col(&src, &im2col)?;
    refused_by(TensorMapRule::BoxSize, || {
        TensorMap::tiled(&src, &Tiled::new(&[W.into(), H.into()], &stride, &[512, 8])).map(drop)
    });
    refused_by(TensorMapRule::FitsBuffer, || {
        TensorMap::tiled(
            &src,
            &Tiled::new(&[W.into(), u64::from(H) + 1], &stride, &[32, 8]),
        )
        .map(drop)
    });
    refused_by(TensorMapRule::CornerRange, || {
        let corners = Im2col::new(
            &[4, 10, 10, 9],
            &[16, 160, 1600],
            &[-200, 0],
            &[0, 0],
            4,
            32,
        );
        TensorMap::im2col(&src, &corners).map(drop)
    });
    let cfg = LaunchConfig {
        grid: (W.div_ceil(32), H.div_ceil(8), 1),
        block: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let stream = guard.stream()?;
    stream.scope(|s| -> Result<()> {
        let (a, mut o) = (s.bind(&src), s.bind_mut(&mut out));
        s.run(&tiles, cfg, (s.bind_tensor_map(&map), a, &mut o, W, H))?;
        refused(ErrorKind::TensorMapMismatch, || {
            s.run(
                &tiles,
                cfg,
                (s.bind_tensor_map(&elsewhere), a, &mut o, W, H),
            )
        });
        refused(ErrorKind::TensorMapMismatch, || {
            s.run(&tiles, cfg, (s.bind_tensor_map(&small), a, &mut o, W, H))
        });
        Ok(())
    })??;
    stream.synchronize()?;
    Ok(())
}
