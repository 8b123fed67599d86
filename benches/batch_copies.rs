//! Batched copies measured against the raw driver calls in the same process: many copies from
//! page-locked host memory to the device, as one `cuMemcpyBatchAsync` or one by one.
//!
//! ```text
//! cargo bench -p custack-benches --bench batch_copies  # on a GPU machine (driver 12.8 or newer)
//! ```
//!
//! For 64 and 1,024 copies of 4 KiB, 64 KiB and 1 MiB each (separate allocations on both sides),
//! four variants on the same memory and stream, in alternating order after one warm-up of each:
//! - custack, batched: a scope whose `CopyBatch` holds every copy, one `copy_batch`;
//! - raw, batched: `cuMemcpyBatchAsync` (looked up at 12.8 through `cuGetProcAddress_v2`, the
//!   same ABI custack uses) + `cuStreamSynchronize`;
//! - custack, one by one: a scope with one `copy_to_device` per copy;
//! - raw, one by one: one `cuMemcpyHtoDAsync_v2` per copy + `cuStreamSynchronize`.
//!
//! Then batched 3D copies: 16 and 256 2D arrays of `u32`, 64 × 64 and 256 × 256 each, filled
//! from page-locked host memory, four variants in the same way:
//! - custack, batched: a scope whose `Copy3dBatch` holds every copy, one `copy_3d_batch`;
//! - raw, batched: `cuMemcpy3DBatchAsync` (looked up at 12.8, the ABI custack uses) +
//!   `cuStreamSynchronize`;
//! - custack, one by one: a scope with one `copy_to_array` per array;
//! - raw, one by one: one `cuMemcpy3DAsync_v2` per array + `cuStreamSynchronize`.
//!
//! Reported: the median time of each over `CUSTACK_BATCH_REPS` (default 20) repetitions, and
//! the ratios custack batched ÷ raw batched (custack's cost) and one by one ÷ batched (what the
//! batch saves), and the two batched variants' spreads ((p90 − p10) / 2 over the median, raw's
//! then custack's), to say whether custack's batch is within raw's. Every variant's result is checked once. Nothing here asserts a time. Without
//! `--bench` (as `cargo test --all-targets` runs it) it prints how to run it and exits.

#![allow(clippy::cast_precision_loss, clippy::too_many_lines)]

use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, Stack, ffi};
use std::time::Instant;

fn ok(r: ffi::CUresult, what: &str) {
    assert!(r == ffi::CUresult::CUDA_SUCCESS, "{what}: {r:?}");
}

mod common;
use common::stats;

/// `cuMemcpyBatchAsync` at CUDA 12.8's ABI, looked up as custack looks it up.
fn raw_batch() -> ffi::PFN_cuMemcpyBatchAsync {
    let (mut pfn, mut status) = (core::ptr::null_mut(), 0);
    // SAFETY: a NUL-terminated name and valid out-pointers.
    let r = unsafe {
        ffi::cuGetProcAddress_v2(
            c"cuMemcpyBatchAsync".as_ptr(),
            &raw mut pfn,
            ffi::PFN_cuMemcpyBatchAsync_VERSION,
            ffi::CU_GET_PROC_ADDRESS_DEFAULT,
            &raw mut status,
        )
    };
    ok(r, "cuGetProcAddress_v2(cuMemcpyBatchAsync, 12080)");
    assert!(
        !pfn.is_null(),
        "cuMemcpyBatchAsync not found (status {status})"
    );
    // SAFETY: the driver's entry point for the 12.8 ABI, whose signature this is.
    unsafe { core::mem::transmute::<*mut core::ffi::c_void, ffi::PFN_cuMemcpyBatchAsync>(pfn) }
}

/// `cuMemcpy3DBatchAsync` at CUDA 12.8's ABI, looked up as custack looks it up.
fn raw_batch_3d() -> ffi::PFN_cuMemcpy3DBatchAsync {
    let (mut pfn, mut status) = (core::ptr::null_mut(), 0);
    // SAFETY: a NUL-terminated name and valid out-pointers.
    let r = unsafe {
        ffi::cuGetProcAddress_v2(
            c"cuMemcpy3DBatchAsync".as_ptr(),
            &raw mut pfn,
            ffi::PFN_cuMemcpy3DBatchAsync_VERSION,
            ffi::CU_GET_PROC_ADDRESS_DEFAULT,
            &raw mut status,
        )
    };
    ok(r, "cuGetProcAddress_v2(cuMemcpy3DBatchAsync, 12080)");
    assert!(
        !pfn.is_null(),
        "cuMemcpy3DBatchAsync not found (status {status})"
    );
    // SAFETY: the driver's entry point for the 12.8 ABI, whose signature this is.
    unsafe { core::mem::transmute::<*mut core::ffi::c_void, ffi::PFN_cuMemcpy3DBatchAsync>(pfn) }
}

