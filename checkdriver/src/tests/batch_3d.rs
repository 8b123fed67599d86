//! The double's own tests. Batched 3D copies (`cuMemcpy3DBatchAsync`, CUDA 12.8's form) and
//! batched prefetches and discards of managed memory (CUDA 13.0): each found only from its
//! version (the 3D batch only at the 12.8 ABI), their arguments checked, each 3D copy moving
//! real bytes as a `cuMemcpy3DAsync` of its sides does, a discard leaving its bytes unspecified
//! (`DISCARDED`), overlapping ranges of one batch a violation.

use super::*;
use crate::api::{BatchOp3d, DISCARDED, Operand3d};

/// `cuMemcpy3DBatchAsync`'s 12.8 ABI.
type Batch3d =
    unsafe extern "C" fn(usize, *mut BatchOp3d, *mut usize, c_ulonglong, Handle) -> CUresult;
/// `cuMemPrefetchBatchAsync` and `cuMemDiscardAndPrefetchBatchAsync`.
type Prefetch = unsafe extern "C" fn(
    *mut CUdeviceptr,
    *mut usize,
    usize,
    *mut c_void,
    *mut usize,
    usize,
    c_ulonglong,
    Handle,
) -> CUresult;
/// `cuMemDiscardBatchAsync`.
type Discard =
    unsafe extern "C" fn(*mut CUdeviceptr, *mut usize, usize, c_ulonglong, Handle) -> CUresult;

/// `cuGetProcAddress_v2(name, version)`: the status, or the pointer.
fn lookup(name: &CStr, version: c_int) -> Result<*mut c_void, c_int> {
    let (mut f, mut status) = (null_mut(), -1);
    // SAFETY: a NUL-terminated name and valid out-pointers.
    let r = unsafe { cuGetProcAddress_v2(name.as_ptr(), &raw mut f, version, 0, &raw mut status) };
    if r == CUDA_SUCCESS && status == 0 && !f.is_null() {
        Ok(f)
    } else {
        Err(status)
    }
}

#[test]
fn the_3d_batch_is_found_from_12_8_and_the_managed_batches_from_13_0() {
    let _serial = serial();
    let managed = [
        c"cuMemPrefetchBatchAsync",
        c"cuMemDiscardBatchAsync",
        c"cuMemDiscardAndPrefetchBatchAsync",
    ];
    assert_eq!(custackCheckdriverSetDriverVersion(12070), CUDA_SUCCESS);
    assert_eq!(lookup(c"cuMemcpy3DBatchAsync", 12080).err(), Some(1));
    assert_eq!(custackCheckdriverSetDriverVersion(12080), CUDA_SUCCESS);
    assert!(lookup(c"cuMemcpy3DBatchAsync", 12080).is_ok());
    for name in managed {
        assert_eq!(lookup(name, 13000).err(), Some(1), "{name:?} on 12.8");
    }
    assert_eq!(custackCheckdriverSetDriverVersion(13000), CUDA_SUCCESS);
    assert!(
        lookup(c"cuMemcpy3DBatchAsync", 12080).is_ok(),
        "12.8's ABI on 13.0"
    );
    assert_eq!(
        lookup(c"cuMemcpy3DBatchAsync", 13000).err(),
        Some(1),
        "13.0's ABI (`_v2`) is not modelled"
    );
    for name in managed {
        assert!(lookup(name, 13000).is_ok(), "{name:?} on 13.0");
        assert_eq!(
            lookup(name, 12080).err(),
            Some(2),
            "{name:?} asked below 13.0"
        );
    }
    assert_eq!(custackCheckdriverSetDriverVersion(12020), CUDA_SUCCESS);
}

/// A pointer operand: `at`, rows `row` elements apart, layers `layer` rows apart.
fn pointer(at: u64, row: u64, layer: u64) -> Operand3d {
    Operand3d {
        type_: 1,
        words: [at, row, layer, 0],
    }
}

/// An array operand from its origin.
fn array(h: Handle) -> Operand3d {
    Operand3d {
        type_: 2,
        words: [h as u64, 0, 0, 0],
    }
}

fn op(dst: Operand3d, src: Operand3d, extent: [usize; 3]) -> BatchOp3d {
    BatchOp3d {
        src,
        dst,
        extent,
        src_access_order: 1,
        flags: 0,
    }
}

