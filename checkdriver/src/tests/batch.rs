//! The double's own tests. Batched copies (`cuMemcpyBatchAsync`, CUDA 12.8's form): found only
//! from 12.8 and only at the 12.8 ABI, their arguments checked, each copy moving real bytes and
//! checked as the single copy of its direction is.

use super::*;

/// `cuMemcpyBatchAsync`'s 12.8 ABI, as `cuGetProcAddress` hands it out.
type Batch = unsafe extern "C" fn(
    *mut CUdeviceptr,
    *mut CUdeviceptr,
    *mut usize,
    usize,
    *mut c_void,
    *mut usize,
    usize,
    *mut usize,
    Handle,
) -> CUresult;

/// One attribute set (`CUmemcpyAttributes`): `order`, no hints, `flags`.
fn attrs(order: c_int, flags: c_uint) -> [c_int; 6] {
    [order, 0, 0, 0, 0, flags as c_int]
}

/// `cuGetProcAddress_v2("cuMemcpyBatchAsync", version)`: the status, or the pointer.
fn lookup(version: c_int) -> Result<Batch, c_int> {
    let (mut f, mut status) = (null_mut(), -1);
    // SAFETY: a NUL-terminated name and valid out-pointers.
    let r = unsafe {
        cuGetProcAddress_v2(
            c"cuMemcpyBatchAsync".as_ptr(),
            &raw mut f,
            version,
            0,
            &raw mut status,
        )
    };
    if r == CUDA_SUCCESS && status == 0 && !f.is_null() {
        // SAFETY: the double's `cuMemcpyBatchAsync`, whose signature is `Batch`.
        Ok(unsafe { core::mem::transmute::<*mut c_void, Batch>(f) })
    } else {
        Err(status)
    }
}

#[test]
fn the_batch_is_found_from_12_8_at_the_12_8_abi_only() {
    let _serial = serial();
    {
        assert_eq!(custackCheckdriverSetDriverVersion(12070), CUDA_SUCCESS);
        assert_eq!(lookup(12080).err(), Some(1), "not found on driver 12.7");
        assert_eq!(custackCheckdriverSetDriverVersion(12080), CUDA_SUCCESS);
        assert!(lookup(12080).is_ok(), "found on driver 12.8 at 12.8");
        assert_eq!(lookup(12070).err(), Some(2), "asked below its version");
        assert_eq!(custackCheckdriverSetDriverVersion(13000), CUDA_SUCCESS);
        assert!(lookup(12080).is_ok(), "12.8's ABI on a 13.0 driver");
        assert_eq!(
            lookup(13000).err(),
            Some(1),
            "13.0's ABI (`_v2`) is not modelled"
        );
        assert_eq!(custackCheckdriverSetDriverVersion(12020), CUDA_SUCCESS);
    }
}

