//! The double's own tests. Memory: copies, memsets and stand-ins move real bytes; 2D copies and
//! peer copies are checked side by side.

use super::*;

/// `add_u32(x, k, n)`'s stand-in: x[i] += k for i < n, through the double's read and write.
///
/// # Safety
///
/// The stand-in ABI's (`standin.rs`): `l` points to the launch, whose `args` and `arg_sizes`
/// hold `n_args` entries, each argument pointer to that argument's bytes; `data` is the `u32`
/// the test registered with the stand-in.
unsafe extern "C" fn add_u32_on_cpu(data: *mut c_void, l: *const StandInLaunch) -> c_int {
    // SAFETY: `l` points to the launch (this function's contract).
    let l = unsafe { &*l };
    assert_eq!(l.size, size_of::<StandInLaunch>());
    // SAFETY: the launch's name is NUL-terminated (the ABI's).
    assert_eq!(unsafe { CStr::from_ptr(l.name) }, c"add_u32");
    assert_eq!((l.n_args, l.grid, l.block), (3, [1, 1, 1], [16, 1, 1]));
    // SAFETY: `i < n_args` (3, asserted above), so `args` and `arg_sizes` hold entry `i`.
    let arg = |i: usize| unsafe { (*l.args.add(i), *l.arg_sizes.add(i)) };
    let (x, x_size) = arg(0);
    assert_eq!(x_size, 8);
    // SAFETY: each argument pointer points to its bytes: 8 for `x` (asserted), 4 for the
    // `unsigned` `k` and `n`.
    let (x, k, n) = unsafe {
        (
            x.cast::<u64>().read_unaligned(),
            arg(1).0.cast::<u32>().read_unaligned(),
            arg(2).0.cast::<u32>().read_unaligned() as usize,
        )
    };
    let mut v = vec![0u32; n];
    // SAFETY: the double's `read`, into a buffer of `n * 4` bytes.
    if unsafe { (l.read)(x, v.as_mut_ptr().cast(), n * 4) } != 0 {
        return 1;
    }
    for e in &mut v {
        *e += k;
    }
    // SAFETY: `data` is the test's `u32` counter (this function's contract).
    unsafe { *data.cast::<u32>() += 1 }; // runs
    // SAFETY: the double's `write`, from a buffer of `n * 4` bytes.
    unsafe { (l.write)(x, v.as_ptr().cast(), n * 4) }
}

#[test]
fn copies_memsets_and_stand_ins_move_data() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let c = ctx();
        let ptx = concat!(include_str!("../../../tests/fixtures/kernels.ptx"), "\0");
        let mut m = null_mut();
        assert_eq!(
            cuModuleLoadData(&raw mut m, ptx.as_ptr().cast()),
            CUDA_SUCCESS
        );
        let mut f = null_mut();
        assert_eq!(
            cuModuleGetFunction(&raw mut f, m, c"add_u32".as_ptr()),
            CUDA_SUCCESS
        );
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let host: Vec<u32> = (0..16).collect();
        let _ = cuMemcpyHtoDAsync_v2(d, host.as_ptr().cast(), 64, s);
        let mut runs = 0u32;
        let launch = || {
            let (mut x, mut k, mut n) = (d, 100u32, 16u32);
            let mut args: [*mut c_void; 3] = [
                (&raw mut x).cast(),
                (&raw mut k).cast(),
                (&raw mut n).cast(),
            ];
            cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, s, args.as_mut_ptr(), null_mut())
        };
        // Without a stand-in the kernel does nothing, and is counted (other tests launch
        // it too: the count grows by one).
        let without = || {
            check::report()
                .lines()
                .find_map(|l| l.strip_prefix("no-stand-in add_u32 "))
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0)
        };
        let before = without();
        assert_eq!(launch(), CUDA_SUCCESS);
        assert_eq!(without(), before + 1);
        let data = (&raw mut runs).cast();
        assert_eq!(
            custackCheckdriverSetStandIn(c"add_u32".as_ptr(), Some(add_u32_on_cpu), data, None),
            0
        );
        assert_eq!(launch(), CUDA_SUCCESS);
        assert_eq!(runs, 1);
        let mut back = vec![0u32; 16];
        let _ = cuMemcpyDtoHAsync_v2(back.as_mut_ptr().cast(), d, 64, s);
        let _ = cuStreamSynchronize(s);
        assert_eq!(back, (100..116).collect::<Vec<u32>>());
        // A memset, a device-to-device copy, a synchronous copy back.
        let mut e = 0;
        let _ = cuMemAlloc_v2(&raw mut e, 64);
        let _ = cuMemsetD32_v2(d + 8, 7, 2);
        let _ = cuMemcpyDtoD_v2(e, d, 64);
        let _ = cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), e, 64);
        assert_eq!(&back[..4], &[100, 101, 7, 7]);
        // Running past the end of an allocation is a violation, and moves nothing.
        assert_eq!(
            violations_of(|| {
                let _ = cuMemcpyHtoD_v2(e + 32, host.as_ptr().cast(), 64);
            }),
            1
        );
        // Removed: the kernel does nothing again.
        assert_eq!(
            custackCheckdriverSetStandIn(c"add_u32".as_ptr(), None, null_mut(), None),
            0
        );
        assert_eq!(launch(), CUDA_SUCCESS);
        assert_eq!(runs, 1);
        let _ = cuMemFree_v2(e);
        let _ = cuMemFree_v2(d);
        let _ = cuStreamDestroy_v2(s);
        let _ = cuModuleUnload(m);
        let _ = cuCtxDestroy_v2(c);
    }
}

