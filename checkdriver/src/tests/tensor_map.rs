//! The double's own tests. Tensor maps: both encode calls refuse each documented rule broken with
//! `CUDA_ERROR_INVALID_VALUE`, encode what passes, and in checking mode report a map that reaches
//! past its allocation.
//!
//! A tensor map names its memory by a device address, a `CUdeviceptr` integer the API takes as
//! `void *`: the cast from an integer to a pointer is what Miri's strict provenance
//! (scripts/miri.sh) refuses, so these tests run natively only (every run of the test command;
//! the checking program `tensor_map` runs natively in check-driver too).

use super::*;

/// A 64-byte-aligned descriptor, as `cuda.h` declares `CUtensorMap`.
#[repr(C, align(64))]
struct Map([u64; 16]);

/// One `cuTensorMapEncodeTiled` call's arguments; each case is [`MATRIX`] (or [`INTERLEAVED`])
/// with the one argument it breaks.
#[derive(Clone, Copy)]
struct Tiled {
    data_type: c_int,
    rank: u32,
    address: u64,
    dims: &'static [u64],
    /// Passed as a null pointer when empty (rank 1 reads none).
    strides: &'static [u64],
    boxes: &'static [u32],
    element_strides: &'static [u32],
    /// Interleave, swizzle, out-of-bounds fill.
    options: (c_int, c_int, c_int),
}

/// A 64 × 32 matrix of f32 (type 7), rows 256 bytes apart, boxes of 16 × 8, at a 16-byte
/// address: encoded.
const MATRIX: Tiled = Tiled {
    data_type: 7,
    rank: 2,
    address: 0x10000,
    dims: &[64, 32],
    strides: &[256],
    boxes: &[16, 8],
    element_strides: &[1, 1],
    options: (0, 0, 0),
};

/// A rank-3 f32 tensor of 8 × 4 × 4 under the 32-byte interleave (and the 32-byte swizzle).
const INTERLEAVED: Tiled = Tiled {
    rank: 3,
    dims: &[8, 4, 4],
    strides: &[32, 128],
    boxes: &[8, 1, 1],
    element_strides: &[1; 3],
    options: (2, 1, 0),
    ..MATRIX
};

impl Tiled {
    /// `cuTensorMapEncodeTiled` of these arguments into `map`.
    ///
    /// # Safety
    ///
    /// The arrays hold `rank` (`rank - 1` for `strides`) elements, or the call's rank check
    /// refuses before reading them; `map` is valid for 128 bytes of writes.
    unsafe fn encode_into(self, map: *mut [u64; 16]) -> CUresult {
        let (interleave, swizzle, oob) = self.options;
        let strides = if self.strides.is_empty() {
            core::ptr::null()
        } else {
            self.strides.as_ptr()
        };
        // SAFETY: the caller's.
        unsafe {
            cuTensorMapEncodeTiled(
                map,
                self.data_type,
                self.rank,
                self.address as *mut c_void,
                self.dims.as_ptr(),
                strides,
                self.boxes.as_ptr(),
                self.element_strides.as_ptr(),
                interleave,
                swizzle,
                0,
                oob,
            )
        }
    }

    /// As [`encode_into`](Self::encode_into), into an aligned descriptor.
    ///
    /// # Safety
    ///
    /// As [`encode_into`](Self::encode_into)'s arrays.
    unsafe fn encode(self, map: &mut Map) -> CUresult {
        // SAFETY: the caller's; `map` is a live, aligned descriptor.
        unsafe { self.encode_into(&raw mut map.0) }
    }
}

#[test]
#[cfg_attr(miri, ignore = "device addresses as integers cast to pointers")]
fn the_tiled_encode_checks_each_documented_rule() {
    let _serial = serial();
    let mut m = Map([0; 16]);
    // SAFETY: each case's arrays hold what its rank reads (`encode`'s contract); `m` is a
    // 64-byte-aligned descriptor.
    unsafe {
        assert_eq!(MATRIX.encode(&mut m), CUDA_SUCCESS);
        assert_eq!((m.0[0], m.0[1], m.0[2], m.0[3]), (0x10000, 2, 64, 32));
        let refused = [
            // Rank 0, rank 6, rank 2 with interleave.
            Tiled {
                rank: 0,
                dims: &[64],
                strides: &[],
                boxes: &[16],
                element_strides: &[1],
                ..MATRIX
            },
            Tiled {
                rank: 6,
                dims: &[1; 6],
                strides: &[16; 5],
                boxes: &[1; 6],
                element_strides: &[1; 6],
                ..MATRIX
            },
            Tiled {
                options: (1, 0, 0),
                ..MATRIX
            },
            // The address: 8-byte aligned; 16 but not 32 with the 32-byte interleave.
            Tiled {
                address: 0x10008,
                ..MATRIX
            },
            Tiled {
                address: 0x10010,
                ..INTERLEAVED
            },
            // An extent of 0, above 2^32.
            Tiled {
                dims: &[0, 32],
                ..MATRIX
            },
            Tiled {
                dims: &[(1 << 32) + 1, 1],
                strides: &[1 << 36],
                boxes: &[16, 1],
                ..MATRIX
            },
            // A stride not a multiple of 16, one of 2^40.
            Tiled {
                strides: &[260],
                ..MATRIX
            },
            Tiled {
                strides: &[1 << 40],
                ..MATRIX
            },
            // A box of 0, of 257, an inner box of 24 bytes.
            Tiled {
                boxes: &[16, 0],
                ..MATRIX
            },
            Tiled {
                boxes: &[16, 257],
                ..MATRIX
            },
            Tiled {
                boxes: &[6, 8],
                ..MATRIX
            },
            // An element stride of 0, of 9.
            Tiled {
                element_strides: &[1, 0],
                ..MATRIX
            },
            Tiled {
                element_strides: &[1, 9],
                ..MATRIX
            },
            // The 32-byte interleave with the 64-byte swizzle.
            Tiled {
                options: (2, 2, 0),
                ..INTERLEAVED
            },
            // A 64-byte inner box under the 32-byte swizzle.
            Tiled {
                options: (0, 1, 0),
                ..MATRIX
            },
            // Values no enum lists.
            Tiled {
                options: (3, 0, 0),
                ..MATRIX
            },
            Tiled {
                options: (0, 7, 0),
                ..MATRIX
            },
            Tiled {
                options: (0, 0, 2),
                ..MATRIX
            },
        ];
        for (i, t) in refused.into_iter().enumerate() {
            assert_eq!(t.encode(&mut m), CUDA_ERROR_INVALID_VALUE, "case {i}");
        }
        // The NaN fill: allowed for f32, refused for u32 (type 2).
        let nan_fill = Tiled {
            options: (0, 0, 1),
            ..MATRIX
        };
        assert_eq!(nan_fill.encode(&mut m), CUDA_SUCCESS);
        // A vector of 64, rank 1: no strides.
        let vector = Tiled {
            rank: 1,
            dims: &[64],
            strides: &[],
            boxes: &[16],
            element_strides: &[1],
            ..MATRIX
        };
        let mut u = Map([0; 16]);
        let u32_nan_fill = Tiled {
            data_type: 2,
            options: (0, 0, 1),
            ..vector
        };
        assert_eq!(u32_nan_fill.encode(&mut u), CUDA_ERROR_INVALID_VALUE);
        // A descriptor that is not 64-byte aligned.
        let mut words = [0u64; 17];
        let unaligned = words.as_mut_ptr().wrapping_add(1).cast::<[u64; 16]>();
        let unaligned = if unaligned.addr().is_multiple_of(64) {
            words.as_mut_ptr().wrapping_add(2).cast::<[u64; 16]>()
        } else {
            unaligned
        };
        assert_eq!(vector.encode_into(unaligned), CUDA_ERROR_INVALID_VALUE);
    }
}