#[test]
// `cuMemcpyBatchAsync` names host memory by address, a `CUdeviceptr` (an integer, by unified
// addressing), which the double can turn back into a pointer only by exposed provenance: Miri's
// strict provenance (scripts/miri.sh) does not support that, so this test runs natively only
// (every run of the test command; the checking programs `batch_copies` and `batch_copies_old`
// run natively in check-driver too).
#[cfg_attr(miri, ignore = "host addresses as integers need exposed provenance")]
fn a_batch_moves_every_copy_and_checks_its_arguments_and_sides() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // arrays of the lengths passed, host memory that outlives the calls that read or write it,
    // and handles the double made: the wrong sequences under test misuse the driver's contract,
    // which the double records, not Rust's.
    unsafe {
        assert_eq!(custackCheckdriverSetDriverVersion(12080), CUDA_SUCCESS);
        let batch = lookup(12080).expect("found at 12.8");
        let c = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let (mut a, mut b) = (0, 0);
        let _ = cuMemAlloc_v2(&raw mut a, 64);
        let _ = cuMemAlloc_v2(&raw mut b, 64);
        let up: Vec<u32> = (0..16).collect();
        let mut down = vec![0u32; 16];
        let mut fail = 0usize;
        let mut at = attrs(1, 0);
        let mut first = 0usize;
        // Two copies in one call: the host to `a`, its first half to `b`; then `b` back.
        let mut dsts = [a, b];
        let mut srcs = [up.as_ptr() as u64, up.as_ptr() as u64];
        let mut sizes = [64usize, 32];
        let run = |dsts: &mut [u64],
                   srcs: &mut [u64],
                   sizes: &mut [usize],
                   at: &mut [c_int; 6],
                   fail: &mut usize| {
            let mut first = 0usize;
            batch(
                dsts.as_mut_ptr(),
                srcs.as_mut_ptr(),
                sizes.as_mut_ptr(),
                dsts.len(),
                at.as_mut_ptr().cast(),
                &raw mut first,
                1,
                fail,
                s,
            )
        };
        assert_eq!(
            run(&mut dsts, &mut srcs, &mut sizes, &mut at, &mut fail),
            CUDA_SUCCESS
        );
        assert_eq!(fail, usize::MAX);
        let mut dsts = [down.as_mut_ptr() as u64];
        let mut srcs = [b];
        let mut sizes = [32usize];
        assert_eq!(
            run(&mut dsts, &mut srcs, &mut sizes, &mut at, &mut fail),
            CUDA_SUCCESS
        );
        let _ = cuStreamSynchronize(s);
        assert_eq!(&down[..8], &up[..8]);
        assert_eq!(&down[8..], &[0; 8]);
        let mut back = vec![0u32; 16];
        let _ = cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), a, 64);
        assert_eq!(back, up);
        // A device-to-device copy in a batch.
        let (mut dsts, mut srcs, mut sizes) = ([b], [a], [64usize]);
        assert_eq!(
            run(&mut dsts, &mut srcs, &mut sizes, &mut at, &mut fail),
            CUDA_SUCCESS
        );
        let _ = cuStreamSynchronize(s);
        let _ = cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), b, 64);
        assert_eq!(back, up);
        // A copy past the end of its allocation is a violation, as a single copy's is.
        let (mut dsts, mut srcs, mut sizes) = ([a + 32], [up.as_ptr() as u64], [64usize]);
        assert_eq!(
            violations_of(|| {
                let _ = run(&mut dsts, &mut srcs, &mut sizes, &mut at, &mut fail);
            }),
            1
        );
        // The arguments the documentation constrains: an invalid source order, unknown flags,
        // the legacy NULL stream, no copies, a first attribute index other than 0.
        let (mut dsts, mut srcs, mut sizes) = ([a], [up.as_ptr() as u64], [64usize]);
        let mut bad = attrs(0, 0);
        assert_eq!(
            run(&mut dsts, &mut srcs, &mut sizes, &mut bad, &mut fail),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut bad = attrs(1, 2);
        assert_eq!(
            run(&mut dsts, &mut srcs, &mut sizes, &mut bad, &mut fail),
            CUDA_ERROR_INVALID_VALUE
        );
        let r = batch(
            dsts.as_mut_ptr(),
            srcs.as_mut_ptr(),
            sizes.as_mut_ptr(),
            1,
            at.as_mut_ptr().cast(),
            &raw mut first,
            1,
            &raw mut fail,
            null_mut(),
        );
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "the legacy NULL stream");
        let r = batch(
            dsts.as_mut_ptr(),
            srcs.as_mut_ptr(),
            sizes.as_mut_ptr(),
            0,
            at.as_mut_ptr().cast(),
            &raw mut first,
            1,
            &raw mut fail,
            s,
        );
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "no copies");
        let mut one = 1usize;
        let r = batch(
            dsts.as_mut_ptr(),
            srcs.as_mut_ptr(),
            sizes.as_mut_ptr(),
            1,
            at.as_mut_ptr().cast(),
            &raw mut one,
            1,
            &raw mut fail,
            s,
        );
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "attrsIdxs[0] is not 0");
        // A copy on a freed allocation is a violation.
        let _ = cuMemFree_v2(b);
        let (mut dsts, mut srcs, mut sizes) = ([b], [up.as_ptr() as u64], [4usize]);
        assert_eq!(
            violations_of(|| {
                let _ = run(&mut dsts, &mut srcs, &mut sizes, &mut at, &mut fail);
            }),
            1
        );
        let _ = cuMemFree_v2(a);
        let _ = cuStreamDestroy_v2(s);
        let _ = cuCtxDestroy_v2(c);
        assert_eq!(custackCheckdriverSetDriverVersion(12020), CUDA_SUCCESS);
    }
}
