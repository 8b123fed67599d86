//! Tensor maps measured against the raw driver calls in the same process: what custack's checks
//! cost over `cuTensorMapEncodeTiled`, and what a launch taking a tensor map costs over
//! `cuLaunchKernel` with the same parameters.
//!
//! ```text
//! cargo bench -p custack-benches --bench tensor_map  # on a GPU machine (compute capability 9.0)
//! bash scripts/gpu-bundle.sh --bench tensor_map  # packs it; on the GPU machine: bash .gpu/run.sh
//! ```
//!
//! Rows, each custack beside the raw `custack::ffi` calls it makes, in alternating order after
//! one warm-up of each:
//! - encode a 2D tiled map: `TensorMap::tiled` of a 100 × 37 `f32` matrix (400-byte rows) in
//!   boxes of 32 × 8, every rule checked first (raw: one `cuTensorMapEncodeTiled` with the same
//!   arguments); 1,000 encodes a sample, per encode;
//! - launch with a tensor map: one scope binding the map, the source and the output, and 100
//!   `run`s of `tma_tiles` (`tests/fixtures/tma.cu`, the kernel of `tests/gpu_tensor_map.rs`: each
//!   launch checked against its contract, the map's buffer and box among it), ended by the
//!   scope's synchronization (raw: 100 `cuLaunchKernel` of the same function with the same
//!   parameters, the 128-byte map by value, then `cuStreamSynchronize`); per launch. It needs
//!   the kernel's cubin (`CUSTACK_TMA_CUBIN`, which `scripts/gpu-bundle.sh`'s run.sh builds with
//!   nvcc); without it the row is skipped, saying so.
//!
//! Reported: the median over `CUSTACK_TMA_REPS` (default 50) samples, the spread (p10–p90 ÷ 2
//! of the median) and custack's median over raw's. Both maps' encodings are compared once, and
//! both launches' outputs against the CPU. Nothing here asserts a time. Without `--bench` (as
//! `cargo test --all-targets` runs it) it prints how to run it and exits.

#![allow(
    clippy::cast_precision_loss,
    clippy::many_single_char_names,
    clippy::multiple_unsafe_ops_per_block, // the raw variants are C programs in Rust syntax
    clippy::too_many_lines
)]

use core::ffi::c_void;
use custack::{
    Context, ContextFlags, DeviceMemory, Driver, LaunchConfig, Stack, TensorMap, Tiled, ffi,
};
mod common;
use common::{cu as ok, pair_row as row, time};

custack::kernel_contract! {
    /// `tma_tiles(const __grid_constant__ CUtensorMap map, const float* src, float* out,
    /// unsigned width, unsigned height)`, as tests/gpu_tensor_map.rs declares it.
    unsafe kernel TmaTiles = "tma_tiles"(
        map: tensor_map<f32> over src box(32, 8),
        src: &[f32; width * height],
        out: &mut [f32; width * height],
        width: u32,
        height: u32,
    ) requires(block_x == 256, block_y == 1, block_z == 1);
}

const W: u32 = 100;
const H: u32 = 37;
const ENCODES: usize = 1000;
const LAUNCHES: usize = 100;

/// Raw: `cuTensorMapEncodeTiled` of the 100 × 37 `f32` matrix at `base`, boxes of 32 × 8, the
/// options `Tiled::new` leaves at their defaults.
fn raw_encode(base: ffi::CUdeviceptr) -> ffi::CUtensorMap {
    let dims = [u64::from(W), u64::from(H)];
    let strides = [u64::from(W) * 4];
    let (boxes, elements) = ([32u32, 8], [1u32, 1]);
    let mut map = ffi::CUtensorMap {
        opaque: [0; ffi::CU_TENSOR_MAP_NUM_QWORDS],
    };
    // SAFETY: a 64-byte-aligned out-map; arrays of rank 2 (strides: 1); `base` is a live
    // allocation of W × H floats, 16-byte aligned, only encoded.
    unsafe {
        ok(
            ffi::cuTensorMapEncodeTiled(
                &raw mut map,
                ffi::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                2,
                base as *mut c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                elements.as_ptr(),
                ffi::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                ffi::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
                ffi::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
                ffi::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            ),
            "cuTensorMapEncodeTiled",
        );
    }
    map
}