/// The 3D rows: `count` `side` × `side` arrays of `u32` filled from page-locked memory, four
/// variants, one table row.
fn arrays(
    guard: &custack::PushedGuard<'_, '_>,
    stream: &custack::Stream<'_>,
    count: usize,
    side: usize,
    reps: usize,
) -> custack::Result<()> {
    let batch_fn = raw_batch_3d();
    let mut hosts = Vec::with_capacity(count);
    let mut arrays = Vec::with_capacity(count);
    for i in 0..count {
        let mut h = guard.alloc_pinned::<u32>(side * side)?;
        h.fill(i as u32 * 7 + 1);
        hosts.push(h);
        arrays.push(guard.alloc_array::<u32>(side, side)?);
    }
    let custack_batched = |arrays: &mut Vec<custack::CudaArray<'_, u32>>| {
        stream.scope(|s| -> custack::Result<()> {
            let mut bound: Vec<_> = arrays.iter_mut().map(|a| s.bind_array(a)).collect();
            let mut batch = s.batch_3d();
            for (a, h) in bound.iter_mut().zip(&hosts) {
                batch.to_array(a, &h[..])?;
            }
            s.copy_3d_batch(batch)
        })?
    };
    let custack_single = |arrays: &mut Vec<custack::CudaArray<'_, u32>>| {
        stream.scope(|s| -> custack::Result<()> {
            for (a, h) in arrays.iter_mut().zip(&hosts) {
                let mut a = s.bind_array(a);
                s.copy_to_array(&mut a, &h[..])?;
            }
            Ok(())
        })?
    };
    let raw = stream.as_raw();
    let handles: Vec<ffi::CUarray> = arrays.iter().map(custack::CudaArray::as_raw).collect();
    let mut ops: Vec<ffi::CUDA_MEMCPY3D_BATCH_OP> = handles
        .iter()
        .zip(&hosts)
        .map(|(&a, h)| ffi::CUDA_MEMCPY3D_BATCH_OP {
            src: ffi::CUmemcpy3DOperand {
                type_: ffi::CU_MEMCPY_OPERAND_TYPE_POINTER,
                op: ffi::CUmemcpy3DOperandUnion {
                    ptr: ffi::CUmemcpy3DOperandPtr {
                        ptr: h.as_ptr() as u64,
                        rowLength: side,
                        layerHeight: side,
                        locHint: ffi::CUmemLocation {
                            type_: ffi::CU_MEM_LOCATION_TYPE_HOST,
                            id: 0,
                        },
                    },
                },
            },
            dst: ffi::CUmemcpy3DOperand {
                type_: ffi::CU_MEMCPY_OPERAND_TYPE_ARRAY,
                op: ffi::CUmemcpy3DOperandUnion {
                    array: ffi::CUmemcpy3DOperandArray {
                        array: a,
                        offset: ffi::CUoffset3D::default(),
                    },
                },
            },
            extent: ffi::CUextent3D {
                width: side,
                height: side,
                depth: 1,
            },
            srcAccessOrder: ffi::CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
            flags: ffi::CU_MEMCPY_FLAG_DEFAULT,
        })
        .collect();
    let mut raw_batched = || {
        let mut fail = usize::MAX;
        // SAFETY: `count` descriptors of live arrays and page-locked host memory, live until
        // the synchronization below; flags 0.
        let r = unsafe { batch_fn(ops.len(), ops.as_mut_ptr(), &raw mut fail, 0, raw) };
        ok(r, "cuMemcpy3DBatchAsync");
        // SAFETY: a live stream.
        ok(
            unsafe { ffi::cuStreamSynchronize(raw) },
            "cuStreamSynchronize",
        );
    };
    let row = side * size_of::<u32>();
    let raw_single = || {
        for (&a, h) in handles.iter().zip(&hosts) {
            let copy = ffi::CUDA_MEMCPY3D {
                srcXInBytes: 0,
                srcY: 0,
                srcZ: 0,
                srcLOD: 0,
                srcMemoryType: ffi::CU_MEMORYTYPE_HOST,
                srcHost: h.as_ptr().cast(),
                srcDevice: 0,
                srcArray: core::ptr::null_mut(),
                reserved0: core::ptr::null_mut(),
                srcPitch: row,
                srcHeight: side,
                dstXInBytes: 0,
                dstY: 0,
                dstZ: 0,
                dstLOD: 0,
                dstMemoryType: ffi::CU_MEMORYTYPE_ARRAY,
                dstHost: core::ptr::null_mut(),
                dstDevice: 0,
                dstArray: a,
                reserved1: core::ptr::null_mut(),
                dstPitch: 0,
                dstHeight: 0,
                WidthInBytes: row,
                Height: side,
                Depth: 1,
            };
            // SAFETY: a live array and page-locked host rows, live until the synchronization.
            ok(
                unsafe { ffi::cuMemcpy3DAsync_v2(&raw const copy, raw) },
                "cuMemcpy3DAsync_v2",
            );
        }
        // SAFETY: a live stream.
        ok(
            unsafe { ffi::cuStreamSynchronize(raw) },
            "cuStreamSynchronize",
        );
    };
    let check = |arrays: &Vec<custack::CudaArray<'_, u32>>, what: &str| {
        for (i, a) in arrays.iter().enumerate().step_by((count / 8).max(1)) {
            let v = a.to_vec().expect("reading an array back");
            assert!(
                v.iter().all(|&x| x == i as u32 * 7 + 1),
                "{what}: array {i}"
            );
        }
    };
    let zero = |arrays: &mut Vec<custack::CudaArray<'_, u32>>| {
        let z = vec![0u32; side * side];
        for a in arrays.iter_mut() {
            a.copy_from_host(&z).expect("zeroing an array");
        }
    };
    custack_batched(&mut arrays)?;
    check(&arrays, "custack batched");
    zero(&mut arrays);
    raw_batched();
    check(&arrays, "raw batched");
    zero(&mut arrays);
    custack_single(&mut arrays)?;
    check(&arrays, "custack one by one");
    zero(&mut arrays);
    raw_single();
    check(&arrays, "raw one by one");
    let mut t = [vec![], vec![], vec![], vec![]];
    for _ in 0..reps {
        let at = Instant::now();
        custack_batched(&mut arrays)?;
        t[0].push(at.elapsed().as_secs_f64());
        let at = Instant::now();
        raw_batched();
        t[1].push(at.elapsed().as_secs_f64());
        let at = Instant::now();
        custack_single(&mut arrays)?;
        t[2].push(at.elapsed().as_secs_f64());
        let at = Instant::now();
        raw_single();
        t[3].push(at.elapsed().as_secs_f64());
    }
    let f: Vec<(f64, f64)> = t.iter_mut().map(|x| stats(x)).collect();
    let m: Vec<f64> = f.iter().map(|x| x.0).collect();
    println!(
        "| {count} × {side}×{side} u32 ({} KiB) | {:.1} µs | {:.1} µs | {:.1} µs | {:.1} µs | {:.2} | {:.2} | ±{:.1}% · ±{:.1}% |",
        (side * side * 4) >> 10,
        m[0] * 1e6,
        m[1] * 1e6,
        m[2] * 1e6,
        m[3] * 1e6,
        m[0] / m[1],
        m[2] / m[0],
        f[1].1 * 100.0,
        f[0].1 * 100.0
    );
    Ok(())
}

