//! The double's own tests. Virtual memory management: an imported allocation must be released;
//! every step checked in order.

use super::*;

// Native only: memfd_create and pread are system calls Miri does not model (under Miri the
// double stands in an eventfd, which the checking program `vmm_share` runs).
#[test]
#[cfg(not(miri))]
fn an_imported_allocation_must_be_released() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let g = 2 << 20;
        // `CUmemAllocationProp` asking for POSIX descriptors (its second `int`).
        let mut prop = [0 as c_int; 8];
        prop[0] = 1;
        prop[1] = 1;
        let export = |h: c_ulonglong| {
            let mut fd: c_int = -1;
            let r = cuMemExportToShareableHandle((&raw mut fd).cast(), h, 1, 0);
            (r, fd)
        };
        let import = |fd: c_int| {
            let mut h = 0;
            let r = cuMemImportFromShareableHandle(
                &raw mut h,
                core::ptr::without_provenance_mut(fd as usize),
                1,
            );
            (r, h)
        };
        for release in [false, true] {
            let a = ctx();
            let mut h = 0;
            let _ = cuMemCreate(&raw mut h, g, prop.as_ptr().cast(), 0);
            let (r, fd) = export(h);
            assert_eq!(r, CUDA_SUCCESS);
            let _ = cuMemRelease(h); // the import keeps the memory alive
            let (r, imported) = import(fd);
            assert_eq!(r, CUDA_SUCCESS);
            assert_ne!(imported, h, "an import is a handle of its own");
            share::close_fd(fd);
            if release {
                let _ = cuMemRelease(imported);
            }
            let orphans = orphans_of(|| {
                let _ = cuCtxDestroy_v2(a);
            });
            assert_eq!(orphans, usize::from(!release), "released: {release}");
        }
        let a = ctx();
        // A descriptor that names no export (closed, or not one of ours) is refused.
        assert_eq!(import(-1).0, CUDA_ERROR_INVALID_VALUE);
        assert_eq!(import(0).0, CUDA_ERROR_INVALID_VALUE);
        // Memory not created for descriptors is not exported to one.
        let mut h = 0;
        let _ = cuMemCreate(&raw mut h, g, null_mut(), 0);
        assert_eq!(export(h).0, CUDA_ERROR_NOT_SUPPORTED);
        let _ = cuMemRelease(h);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn virtual_memory_is_checked_in_order() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let (mut base, mut h, mut s) = (0, 0, null_mut());
        let _ = cuStreamCreate(&raw mut s, 0);
        let g = 2 << 20;
        assert_eq!(
            violations_of(|| {
                let _ = cuMemAddressReserve(&raw mut base, 2 * g, 0, 0, 0);
                let _ = cuMemCreate(&raw mut h, g, null_mut(), 0);
                assert_eq!(cuMemMap(base, g, 0, h, 0), CUDA_SUCCESS);
                let _ = cuMemSetAccess(base, g, null_mut(), 1);
                let _ = cuMemsetD32Async(base + 64, 0, 4, s);
                let _ = cuStreamSynchronize(s);
                let _ = cuMemUnmap(base, g);
                // The same physical memory twice, one after the other.
                let _ = cuMemMap(base, g, 0, h, 0);
                let _ = cuMemMap(base + g as u64, g, 0, h, 0);
                let _ = cuMemSetAccess(base, 2 * g, null_mut(), 1);
                let _ = cuMemsetD8_v2(base + g as u64, 0, 8);
                let _ = cuMemUnmap(base, 2 * g);
            }),
            0,
            "reserve, create, map, set access, use, unmap"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuMemMap(base, g, 0, h, 0);
                let _ = cuMemsetD8_v2(base, 0, 8);
            }),
            1,
            "mapped memory used before cuMemSetAccess"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuMemMap(base, g, 0, h, 0);
            }),
            1,
            "mapped twice at one address"
        );
        let _ = cuMemSetAccess(base, g, null_mut(), 1);
        let _ = cuMemsetD8Async(base, 0, 8, s);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemUnmap(base, g);
            }),
            1,
            "unmapped while a memset may use it"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuMemsetD8_v2(base, 0, 8);
                let _ = cuMemUnmap(base, g);
            }),
            2,
            "used after unmap, unmapped twice"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuMemMap(base + 3 * g as u64, g, 0, h, 0);
            }),
            1,
            "mapped outside the reservation"
        );
        let _ = cuMemMap(base, g, 0, h, 0);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemAddressFree(base, 2 * g);
            }),
            1,
            "a reservation freed while mapped"
        );
        let _ = cuMemUnmap(base, g);
        let _ = cuMemRelease(h);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemRelease(h);
                let _ = cuMemMap(base, g, 0, h, 0);
            }),
            2,
            "released twice, mapped after release"
        );
        let _ = cuStreamDestroy_v2(s);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}
