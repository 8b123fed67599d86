//! The double's own tests. Modules and launches: a launch's arguments, views and globals checked
//! against its module, and a module unloaded under its kernels or globals, or left behind with
//! them.

use super::*;

#[test]
fn launch_arguments_views_and_globals_are_checked() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
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
        let mut missing = null_mut();
        assert_eq!(
            cuModuleGetFunction(&raw mut missing, m, c"no_such_kernel".as_ptr()),
            CUDA_ERROR_NOT_FOUND
        );
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        // add_u32(unsigned* x, unsigned k, unsigned n): the double reads 8 + 4 + 4 bytes.
        let launch = |x: u64| {
            let (mut x, mut k, mut n) = (x, 1u32, 16u32);
            let mut args: [*mut c_void; 3] = [
                (&raw mut x).cast(),
                (&raw mut k).cast(),
                (&raw mut n).cast(),
            ];
            let _ = cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, s, args.as_mut_ptr(), null_mut());
        };
        assert_eq!(
            violations_of(|| {
                launch(d);
                launch(d + 16); // a view at an offset
                let _ = cuStreamSynchronize(s);
                let _ = cuMemsetD8_v2(d + 8, 0, 8);
            }),
            0,
            "correct launches and views"
        );
        assert_eq!(
            violations_of(|| {
                launch(d + 16);
                let _ = cuMemFree_v2(d);
            }),
            1,
            "memory freed while a launch may use it (through a view)"
        );
        let _ = cuStreamSynchronize(s);
        assert_eq!(
            violations_of(|| launch(d + 8)),
            1,
            "argument into freed memory"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuMemsetD8_v2(d + 32, 0, 8);
            }),
            1,
            "a view of freed memory"
        );
        let mut d2 = 0;
        let _ = cuMemAlloc_v2(&raw mut d2, 64);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemFree_v2(d2 + 8);
            }),
            1,
            "free of an address inside an allocation"
        );
        let _ = cuMemFree_v2(d2);
        let b = ctx();
        let mut other = 0;
        let _ = cuMemAlloc_v2(&raw mut other, 64);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p); // a is current again
        assert_eq!(
            violations_of(|| launch(other + 4)),
            1,
            "argument into memory of another context"
        );
        // Module variables: found with their PTX size, and they die with their module.
        let (mut g, mut bytes) = (0, 0);
        assert_eq!(
            cuModuleGetGlobal_v2(&raw mut g, &raw mut bytes, m, c"counters".as_ptr()),
            CUDA_SUCCESS
        );
        assert_eq!(bytes, 16);
        assert_eq!(
            cuModuleGetGlobal_v2(&raw mut g, &raw mut bytes, m, c"no_such_global".as_ptr()),
            CUDA_ERROR_NOT_FOUND
        );
        let (mut g, mut bytes) = (0, 0);
        let _ = cuModuleGetGlobal_v2(&raw mut g, &raw mut bytes, m, c"counters".as_ptr());
        let _ = cuStreamSynchronize(s); // its kernels are done: it may be unloaded
        let _ = cuModuleUnload(m);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemsetD32_v2(g + 4, 0, 1);
            }),
            1,
            "a variable of an unloaded module"
        );
        let _ = cuStreamDestroy_v2(s);
        let _ = cuCtxPushCurrent_v2(b);
        let _ = cuMemFree_v2(other);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(b);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

/// A module (or library) unloaded while a launch of its kernel or an operation on its
/// global may still run is a violation; once the work is over it is not.
#[test]
fn a_module_unloaded_under_its_kernels_or_globals_is_a_violation() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let ptx = concat!(include_str!("../../../tests/fixtures/kernels.ptx"), "\0");
        let load = || {
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
            (m, f)
        };
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let launch = |f: Handle| {
            let (mut x, mut k, mut n) = (d, 1u32, 16u32);
            let mut args: [*mut c_void; 3] = [
                (&raw mut x).cast(),
                (&raw mut k).cast(),
                (&raw mut n).cast(),
            ];
            let _ = cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, s, args.as_mut_ptr(), null_mut());
        };
        let (m, f) = load();
        launch(f);
        assert_eq!(
            violations_of(|| {
                let _ = cuModuleUnload(m);
            }),
            1,
            "unloaded while its kernel may run"
        );
        let _ = cuStreamSynchronize(s);
        let (m, f) = load();
        launch(f);
        let _ = cuStreamSynchronize(s);
        assert_eq!(
            violations_of(|| {
                let _ = cuModuleUnload(m);
            }),
            0,
            "unloaded once its kernel is done"
        );
        let (m, _) = load();
        let (mut g, mut bytes) = (0, 0);
        let _ = cuModuleGetGlobal_v2(&raw mut g, &raw mut bytes, m, c"counters".as_ptr());
        let _ = cuMemsetD32Async(g, 0, 4, s);
        assert_eq!(
            violations_of(|| {
                let _ = cuModuleUnload(m);
            }),
            1,
            "unloaded while a memset of its global may run"
        );
        let _ = cuStreamSynchronize(s);
        let _ = cuMemFree_v2(d);
        let _ = cuStreamDestroy_v2(s);
        let _ = cuCtxDestroy_v2(a);
    }
}

/// A module left behind (never unloaded under work that may run it) leaves its functions
/// behind with it: at exit they are reported as left on purpose, not as leaks.
#[test]
fn a_module_left_behind_leaves_its_functions_with_it() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let _c = ctx();
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
        let leak = format!("leak: Function {:#x}", f as usize);
        assert!(check::report().contains(&leak));
        assert_eq!(
            custackCheckdriverLeftBehind(c"Module".as_ptr(), m as u64, 0),
            0
        );
        let report = check::report();
        assert!(!report.contains(&leak), "{report}");
        let left = format!("left-behind: Function {:#x}", f as usize);
        assert!(report.contains(&left), "{report}");
    }
}