fn main() -> std::process::ExitCode {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "batch_copies: a benchmark; run it with `cargo bench -p custack-benches --bench batch_copies` on a GPU machine"
        );
        return std::process::ExitCode::SUCCESS;
    }
    let reps: usize = std::env::var("CUSTACK_BATCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let run = || -> custack::Result<()> {
        let driver = Driver::init()?;
        let device = driver.device(0)?;
        println!(
            "batch_copies: {}, driver API {}, {reps} repetitions per variant",
            device.name()?,
            driver.version()?
        );
        let ctx = Context::new(device, ContextFlags::empty())?;
        let mut stack = Stack::new()?;
        let guard = stack.push(&ctx)?;
        let stream = guard.stream()?;
        let batch_fn = raw_batch();
        println!(
            "| copies × size | custack batched | raw batched | custack one by one | raw one by one | custack ÷ raw (batched) | one by one ÷ batched (custack) | spread, batched (raw · custack) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
        );
        for count in [64usize, 1024] {
            for size in [4usize << 10, 64 << 10, 1 << 20] {
                let mut hosts = Vec::with_capacity(count);
                let mut devs = Vec::with_capacity(count);
                for i in 0..count {
                    let mut h = guard.alloc_pinned::<u8>(size)?;
                    h.fill((i % 251) as u8);
                    hosts.push(h);
                    devs.push(guard.alloc::<u8>(size)?);
                }
                let custack_batched = |devs: &mut Vec<custack::DeviceBuffer<'_, u8>>| {
                    stream.scope(|s| -> custack::Result<()> {
                        let mut batch = s.batch();
                        for (d, h) in devs.iter_mut().zip(&hosts) {
                            batch.to_device(s.bind_mut(d), &h[..])?;
                        }
                        s.copy_batch(batch)
                    })?
                };
                let custack_single = |devs: &mut Vec<custack::DeviceBuffer<'_, u8>>| {
                    stream.scope(|s| -> custack::Result<()> {
                        for (d, h) in devs.iter_mut().zip(&hosts) {
                            s.copy_to_device(s.bind_mut(d), &h[..])?;
                        }
                        Ok(())
                    })?
                };
                let mut dsts: Vec<ffi::CUdeviceptr> =
                    devs.iter().map(DeviceMemory::device_ptr).collect();
                let mut srcs: Vec<ffi::CUdeviceptr> =
                    hosts.iter().map(|h| h.as_ptr() as u64).collect();
                let mut sizes = vec![size; count];
                let dptrs = dsts.clone();
                let raw = stream.as_raw();
                let mut raw_batched = || {
                    let mut attrs = ffi::CUmemcpyAttributes {
                        srcAccessOrder: ffi::CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
                        ..Default::default()
                    };
                    let (mut first, mut fail) = (0usize, usize::MAX);
                    // SAFETY: `count` device and host pointers of `size` bytes each, live until
                    // the synchronization below; one attribute from copy 0 on.
                    let r = unsafe {
                        batch_fn(
                            dsts.as_mut_ptr(),
                            srcs.as_mut_ptr(),
                            sizes.as_mut_ptr(),
                            count,
                            &raw mut attrs,
                            &raw mut first,
                            1,
                            &raw mut fail,
                            raw,
                        )
                    };
                    ok(r, "cuMemcpyBatchAsync");
                    // SAFETY: a live stream.
                    ok(
                        unsafe { ffi::cuStreamSynchronize(raw) },
                        "cuStreamSynchronize",
                    );
                };
                let raw_single = || {
                    for (&d, h) in dptrs.iter().zip(&hosts) {
                        // SAFETY: `size` bytes on both sides, live until the synchronization.
                        let r =
                            unsafe { ffi::cuMemcpyHtoDAsync_v2(d, h.as_ptr().cast(), size, raw) };
                        ok(r, "cuMemcpyHtoDAsync_v2");
                    }
                    // SAFETY: a live stream.
                    ok(
                        unsafe { ffi::cuStreamSynchronize(raw) },
                        "cuStreamSynchronize",
                    );
                };
                // Warm-ups, each result checked once (the fill values differ per copy).
                let check = |devs: &Vec<custack::DeviceBuffer<'_, u8>>, what: &str| {
                    for (i, d) in devs.iter().enumerate().step_by(count / 8) {
                        let v = d.to_vec().expect("reading a copy back");
                        assert!(v.iter().all(|&b| b == (i % 251) as u8), "{what}: copy {i}");
                    }
                };
                custack_batched(&mut devs)?;
                check(&devs, "custack batched");
                raw_batched();
                check(&devs, "raw batched");
                custack_single(&mut devs)?;
                check(&devs, "custack one by one");
                raw_single();
                check(&devs, "raw one by one");
                let mut t = [vec![], vec![], vec![], vec![]];
                for _ in 0..reps {
                    let at = Instant::now();
                    custack_batched(&mut devs)?;
                    t[0].push(at.elapsed().as_secs_f64());
                    let at = Instant::now();
                    raw_batched();
                    t[1].push(at.elapsed().as_secs_f64());
                    let at = Instant::now();
                    custack_single(&mut devs)?;
                    t[2].push(at.elapsed().as_secs_f64());
                    let at = Instant::now();
                    raw_single();
                    t[3].push(at.elapsed().as_secs_f64());
                }
                let f: Vec<(f64, f64)> = t.iter_mut().map(|x| stats(x)).collect();
                let m: Vec<f64> = f.iter().map(|x| x.0).collect();
                println!(
                    "| {count} × {} KiB | {:.1} µs | {:.1} µs | {:.1} µs | {:.1} µs | {:.2} | {:.2} | ±{:.1}% · ±{:.1}% |",
                    size >> 10,
                    m[0] * 1e6,
                    m[1] * 1e6,
                    m[2] * 1e6,
                    m[3] * 1e6,
                    m[0] / m[1],
                    m[2] / m[0],
                    f[1].1 * 100.0,
                    f[0].1 * 100.0
                );
            }
        }
        println!(
            "\n| arrays × extent (3D batch) | custack batched | raw batched | custack one by one | raw one by one | custack ÷ raw (batched) | one by one ÷ batched (custack) | spread, batched (raw · custack) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
        );
        for count in [16usize, 256] {
            for side in [64usize, 256] {
                arrays(&guard, &stream, count, side, reps)?;
            }
        }
        Ok(())
    };
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("batch_copies: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