fn launch() -> LaunchConfig {
    LaunchConfig {
        grid: (W.div_ceil(32), H.div_ceil(8), 1),
        block: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn run(reps: usize) -> custack::Result<()> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let host: Vec<f32> = (0..W * H).map(|i| (i % 1000) as f32 * 0.25 - 7.0).collect();
    let src = guard.alloc_from(&host)?;
    let desc = Tiled::new(&[W.into(), H.into()], &[u64::from(W) * 4], &[32, 8]);
    let base = src.device_ptr();

    let map = TensorMap::tiled(&src, &desc)?;
    let raw_map = raw_encode(base);
    // SAFETY: both are plain 128-byte values.
    let (a, b) = unsafe {
        (
            core::slice::from_raw_parts((&raw const raw_map).cast::<u8>(), 128),
            core::slice::from_raw_parts(core::ptr::from_ref(map.as_raw()).cast::<u8>(), 128),
        )
    };
    assert_eq!(a, b, "custack's map and the raw one differ");

    println!("| operation | raw | custack | custack/raw | spread (raw · custack) |");
    println!("| --- | ---: | ---: | ---: | --- |");
    row(
        "encode a 2D tiled map (100 × 37 f32, boxes of 32 × 8)",
        reps,
        ENCODES,
        || {
            time(|| {
                for _ in 0..ENCODES {
                    core::hint::black_box(raw_encode(core::hint::black_box(base)));
                }
            })
        },
        || {
            time(|| {
                for _ in 0..ENCODES {
                    let m = TensorMap::tiled(core::hint::black_box(&src), &desc).expect("encode");
                    core::hint::black_box(&m);
                }
            })
        },
    );

    let Ok(path) = std::env::var("CUSTACK_TMA_CUBIN") else {
        println!(
            "| launch with a tensor map | skipped: CUSTACK_TMA_CUBIN unset (scripts/gpu-bundle.sh's run.sh builds it with nvcc) | | | |"
        );
        return Ok(());
    };
    let image = std::fs::read(&path).expect("CUSTACK_TMA_CUBIN");
    // SAFETY: a cubin nvcc wrote for this device (run.sh), read whole.
    let module = unsafe { guard.load_cubin(&image) }?;
    let tiles = module.declared::<TmaTiles>()?;
    let raw_fn = tiles.as_raw();
    let mut out = guard.alloc_zeroed::<f32>(host.len())?;
    let raw_out = guard.alloc_zeroed::<f32>(host.len())?;
    let stream = guard.stream()?;
    let raw_stream = stream.as_raw();
    let cfg = launch();
    let raw_dst = raw_out.device_ptr();
    row(
        "launch with a tensor map (tma_tiles, 100 launches + 1 sync)",
        reps,
        LAUNCHES,
        || {
            time(|| {
                let (mut m, mut s, mut o, mut w, mut h) = (raw_map, base, raw_dst, W, H);
                let mut params = [
                    (&raw mut m).cast::<c_void>(),
                    (&raw mut s).cast::<c_void>(),
                    (&raw mut o).cast::<c_void>(),
                    (&raw mut w).cast::<c_void>(),
                    (&raw mut h).cast::<c_void>(),
                ];
                for _ in 0..LAUNCHES {
                    // SAFETY: `tma_tiles` of a module of the current context, its five
                    // parameters pointed to (the map by value, two live buffers of W × H
                    // floats, the sizes); the output written only by these launches.
                    unsafe {
                        ok(
                            ffi::cuLaunchKernel(
                                raw_fn,
                                cfg.grid.0,
                                cfg.grid.1,
                                cfg.grid.2,
                                cfg.block.0,
                                cfg.block.1,
                                cfg.block.2,
                                0,
                                raw_stream,
                                params.as_mut_ptr(),
                                core::ptr::null_mut(),
                            ),
                            "cuLaunchKernel",
                        );
                    }
                }
                // SAFETY: a live stream of the current context.
                unsafe { ok(ffi::cuStreamSynchronize(raw_stream), "cuStreamSynchronize") };
            })
        },
        || {
            time(|| {
                stream
                    .scope(|s| -> custack::Result<()> {
                        let (m, a, mut o) =
                            (s.bind_tensor_map(&map), s.bind(&src), s.bind_mut(&mut out));
                        for _ in 0..LAUNCHES {
                            s.run(&tiles, cfg, (m, a, &mut o, W, H))?;
                        }
                        Ok(())
                    })
                    .expect("scope")
                    .expect("launch");
            })
        },
    );
    let want: Vec<f32> = host.iter().map(|v| v + v).collect();
    assert!(out.to_vec()? == want, "custack's launches: wrong output");
    assert!(raw_out.to_vec()? == want, "raw launches: wrong output");
    Ok(())
}

fn main() -> std::process::ExitCode {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "tensor_map: a benchmark; run it with `cargo bench -p custack-benches --bench tensor_map` on a GPU machine"
        );
        return std::process::ExitCode::SUCCESS;
    }
    let reps = std::env::var("CUSTACK_TMA_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    match run(reps) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tensor_map: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