/// `cuTensorMapEncodeIm2col` of f32 NHWC, 16 channels, 8 × 8 pixels, batch 2, at rank `rank`,
/// with the corners `lower` and `upper` (null pointers for `None`), `channels` and `pixels`.
fn im2col(
    m: &mut Map,
    rank: u32,
    corners: Option<([c_int; 2], [c_int; 2])>,
    channels: u32,
    pixels: u32,
) -> CUresult {
    let (dims, strides) = ([16u64, 8, 8, 2], [64u64, 512, 4096]);
    let (lower, upper) = corners
        .as_ref()
        .map_or((core::ptr::null(), core::ptr::null()), |(l, u)| {
            (l.as_ptr(), u.as_ptr())
        });
    // SAFETY: four extents and element strides, three strides, two corners each: what rank 4
    // reads; a rank outside 3 to 5 (or null corners) is refused before any array is read.
    unsafe {
        cuTensorMapEncodeIm2col(
            &raw mut m.0,
            7,
            rank,
            0x10000 as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            lower,
            upper,
            channels,
            pixels,
            [1u32; 4].as_ptr(),
            0,
            0,
            0,
            0,
        )
    }
}

#[test]
#[cfg_attr(miri, ignore = "device addresses as integers cast to pointers")]
fn the_im2col_encode_checks_its_corners_channels_and_pixels() {
    let _serial = serial();
    let mut m = Map([0; 16]);
    let nhwc = |m: &mut Map, lower, upper, c, p| im2col(m, 4, Some((lower, upper)), c, p);
    assert_eq!(nhwc(&mut m, [-1, -1], [1, 1], 16, 64), CUDA_SUCCESS);
    for (i, r) in [
        nhwc(&mut m, [-129, 0], [0, 0], 16, 64),
        nhwc(&mut m, [0, 0], [128, 0], 16, 64),
        nhwc(&mut m, [0, 8], [0, 0], 16, 64),
        nhwc(&mut m, [0, 0], [0, 0], 0, 64),
        nhwc(&mut m, [0, 0], [0, 0], 257, 64),
        nhwc(&mut m, [0, 0], [0, 0], 16, 0),
        nhwc(&mut m, [0, 0], [0, 0], 16, 1025),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "case {i}");
    }
    // Rank 2 is refused before any array is read.
    assert_eq!(im2col(&mut m, 2, None, 16, 8), CUDA_ERROR_INVALID_VALUE);
}

#[test]
#[cfg_attr(miri, ignore = "device addresses as integers cast to pointers")]
fn a_map_reaching_past_its_allocation_is_a_violation() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    let _c = ctx();
    let mut m = Map([0; 16]);
    let mut d = 0;
    // SAFETY: a valid out-pointer.
    let r = unsafe { cuMemAlloc_v2(&raw mut d, 64 * 32 * 4) };
    assert_eq!(r, CUDA_SUCCESS);
    let mut violations = |dims: &'static [u64]| {
        let map = Tiled {
            address: d,
            dims,
            ..MATRIX
        };
        violations_of(|| {
            // SAFETY: the arrays hold what rank 2 reads.
            let r = unsafe { map.encode(&mut m) };
            assert_eq!(r, CUDA_SUCCESS);
        })
    };
    // The whole 8 KiB allocation: nothing recorded.
    assert_eq!(violations(&[64, 32]), 0);
    // One row more than the allocation holds: encoded (the driver does not know), reported.
    assert_eq!(violations(&[64, 33]), 1);
    // SAFETY: the allocation above, freed once.
    let r = unsafe { cuMemFree_v2(d) };
    assert_eq!(r, CUDA_SUCCESS);
    mode::CHECK.store(false, Relaxed);
}
