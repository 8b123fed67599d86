//! The double's own tests. Green contexts: partitions, contexts and streams tracked.

use super::*;

#[test]
fn green_contexts_are_tracked() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let new_green = |sms: &DevResource| {
            let mut one = *sms;
            let mut desc = null_mut();
            assert_eq!(
                cuDevResourceGenerateDesc(&raw mut desc, &raw mut one, 1),
                CUDA_SUCCESS
            );
            let mut green = null_mut();
            let r = cuGreenCtxCreate(&raw mut green, desc, 0, CU_GREEN_CTX_DEFAULT_STREAM);
            assert_eq!(r, CUDA_SUCCESS);
            let mut c = null_mut();
            let _ = cuCtxFromGreenCtx(&raw mut c, green);
            (green, c)
        };
        // The SMs split in two groups of 16, the rest remaining.
        let mut all = DevResource::sms(0);
        let _ = cuDeviceGetDevResource(0, &raw mut all, CU_DEV_RESOURCE_TYPE_SM);
        let mut groups = [DevResource::sms(0); 2];
        let (mut n, mut rest) = (2, DevResource::sms(0));
        let _ = cuDevSmResourceSplitByCount(
            groups.as_mut_ptr(),
            &raw mut n,
            &raw const all,
            &raw mut rest,
            0,
            16,
        );
        assert_eq!((n, groups[0].sm[0], rest.sm[0]), (2, 16, SM_COUNT - 32));
        // A green context's `CUcontext` has its partition's SMs; any other context, the device's.
        {
            let (g, c) = new_green(&groups[0]);
            let mut got = DevResource::sms(0);
            assert_eq!(
                cuCtxGetDevResource(c, &raw mut got, CU_DEV_RESOURCE_TYPE_SM),
                CUDA_SUCCESS
            );
            assert_eq!(got.sm[0], 16);
            // Its execution affinity is refused, as driver 580 refuses it.
            let mut p = null_mut();
            let mut affinity = [0; 2];
            let _ = cuCtxPushCurrent_v2(c);
            assert_eq!(
                cuCtxGetExecAffinity(&raw mut affinity, 0),
                CUDA_ERROR_INVALID_CONTEXT
            );
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let plain = ctx();
            assert_eq!(cuCtxGetExecAffinity(&raw mut affinity, 0), CUDA_SUCCESS);
            assert_eq!(
                cuCtxGetDevResource(plain, &raw mut got, CU_DEV_RESOURCE_TYPE_SM),
                CUDA_SUCCESS
            );
            assert_eq!(got.sm[0], SM_COUNT);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(plain);
            let _ = cuGreenCtxDestroy(g);
        }
        // A correct sequence: two green contexts pushed in turn, memory and a stream of
        // each (one made with cuGreenCtxStreamCreate, no context current), all released.
        let mut p = null_mut();
        assert_eq!(
            violations_of(|| {
                let (ga, a) = new_green(&groups[0]);
                let (gb, b) = new_green(&groups[1]);
                let mut sb = null_mut();
                let r = cuGreenCtxStreamCreate(&raw mut sb, gb, CU_STREAM_NON_BLOCKING, 0);
                assert_eq!(r, CUDA_SUCCESS);
                let _ = cuCtxPushCurrent_v2(a);
                let mut da = 0;
                let _ = cuMemAlloc_v2(&raw mut da, 64);
                let _ = cuCtxPopCurrent_v2(&raw mut p);
                let _ = cuCtxPushCurrent_v2(b);
                let _ = cuMemsetD8Async(0x10, 0, 0, sb);
                let _ = cuStreamSynchronize(sb);
                let _ = cuStreamDestroy_v2(sb);
                let _ = cuCtxPopCurrent_v2(&raw mut p);
                let _ = cuCtxPushCurrent_v2(a);
                let _ = cuMemFree_v2(da);
                let _ = cuCtxPopCurrent_v2(&raw mut p);
                let _ = cuGreenCtxDestroy(ga);
                let _ = cuGreenCtxDestroy(gb);
            }),
            0
        );
        // A green context's stream used while another context is current.
        let (ga, a) = new_green(&groups[0]);
        let other = ctx();
        let mut sa = null_mut();
        let _ = cuGreenCtxStreamCreate(&raw mut sa, ga, CU_STREAM_NON_BLOCKING, 0);
        assert_eq!(
            violations_of(|| {
                let _ = cuStreamSynchronize(sa);
            }),
            1,
            "green stream in another context"
        );
        let _ = cuCtxPopCurrent_v2(&raw mut p); // other
        let _ = cuCtxDestroy_v2(other);
        // The same stream while the device's primary context is current is no violation:
        // the green context shares its memory and modules, and the driver reports the
        // primary context as the stream's (cuStreamGetCtx_v2).
        let mut primary = null_mut();
        let _ = cuDevicePrimaryCtxRetain(&raw mut primary, 0);
        let _ = cuCtxPushCurrent_v2(primary);
        assert_eq!(
            violations_of(|| {
                let _ = cuStreamSynchronize(sa);
            }),
            0,
            "green stream under the primary context"
        );
        let _ = cuCtxPopCurrent_v2(&raw mut p); // primary
        let _ = cuDevicePrimaryCtxRelease_v2(0);
        // Destroyed while on a stack (below another context: on top, the driver pops it as
        // it pops a destroyed context); its CUcontext destroyed with cuCtxDestroy; live
        // handles left for its destruction (orphans).
        let _ = cuCtxPushCurrent_v2(a);
        assert_eq!(
            violations_of(|| {
                let _ = cuCtxDestroy_v2(a);
            }),
            1,
            "cuCtxDestroy of green"
        );
        let mut da = 0;
        let _ = cuMemAlloc_v2(&raw mut da, 64);
        let above = ctx();
        let mut orphans = 0;
        assert_eq!(
            violations_of(|| {
                orphans = orphans_of(|| {
                    let _ = cuGreenCtxDestroy(ga);
                });
            }),
            1,
            "green context destroyed while pushed"
        );
        assert_eq!(orphans, 2, "its stream and memory");
        let _ = cuCtxPopCurrent_v2(&raw mut p); // above
        let _ = cuCtxPopCurrent_v2(&raw mut p); // a
        let _ = cuCtxDestroy_v2(above);
        // Destroyed on top of the calling thread's stack: popped, as cuCtxDestroy does.
        let (gc, c) = new_green(&groups[0]);
        let _ = cuCtxPushCurrent_v2(c);
        assert_eq!(
            violations_of(|| {
                let _ = cuGreenCtxDestroy(gc);
            }),
            0,
            "destroyed on top"
        );
        assert_eq!(with_stack(|s| s.top()), null_mut());
        // Used, pushed and destroyed after destruction.
        assert_eq!(
            violations_of(|| {
                let _ = cuGreenCtxDestroy(ga);
            }),
            1,
            "double destroy"
        );
        let mut c = null_mut();
        assert_eq!(
            violations_of(|| {
                let _ = cuCtxFromGreenCtx(&raw mut c, ga);
            }),
            1,
            "use after"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuCtxPushCurrent_v2(a);
            }),
            1,
            "push after"
        );
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        // One left alive is a leak.
        let (gb, _) = new_green(&groups[1]);
        assert!(check::report().contains(&format!("leak: GreenContext {:#x}", gb as usize)));
        let _ = cuGreenCtxDestroy(gb);
        assert!(!check::report().contains(&format!("leak: GreenContext {:#x}", gb as usize)));
    }
}
