//! The double's own tests. Tensor maps: both encode calls refuse each documented rule broken with
//! `CUDA_ERROR_INVALID_VALUE`, encode what passes, and in checking mode report a map that reaches
//! past its allocation.

use super::*;

/// A 64-byte-aligned descriptor, as `cuda.h` declares `CUtensorMap`.
#[repr(C, align(64))]
struct Map([u64; 16]);

/// `cuTensorMapEncodeTiled` of f32 (type 7) with the given arrays and options.
///
/// # Safety
///
/// The arrays hold `rank` (`rank - 1` for `strides`) elements, or the call's rank check refuses
/// before reading them.
#[allow(clippy::too_many_arguments)]
unsafe fn tiled(
    map: &mut Map,
    rank: u32,
    address: u64,
    dims: &[u64],
    strides: &[u64],
    boxes: &[u32],
    element_strides: &[u32],
    (interleave, swizzle, oob): (c_int, c_int, c_int),
) -> CUresult {
    // SAFETY: the caller's.
    unsafe {
        cuTensorMapEncodeTiled(
            &raw mut map.0,
            7,
            rank,
            address as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            interleave,
            swizzle,
            0,
            oob,
        )
    }
}

#[test]
// A tensor map names its memory by a device address, a `CUdeviceptr` integer the API takes as
// `void *`: the cast from an integer to a pointer is what Miri's strict provenance
// (scripts/miri.sh) refuses, so these tests run natively only (every run of the test command;
// the checking program `tensor_map` runs natively in check-driver too).
#[cfg_attr(miri, ignore = "device addresses as integers cast to pointers")]
fn the_tiled_encode_checks_each_documented_rule() {
    let _serial = serial();
    let mut m = Map([0; 16]);
    let ok = (0, 0, 0);
    // SAFETY: each call's arrays hold what its rank reads (`tiled`'s contract); `m` is a
    // 64-byte-aligned descriptor.
    unsafe {
        // A 64 × 32 matrix of f32, rows 256 bytes apart, boxes of 16 × 8, at a 16-byte address.
        let good = |m: &mut Map| tiled(m, 2, 0x10000, &[64, 32], &[256], &[16, 8], &[1, 1], ok);
        assert_eq!(good(&mut m), CUDA_SUCCESS);
        assert_eq!((m.0[0], m.0[1], m.0[2], m.0[3]), (0x10000, 2, 64, 32));
        let refused = [
            // Rank 0, rank 6, rank 2 with interleave.
            tiled(&mut m, 0, 0x10000, &[64], &[], &[16], &[1], ok),
            tiled(&mut m, 6, 0x10000, &[1; 6], &[16; 5], &[1; 6], &[1; 6], ok),
            tiled(
                &mut m,
                2,
                0x10000,
                &[64, 32],
                &[256],
                &[16, 8],
                &[1, 1],
                (1, 0, 0),
            ),
            // The address: 8-byte aligned; 16 but not 32 with the 32-byte interleave.
            tiled(&mut m, 2, 0x10008, &[64, 32], &[256], &[16, 8], &[1, 1], ok),
            tiled(
                &mut m,
                3,
                0x10010,
                &[8, 4, 4],
                &[32, 128],
                &[8, 1, 1],
                &[1; 3],
                (2, 1, 0),
            ),
            // An extent of 0, above 2^32.
            tiled(&mut m, 2, 0x10000, &[0, 32], &[256], &[16, 8], &[1, 1], ok),
            tiled(
                &mut m,
                2,
                0x10000,
                &[(1 << 32) + 1, 1],
                &[1 << 36],
                &[16, 1],
                &[1, 1],
                ok,
            ),
            // A stride not a multiple of 16, one of 2^40.
            tiled(&mut m, 2, 0x10000, &[64, 32], &[260], &[16, 8], &[1, 1], ok),
            tiled(
                &mut m,
                2,
                0x10000,
                &[64, 32],
                &[1 << 40],
                &[16, 8],
                &[1, 1],
                ok,
            ),
            // A box of 0, of 257, an inner box of 24 bytes.
            tiled(&mut m, 2, 0x10000, &[64, 32], &[256], &[16, 0], &[1, 1], ok),
            tiled(
                &mut m,
                2,
                0x10000,
                &[64, 32],
                &[256],
                &[16, 257],
                &[1, 1],
                ok,
            ),
            tiled(&mut m, 2, 0x10000, &[64, 32], &[256], &[6, 8], &[1, 1], ok),
            // An element stride of 0, of 9.
            tiled(&mut m, 2, 0x10000, &[64, 32], &[256], &[16, 8], &[1, 0], ok),
            tiled(&mut m, 2, 0x10000, &[64, 32], &[256], &[16, 8], &[1, 9], ok),
            // The 32-byte interleave with the 64-byte swizzle.
            tiled(
                &mut m,
                3,
                0x10000,
                &[8, 4, 4],
                &[32, 128],
                &[8, 1, 1],
                &[1; 3],
                (2, 2, 0),
            ),
            // A 64-byte inner box under the 32-byte swizzle.
            tiled(
                &mut m,
                2,
                0x10000,
                &[64, 32],
                &[256],
                &[16, 8],
                &[1, 1],
                (0, 1, 0),
            ),
            // Values no enum lists.
            tiled(
                &mut m,
                2,
                0x10000,
                &[64, 32],
                &[256],
                &[16, 8],
                &[1, 1],
                (3, 0, 0),
            ),
            tiled(
                &mut m,
                2,
                0x10000,
                &[64, 32],
                &[256],
                &[16, 8],
                &[1, 1],
                (0, 7, 0),
            ),
            tiled(
                &mut m,
                2,
                0x10000,
                &[64, 32],
                &[256],
                &[16, 8],
                &[1, 1],
                (0, 0, 2),
            ),
        ];
        for (i, r) in refused.into_iter().enumerate() {
            assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "case {i}");
        }
        // The NaN fill: allowed for f32, refused for u32 (type 2).
        assert_eq!(
            tiled(
                &mut m,
                2,
                0x10000,
                &[64, 32],
                &[256],
                &[16, 8],
                &[1, 1],
                (0, 0, 1)
            ),
            CUDA_SUCCESS
        );
        let mut u = Map([0; 16]);
        let r = cuTensorMapEncodeTiled(
            &raw mut u.0,
            2,
            1,
            0x10000 as *mut c_void,
            [64u64].as_ptr(),
            null_mut(),
            [16u32].as_ptr(),
            [1u32].as_ptr(),
            0,
            0,
            0,
            1,
        );
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
        // A descriptor that is not 64-byte aligned.
        let mut words = [0u64; 17];
        let unaligned = words.as_mut_ptr().wrapping_add(1).cast::<[u64; 16]>();
        let unaligned = if unaligned.addr().is_multiple_of(64) {
            words.as_mut_ptr().wrapping_add(2).cast::<[u64; 16]>()
        } else {
            unaligned
        };
        let r = cuTensorMapEncodeTiled(
            unaligned,
            7,
            1,
            0x10000 as *mut c_void,
            [64u64].as_ptr(),
            null_mut(),
            [16u32].as_ptr(),
            [1u32].as_ptr(),
            0,
            0,
            0,
            0,
        );
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
    }
}