#[test]
fn copies_2d_and_peer_copies_are_checked() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        // A CUDA_MEMCPY2D as 16 words: host rows (pitch `row`) into device rows (`pitch`).
        let copy2d = |row: usize, dev: u64, pitch: usize, rows: usize| {
            let mut c = [0u64; 16];
            c[2] = 1; // srcMemoryType: host
            c[3] = 0; // srcHost: written by `with_host` below, as a pointer
            c[6] = row as u64;
            c[9] = 2; // dstMemoryType: device
            c[11] = dev;
            c[13] = pitch as u64;
            c[14] = row as u64; // WidthInBytes
            c[15] = rows as u64; // Height
            c
        };
        // The host pointer is stored as a pointer, in place, so that it keeps its
        // provenance (an integer copy of it would not, and Miri would rightly refuse it).
        let with_host = |mut c: [u64; 16], host: *mut u8| {
            c.as_mut_ptr().add(3).cast::<*mut u8>().write(host);
            let _ = cuMemcpy2D_v2(c.as_ptr().cast());
        };
        let a = ctx();
        let mut host = vec![0u8; 64 * 8];
        let (mut d, mut pitch) = (0, 0);
        let _ = cuMemAllocPitch_v2(&raw mut d, &raw mut pitch, 64, 8, 4);
        assert_eq!(
            violations_of(|| {
                with_host(copy2d(64, d, pitch, 8), host.as_mut_ptr());
            }),
            0,
            "8 rows into an 8-row pitched allocation"
        );
        assert_eq!(
            violations_of(|| {
                with_host(copy2d(32, d, pitch, 16), host.as_mut_ptr());
            }),
            1,
            "16 rows into 8"
        );
        let _ = cuMemFree_v2(d);
        assert_eq!(
            violations_of(|| {
                with_host(copy2d(64, d, pitch, 8), host.as_mut_ptr());
            }),
            1,
            "into freed memory"
        );
        // Peer copies name each side's context; peer access between two devices (the double's
        // second one, in its own tests only) is enabled once, disabled once.
        let mut da = 0;
        let _ = cuMemAlloc_v2(&raw mut da, 64);
        crate::api::DEVICES.store(2, Relaxed);
        let mut b = null_mut();
        assert_eq!(cuCtxCreate_v2(&raw mut b, 0, 1), CUDA_SUCCESS);
        let mut db = 0;
        let _ = cuMemAlloc_v2(&raw mut db, 64);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p); // a is current
        assert_eq!(
            violations_of(|| {
                let _ = cuMemcpyPeer(da, a, db, b, 64);
                assert_eq!(cuCtxEnablePeerAccess(b, 0), CUDA_SUCCESS);
                assert_eq!(
                    cuCtxEnablePeerAccess(b, 0),
                    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
                );
                assert_eq!(cuCtxDisablePeerAccess(b), CUDA_SUCCESS);
            }),
            0,
            "a peer copy, access enabled and disabled"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuMemcpyPeer(da, b, db, b, 64); // da is a's
                let _ = cuMemcpyPeer(da, a, db, b, 128); // past the end of both
                let _ = cuCtxDisablePeerAccess(b); // not enabled
            }),
            5,
            "wrong context, too long (each side's span, and the bytes the copy would move past \
             the end), not enabled"
        );
        let _ = cuCtxPushCurrent_v2(b);
        let _ = cuMemFree_v2(db);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(b);
        crate::api::DEVICES.store(1, Relaxed);
        let _ = cuMemFree_v2(da);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}