#[test]
// Host sides are addresses (integers) in the descriptors: natively only, as `batch.rs`'s.
#[cfg_attr(miri, ignore = "host addresses as integers need exposed provenance")]
fn a_3d_batch_moves_arrays_and_pitched_rows_and_checks_its_arguments() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers, descriptors of the
    // lengths passed, host memory that outlives the calls, and handles the double made.
    unsafe {
        assert_eq!(custackCheckdriverSetDriverVersion(12080), CUDA_SUCCESS);
        let batch: Batch3d = core::mem::transmute::<*mut c_void, Batch3d>(
            lookup(c"cuMemcpy3DBatchAsync", 12080).expect("found at 12.8"),
        );
        let c = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        // A 4 × 3 array of u32 (`CUDA_ARRAY3D_DESCRIPTOR`: width, height, depth, format
        // UNSIGNED_INT32, one channel, flags).
        let desc: ([usize; 3], [c_uint; 3], c_uint) = ([4, 3, 0], [0x03, 1, 0], 0);
        let mut a = null_mut();
        assert_eq!(
            cuArray3DCreate_v2(&raw mut a, (&raw const desc).cast()),
            CUDA_SUCCESS
        );
        // 5 × 2 u32 of pitched memory.
        let (mut p, mut pitch) = (0, 0usize);
        let _ = cuMemAllocPitch_v2(&raw mut p, &raw mut pitch, 20, 2, 4);
        assert!(pitch >= 20);
        let up_a: Vec<u32> = (0..12).collect();
        let up_p: Vec<u32> = (100..110).collect();
        let mut ops = [
            op(array(a), pointer(up_a.as_ptr() as u64, 4, 3), [4, 3, 1]),
            op(
                pointer(p, pitch as u64, 2),
                pointer(up_p.as_ptr() as u64, 20, 2),
                [20, 2, 1],
            ),
        ];
        let mut fail = 0usize;
        assert_eq!(
            batch(2, ops.as_mut_ptr(), &raw mut fail, 0, s),
            CUDA_SUCCESS
        );
        assert_eq!(fail, usize::MAX);
        let (mut down_a, mut down_p) = (vec![0u32; 12], vec![0u32; 10]);
        let mut ops = [
            op(
                pointer(down_a.as_mut_ptr() as u64, 4, 3),
                array(a),
                [4, 3, 1],
            ),
            op(
                pointer(down_p.as_mut_ptr() as u64, 20, 2),
                pointer(p, pitch as u64, 2),
                [20, 2, 1],
            ),
        ];
        assert_eq!(
            batch(2, ops.as_mut_ptr(), &raw mut fail, 0, s),
            CUDA_SUCCESS
        );
        let _ = cuStreamSynchronize(s);
        assert_eq!(down_a, up_a);
        assert_eq!(down_p, up_p);
        // The arguments the documentation constrains: an extent of 0 (copy 1 blamed), flags,
        // no copies, the legacy NULL stream, an operand of no known type.
        let mut bad = [ops[0], ops[1]];
        bad[1].extent = [20, 0, 1];
        assert_eq!(
            batch(2, bad.as_mut_ptr(), &raw mut fail, 0, s),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(fail, 1);
        assert_eq!(
            batch(1, ops.as_mut_ptr(), &raw mut fail, 1, s),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(fail, usize::MAX);
        assert_eq!(
            batch(0, ops.as_mut_ptr(), &raw mut fail, 0, s),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            batch(1, ops.as_mut_ptr(), &raw mut fail, 0, null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut bad = [ops[0]];
        bad[0].src.type_ = 3;
        assert_eq!(
            batch(1, bad.as_mut_ptr(), &raw mut fail, 0, s),
            CUDA_ERROR_INVALID_VALUE
        );
        // A pitched side past the end of its allocation is a violation, as a single copy's is.
        let mut past = [op(
            pointer(p, pitch as u64, 3),
            pointer(up_p.as_ptr() as u64, 20, 3),
            [20, 3, 1],
        )];
        assert_eq!(
            violations_of(|| {
                let _ = batch(1, past.as_mut_ptr(), &raw mut fail, 0, s);
            }),
            1
        );
        // An array destroyed is a violation.
        let _ = cuStreamSynchronize(s);
        let _ = cuArrayDestroy(a);
        let mut gone = [op(array(a), pointer(up_a.as_ptr() as u64, 4, 3), [4, 3, 1])];
        assert_eq!(
            violations_of(|| {
                let _ = batch(1, gone.as_mut_ptr(), &raw mut fail, 0, s);
            }),
            1
        );
        let _ = cuMemFree_v2(p);
        let _ = cuStreamDestroy_v2(s);
        let _ = cuCtxDestroy_v2(c);
        assert_eq!(custackCheckdriverSetDriverVersion(12020), CUDA_SUCCESS);
    }
}

#[test]
fn managed_batches_check_their_ranges_and_a_discard_leaves_unspecified_bytes() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: as above; managed memory is host memory on the double, read after the stream
    // has synchronized.
    unsafe {
        assert_eq!(custackCheckdriverSetDriverVersion(13000), CUDA_SUCCESS);
        let prefetch: Prefetch = core::mem::transmute::<*mut c_void, Prefetch>(
            lookup(c"cuMemPrefetchBatchAsync", 13000).expect("found at 13.0"),
        );
        let discard: Discard = core::mem::transmute::<*mut c_void, Discard>(
            lookup(c"cuMemDiscardBatchAsync", 13000).expect("found at 13.0"),
        );
        let both: Prefetch = core::mem::transmute::<*mut c_void, Prefetch>(
            lookup(c"cuMemDiscardAndPrefetchBatchAsync", 13000).expect("found at 13.0"),
        );
        let c = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let (mut m, mut n) = (0, 0);
        let _ = cuMemAllocManaged(&raw mut m, 64, 1);
        let _ = cuMemAllocManaged(&raw mut n, 64, 1);
        let bytes = |at: CUdeviceptr| -> Vec<u8> {
            let mut v = vec![0u8; 64];
            let _ = cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), at, 64);
            v
        };
        let _ = cuMemsetD8_v2(m, 7, 64);
        let _ = cuMemsetD8_v2(n, 9, 64);
        // Two ranges to two locations (device 0, the host): two location indices.
        let mut locs: [c_int; 4] = [1, 0, 2, 0];
        let (mut ptrs, mut sizes, mut idxs) = ([m, n], [64usize, 64], [0usize, 1]);
        let run = |f: Prefetch,
                   ptrs: &mut [u64],
                   sizes: &mut [usize],
                   idxs: &mut [usize],
                   locs: &mut [c_int; 4],
                   flags: c_ulonglong| {
            f(
                ptrs.as_mut_ptr(),
                sizes.as_mut_ptr(),
                ptrs.len(),
                locs.as_mut_ptr().cast(),
                idxs.as_mut_ptr(),
                idxs.len(),
                flags,
                s,
            )
        };
        assert_eq!(
            run(prefetch, &mut ptrs, &mut sizes, &mut idxs, &mut locs, 0),
            CUDA_SUCCESS
        );
        let _ = cuStreamSynchronize(s);
        assert_eq!(bytes(m), vec![7; 64], "a prefetch keeps the contents");
        // Discard the first, discard and prefetch the second's first half.
        let (mut p1, mut s1) = ([m], [64usize]);
        assert_eq!(
            discard(p1.as_mut_ptr(), s1.as_mut_ptr(), 1, 0, s),
            CUDA_SUCCESS
        );
        let (mut p2, mut s2, mut i2) = ([n], [32usize], [0usize]);
        assert_eq!(
            run(both, &mut p2, &mut s2, &mut i2, &mut locs, 0),
            CUDA_SUCCESS
        );
        let _ = cuStreamSynchronize(s);
        assert_eq!(bytes(m), vec![DISCARDED; 64]);
        let second = bytes(n);
        assert_eq!(&second[..32], &[DISCARDED; 32]);
        assert_eq!(&second[32..], &[9; 32], "outside the range, untouched");
        // The arguments the documentation constrains: flags, no ranges, the legacy NULL stream,
        // a first location index other than 0, more locations than ranges.
        assert_eq!(
            run(prefetch, &mut ptrs, &mut sizes, &mut idxs, &mut locs, 1),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            discard(p1.as_mut_ptr(), s1.as_mut_ptr(), 0, 0, s),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            discard(p1.as_mut_ptr(), s1.as_mut_ptr(), 1, 0, null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut bad = [1usize, 1];
        assert_eq!(
            run(prefetch, &mut ptrs, &mut sizes, &mut bad, &mut locs, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut three = [0usize, 1, 2];
        assert_eq!(
            run(prefetch, &mut ptrs, &mut sizes, &mut three, &mut locs, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        // Overlapping ranges of one batch, and a range past its allocation: violations.
        let (mut po, mut so) = ([m, m + 16], [32usize, 8]);
        assert_eq!(
            violations_of(|| {
                let _ = discard(po.as_mut_ptr(), so.as_mut_ptr(), 2, 0, s);
            }),
            1
        );
        // Past the end: the range is reported when used, and the discard's write past the
        // allocation when it runs.
        let (mut pp, mut sp) = ([m + 32], [64usize]);
        assert_eq!(
            violations_of(|| {
                let _ = discard(pp.as_mut_ptr(), sp.as_mut_ptr(), 1, 0, s);
                let _ = cuStreamSynchronize(s);
            }),
            2
        );
        let _ = cuStreamSynchronize(s);
        let _ = cuMemFree_v2(m);
        let _ = cuMemFree_v2(n);
        let _ = cuStreamDestroy_v2(s);
        let _ = cuCtxDestroy_v2(c);
        assert_eq!(custackCheckdriverSetDriverVersion(12020), CUDA_SUCCESS);
    }
}