#[test]
// A tensor map names its memory by a device address, a `CUdeviceptr` integer the API takes as
// `void *`: the cast from an integer to a pointer is what Miri's strict provenance
// (scripts/miri.sh) refuses, so these tests run natively only (every run of the test command;
// the checking program `tensor_map` runs natively in check-driver too).
#[cfg_attr(miri, ignore = "device addresses as integers cast to pointers")]
fn the_im2col_encode_checks_its_corners_channels_and_pixels() {
    let _serial = serial();
    let mut m = Map([0; 16]);
    // NHWC 16 channels of f32, 8 × 8 pixels, batch 2.
    let (dims, strides) = ([16u64, 8, 8, 2], [64u64, 512, 4096]);
    let im2col = |m: &mut Map, lower: [c_int; 2], upper: [c_int; 2], c: u32, p: u32| {
        // SAFETY: rank 4: four extents and element strides, three strides, two corners each.
        unsafe {
            cuTensorMapEncodeIm2col(
                &raw mut m.0,
                7,
                4,
                0x10000 as *mut c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                lower.as_ptr(),
                upper.as_ptr(),
                c,
                p,
                [1u32; 4].as_ptr(),
                0,
                0,
                0,
                0,
            )
        }
    };
    assert_eq!(im2col(&mut m, [-1, -1], [1, 1], 16, 64), CUDA_SUCCESS);
    for (i, r) in [
        im2col(&mut m, [-129, 0], [0, 0], 16, 64),
        im2col(&mut m, [0, 0], [128, 0], 16, 64),
        im2col(&mut m, [0, 8], [0, 0], 16, 64),
        im2col(&mut m, [0, 0], [0, 0], 0, 64),
        im2col(&mut m, [0, 0], [0, 0], 257, 64),
        im2col(&mut m, [0, 0], [0, 0], 16, 0),
        im2col(&mut m, [0, 0], [0, 0], 16, 1025),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "case {i}");
    }
    // Rank 2 is refused before any array is read.
    // SAFETY: refused on its rank; the arrays are never read.
    let r = unsafe {
        cuTensorMapEncodeIm2col(
            &raw mut m.0,
            7,
            2,
            0x10000 as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            null_mut(),
            null_mut(),
            16,
            8,
            [1u32; 4].as_ptr(),
            0,
            0,
            0,
            0,
        )
    };
    assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
}

#[test]
// A tensor map names its memory by a device address, a `CUdeviceptr` integer the API takes as
// `void *`: the cast from an integer to a pointer is what Miri's strict provenance
// (scripts/miri.sh) refuses, so these tests run natively only (every run of the test command;
// the checking program `tensor_map` runs natively in check-driver too).
#[cfg_attr(miri, ignore = "device addresses as integers cast to pointers")]
fn a_map_reaching_past_its_allocation_is_a_violation() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    let _c = ctx();
    let mut m = Map([0; 16]);
    let mut d = 0;
    // SAFETY: valid out-pointers; the arrays hold what rank 2 reads.
    unsafe {
        assert_eq!(cuMemAlloc_v2(&raw mut d, 64 * 32 * 4), CUDA_SUCCESS);
        // The whole 8 KiB allocation: nothing recorded.
        let fits = violations_of(|| {
            let r = tiled(
                &mut m,
                2,
                d,
                &[64, 32],
                &[256],
                &[16, 8],
                &[1, 1],
                (0, 0, 0),
            );
            assert_eq!(r, CUDA_SUCCESS);
        });
        assert_eq!(fits, 0);
        // One row more than the allocation holds: encoded (the driver does not know), reported.
        let past = violations_of(|| {
            let r = tiled(
                &mut m,
                2,
                d,
                &[64, 33],
                &[256],
                &[16, 8],
                &[1, 1],
                (0, 0, 0),
            );
            assert_eq!(r, CUDA_SUCCESS);
        });
        assert_eq!(past, 1);
        assert_eq!(cuMemFree_v2(d), CUDA_SUCCESS);
    }
    mode::CHECK.store(false, Relaxed);
}
