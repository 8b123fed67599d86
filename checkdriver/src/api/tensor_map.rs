//! Models `cuda.h` "Tensor Map Object Managment" (`group__CUDA__TENSOR__MEMORY`): the two encode
//! calls, each checking its parameters against the rules the driver API documents for it and
//! answering `CUDA_ERROR_INVALID_VALUE` where one does not hold, as the driver does. A map that
//! passes is written as a descriptor of the double's own (its address, rank and extents: a real
//! map is opaque), and in checking mode a map that reaches past the allocation it starts in is a
//! violation: the driver encodes such a map, and the hardware's copies through it would read
//! memory that is not the tensor's.

use super::common::out;
use super::types::{CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, CUdeviceptr};
use crate::{data, mode};
use core::ffi::{c_int, c_void};

/// `CU_TENSOR_MAP_INTERLEAVE_32B`.
const INTERLEAVE_32B: c_int = 2;
/// `CU_TENSOR_MAP_SWIZZLE_32B`.
const SWIZZLE_32B: c_int = 1;

/// The element size of a `CUtensorMapDataType`, and whether it is a floating-point type;
/// `None` for a value the enum does not list (the packed 4- and 6-bit types, which the double
/// does not model, among them).
fn element(data_type: c_int) -> Option<(u64, bool)> {
    Some(match data_type {
        0 => (1, false),
        1 => (2, false),
        2 | 3 => (4, false),
        4 | 5 => (8, false),
        6 | 9 => (2, true),
        7 | 10..=12 => (4, true),
        8 => (8, true),
        _ => return None,
    })
}

/// The span of a `CUtensorMapSwizzle` in bytes (`None`: no swizzle, or not a value of the enum,
/// which `check_common` refuses first).
fn swizzle_span(swizzle: c_int) -> Option<u64> {
    match swizzle {
        1 => Some(32),
        2 => Some(64),
        3..=6 => Some(128),
        _ => None,
    }
}

/// What both encode calls share: the parameters after the kind-specific ones.
struct Common<'a> {
    data_type: c_int,
    rank: u32,
    address: CUdeviceptr,
    dims: &'a [u64],
    strides: &'a [u64],
    element_strides: &'a [u32],
    interleave: c_int,
    swizzle: c_int,
    l2: c_int,
    oob: c_int,
}

/// Checks the rules both calls document; the element size, or the rule broken.
fn check_common(c: &Common<'_>) -> Result<u64, String> {
    let (size, float) =
        element(c.data_type).ok_or("tensorDataType is not a CUtensorMapDataType")?;
    if !(0..=2).contains(&c.interleave) || !(0..=3).contains(&c.l2) || !(0..=1).contains(&c.oob) {
        return Err("interleave, l2Promotion or oobFill is not a value of its enum".into());
    }
    if !(0..=6).contains(&c.swizzle) {
        return Err("swizzle is not a CUtensorMapSwizzle".into());
    }
    let align = if c.interleave == INTERLEAVE_32B {
        32
    } else {
        16
    };
    if !c.address.is_multiple_of(align) {
        return Err(format!(
            "globalAddress {:#x} is not {align}-byte aligned",
            c.address
        ));
    }
    if c.dims.iter().any(|&d| d == 0 || d > 1 << 32) {
        return Err("a globalDim is 0 or above 2^32".into());
    }
    if c.strides
        .iter()
        .any(|&s| !s.is_multiple_of(align) || s >= 1 << 40)
    {
        return Err(format!(
            "a globalStride is not a multiple of {align} below 2^40"
        ));
    }
    if c.element_strides.iter().any(|&e| e == 0 || e > 8) {
        return Err("an elementStride is 0 or above 8".into());
    }
    if c.interleave == INTERLEAVE_32B && c.swizzle != SWIZZLE_32B {
        return Err("32-byte interleave without the 32-byte swizzle".into());
    }
    if c.oob == 1 && !float {
        return Err("the NaN fill with an integer type".into());
    }
    Ok(size)
}

/// In checking mode, a map reaching past the allocation it starts in is a violation: every
/// byte from its address to its last element's row is read through the data model, which
/// refuses a range that leaves an allocation.
fn check_reach(call: &str, c: &Common<'_>, size: u64) {
    if !crate::api::common::checking() {
        return;
    }
    let mut last = 0u64;
    for (i, &d) in c.dims.iter().enumerate() {
        let stride = if i == 0 { size } else { c.strides[i - 1] };
        last = last.saturating_add((d - 1).saturating_mul(stride));
    }
    let reach = last.saturating_add(size);
    match usize::try_from(reach) {
        Ok(bytes) if bytes <= 1 << 30 => {
            if let Err(e) = data::snapshot(c.address, bytes) {
                mode::data_violation(call, &format!("the map's {bytes} bytes: {e}"));
            }
        }
        _ => mode::data_violation(call, &format!("the map reaches {reach} bytes")),
    }
}

/// The `len` elements at `p` (empty for a null `p` or `len` 0).
///
/// # Safety
///
/// `p` is null or valid for reading `len` elements.
unsafe fn slice<'a, T>(p: *const T, len: usize) -> &'a [T] {
    if p.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: the caller's.
        unsafe { core::slice::from_raw_parts(p, len) }
    }
}

/// Writes the double's descriptor: the address, the rank and the extents, the rest zero.
///
/// # Safety
///
/// `map` is null or valid for writing 16 `u64`s.
unsafe fn write_map(map: *mut [u64; 16], c: &Common<'_>) {
    let mut words = [0u64; 16];
    words[0] = c.address;
    words[1] = u64::from(c.rank);
    for (w, &d) in words[2..].iter_mut().zip(c.dims) {
        *w = d;
    }
    // SAFETY: the caller's.
    unsafe { out(map, words) };
}

/// Fails the call with `CUDA_ERROR_INVALID_VALUE`, as the driver does for any rule broken (the
/// rule is named at each call site; the driver's answer does not say which).
fn invalid(_call: &str, _rule: &str) -> c_int {
    CUDA_ERROR_INVALID_VALUE
}

entry_points! {
    fn cuTensorMapEncodeTiled(
        map: *mut [u64; 16],
        data_type: c_int,
        rank: u32,
        address: *mut c_void,
        dims: *const u64,
        strides: *const u64,
        box_dims: *const u32,
        element_strides: *const u32,
        interleave: c_int,
        swizzle: c_int,
        l2: c_int,
        oob: c_int,
    ) {
        let call = "cuTensorMapEncodeTiled";
        let min = if interleave == 0 { 1 } else { 3 };
        if map.is_null() || !map.addr().is_multiple_of(64) {
            return invalid(call, "tensorMap is null or not 64-byte aligned");
        }
        if !(min..=5).contains(&rank) || dims.is_null() || box_dims.is_null() || element_strides.is_null() || (rank > 1 && strides.is_null()) {
            return invalid(call, "tensorRank is out of range or an array is null");
        }
        let n = rank as usize;
        let c = Common {
            data_type, rank, address: address as CUdeviceptr,
            dims: slice(dims, n), strides: slice(strides, n - 1),
            element_strides: slice(element_strides, n),
            interleave, swizzle, l2, oob,
        };
        let size = match check_common(&c) {
            Ok(size) => size,
            Err(rule) => return invalid(call, &rule),
        };
        let boxes = slice(box_dims, n);
        if boxes.iter().any(|&b| b == 0 || b > 256) {
            return invalid(call, "a boxDim is 0 or above 256");
        }
        let inner = u64::from(boxes[0]) * size;
        if interleave == 0 {
            if !inner.is_multiple_of(16) {
                return invalid(call, "boxDim[0] * the element size is not a multiple of 16");
            }
            if matches!(swizzle_span(swizzle), Some(span) if inner > span) {
                return invalid(call, "the box's inner dimension exceeds the swizzle's span");
            }
        }
        check_reach(call, &c, size);
        write_map(map, &c);
        CUDA_SUCCESS
    }
    fn cuTensorMapEncodeIm2col(
        map: *mut [u64; 16],
        data_type: c_int,
        rank: u32,
        address: *mut c_void,
        dims: *const u64,
        strides: *const u64,
        lower: *const c_int,
        upper: *const c_int,
        channels_per_pixel: u32,
        pixels_per_column: u32,
        element_strides: *const u32,
        interleave: c_int,
        swizzle: c_int,
        l2: c_int,
        oob: c_int,
    ) {
        let call = "cuTensorMapEncodeIm2col";
        if map.is_null() || !map.addr().is_multiple_of(64) {
            return invalid(call, "tensorMap is null or not 64-byte aligned");
        }
        if !(3..=5).contains(&rank) || dims.is_null() || strides.is_null() || lower.is_null() || upper.is_null() || element_strides.is_null() {
            return invalid(call, "tensorRank is not 3 to 5 or an array is null");
        }
        let n = rank as usize;
        let c = Common {
            data_type, rank, address: address as CUdeviceptr,
            dims: slice(dims, n), strides: slice(strides, n - 1),
            element_strides: slice(element_strides, n),
            interleave, swizzle, l2, oob,
        };
        let size = match check_common(&c) {
            Ok(size) => size,
            Err(rule) => return invalid(call, &rule),
        };
        let half: i64 = match rank { 3 => 1 << 15, 4 => 1 << 7, _ => 1 << 4 };
        let (lower, upper) = (slice(lower, n - 2), slice(upper, n - 2));
        for (i, (&lo, &up)) in lower.iter().zip(upper).enumerate() {
            if !(-half..half).contains(&i64::from(lo)) || !(-half..half).contains(&i64::from(up)) {
                return invalid(call, "a corner offset is outside its rank's range");
            }
            if i128::from(c.dims[i + 1]) + i128::from(up) - i128::from(lo) <= 0 {
                return invalid(call, "the bounding box has zero area");
            }
        }
        if channels_per_pixel == 0 || channels_per_pixel > 256 {
            return invalid(call, "channelsPerPixel is 0 or above 256");
        }
        if pixels_per_column == 0 || pixels_per_column > 1024 {
            return invalid(call, "pixelsPerColumn is 0 or above 1024");
        }
        let inner = u64::from(channels_per_pixel) * size;
        if interleave == 0 && matches!(swizzle_span(swizzle), Some(span) if inner > span) {
            return invalid(call, "the box's inner dimension exceeds the swizzle's span");
        }
        check_reach(call, &c, size);
        write_map(map, &c);
        CUDA_SUCCESS
    }
}
