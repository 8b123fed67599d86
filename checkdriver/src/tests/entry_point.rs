//! The double's own tests. Entry points newer than 12.2: found through `cuGetProcAddress` only from
//! their version on, and checked.

use super::*;

/// `cuGetProcAddress_v2(name, version)`: the function pointer, or the status.
fn proc(name: &CStr, version: c_int) -> Result<*mut c_void, c_int> {
    let (mut f, mut status) = (null_mut(), -1);
    // SAFETY: a NUL-terminated name and valid out-pointers.
    let r = unsafe { cuGetProcAddress_v2(name.as_ptr(), &raw mut f, version, 0, &raw mut status) };
    if r == CUDA_SUCCESS && status == 0 && !f.is_null() {
        Ok(f)
    } else {
        assert_eq!((r, f), (CUDA_ERROR_NOT_FOUND, null_mut()), "{name:?}");
        Err(status)
    }
}

#[test]
fn newer_entry_points_are_found_from_their_version_and_checked() {
    /// `cuCtxCreate_v4`'s ABI, which `cuGetProcAddress("cuCtxCreate")` answers at 12.5.
    type CtxCreateV4 = unsafe extern "C" fn(*mut Handle, *mut c_void, c_uint, CUdevice) -> CUresult;
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        // Reported as 12.2: not found; as 13.0: found when asked at their version.
        assert_eq!(proc(c"cuCtxRecordEvent", 12050), Err(1));
        // As 12.4: green contexts, but not yet their streams (CUDA 12.5).
        assert_eq!(custackCheckdriverSetDriverVersion(12040), CUDA_SUCCESS);
        assert!(proc(c"cuGreenCtxCreate", 12040).is_ok());
        assert_eq!(proc(c"cuGreenCtxStreamCreate", 12050), Err(1));
        assert_eq!(custackCheckdriverSetDriverVersion(13000), CUDA_SUCCESS);
        let mut v = 0;
        let _ = cuDriverGetVersion(&raw mut v);
        assert_eq!(v, 13000);
        // (Function addresses are compared natively only: Miri gives each cast its own.)
        let found = |name: &CStr, version, f: *mut c_void| {
            let got = proc(name, version);
            #[cfg(not(miri))]
            assert_eq!(got, Ok(f), "{name:?}");
            #[cfg(miri)]
            let _ = f;
            got.unwrap()
        };
        found(c"cuCtxRecordEvent", 12050, cuCtxRecordEvent as *mut c_void);
        assert_eq!(
            proc(c"cuCtxRecordEvent", 12040),
            Err(2),
            "asked below its version"
        );
        // A green context's stream came with CUDA 12.5, a release after green contexts.
        found(
            c"cuGreenCtxStreamCreate",
            12050,
            cuGreenCtxStreamCreate as *mut c_void,
        );
        assert_eq!(
            proc(c"cuGreenCtxStreamCreate", 12040),
            Err(2),
            "asked below its version"
        );
        found(c"cuCtxCreate", 12000, cuCtxCreate_v2 as *mut c_void);
        // At 12.5 `cuCtxCreate` is `_v4`'s ABI: called as such (Miri checks the ABI).
        let v4 = found(c"cuCtxCreate", 12050, cuCtxCreate_v4 as *mut c_void);
        let v4 = core::mem::transmute::<*mut c_void, CtxCreateV4>(v4);
        let mut c = null_mut();
        assert_eq!(v4(&raw mut c, null_mut(), 0, 0), CUDA_SUCCESS);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(c);
        assert_eq!(proc(c"cuNoSuchEntryPoint", 13000), Err(1));

        let a = ctx();
        let ptx = concat!(include_str!("../../../tests/fixtures/kernels.ptx"), "\0");
        let mut m = null_mut();
        let _ = cuModuleLoadData(&raw mut m, ptx.as_ptr().cast());
        // cuFuncGetParamInfo answers the PTX's layout, then INVALID_VALUE past the end.
        let mut f = null_mut();
        let _ = cuModuleGetFunction(&raw mut f, m, c"add_u32".as_ptr());
        let info = |f: Handle, i: usize| {
            let (mut o, mut n) = (0, 0);
            let r = cuFuncGetParamInfo(f, i, &raw mut o, &raw mut n);
            (r == CUDA_SUCCESS).then_some((o, n))
        };
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    (0..4).map(|i| info(f, i)).collect::<Vec<_>>(),
                    [Some((0, 8)), Some((8, 4)), Some((12, 4)), None]
                );
                let mut n = 0;
                assert_eq!(cuFuncGetParamCount(f, &raw mut n), CUDA_SUCCESS);
                assert_eq!(n, 3);
            }),
            0
        );
        // The module's functions: counted, enumerated and named from its PTX.
        let mut count = 0;
        let _ = cuModuleGetFunctionCount(&raw mut count, m);
        let entries = crate::ptx::parse(ptx.as_bytes()).entries.len();
        assert_eq!(count as usize, entries);
        let mut all = vec![null_mut(); entries];
        let _ = cuModuleEnumerateFunctions(all.as_mut_ptr(), count, m);
        let mut names = Vec::new();
        for g in &all {
            let mut name = core::ptr::null();
            let _ = cuFuncGetName(&raw mut name, *g);
            names.push(CStr::from_ptr(name).to_str().unwrap().to_owned());
        }
        assert!(names.iter().any(|n| n == "add_u32"), "{names:?}");
        assert_eq!(
            info(all[names.iter().position(|n| n == "add_u32").unwrap()], 1),
            Some((8, 4))
        );
        // The function of a module of another context, and of an unloaded module.
        let b = ctx();
        assert_eq!(
            violations_of(|| {
                let _ = info(f, 0);
            }),
            1,
            "param info in another context"
        );
        let mut n = 0;
        assert_eq!(
            violations_of(|| {
                let _ = cuModuleGetFunctionCount(&raw mut n, m);
            }),
            1,
            "function count in another context"
        );
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p); // b
        let _ = cuModuleUnload(m);
        assert_eq!(
            violations_of(|| {
                let _ = info(f, 0);
            }),
            1,
            "param info after unload"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuModuleGetFunctionCount(&raw mut n, m);
            }),
            1,
            "function count after unload"
        );

        // cuCtxRecordEvent covers the work of every stream of the context.
        let (mut s1, mut s2, mut ev) = (null_mut(), null_mut(), null_mut());
        let _ = cuStreamCreate(&raw mut s1, 0);
        let _ = cuStreamCreate(&raw mut s2, 0);
        let _ = cuEventCreate(&raw mut ev, 0);
        let (mut d1, mut d2) = (0, 0);
        let _ = cuMemAlloc_v2(&raw mut d1, 64);
        let _ = cuMemAlloc_v2(&raw mut d2, 64);
        let _ = cuMemsetD8Async(d1, 0, 64, s1);
        let _ = cuMemsetD8Async(d2, 0, 64, s2);
        assert_eq!(cuCtxRecordEvent(a, ev), CUDA_SUCCESS);
        let _ = cuEventSynchronize(ev);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemFree_v2(d1);
                let _ = cuMemFree_v2(d2);
            }),
            0,
            "completed by a context-wide event"
        );
        // A stream destroyed with work pending: the driver keeps it until its work is done,
        // and a context-wide event covers that work too.
        let mut gone = null_mut();
        let _ = cuStreamCreate(&raw mut gone, 0);
        let mut d4 = 0;
        let _ = cuMemAlloc_v2(&raw mut d4, 64);
        let _ = cuMemsetD8Async(d4, 0, 64, gone);
        let _ = cuStreamDestroy_v2(gone);
        assert_eq!(cuCtxRecordEvent(a, ev), CUDA_SUCCESS);
        let _ = cuEventSynchronize(ev);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemFree_v2(d4);
            }),
            0,
            "a destroyed stream's work completed by a context-wide event"
        );
        // cuCtxWaitEvent: a stream made later waits too, and completes the event's work.
        let mut d3 = 0;
        let _ = cuMemAlloc_v2(&raw mut d3, 64);
        let _ = cuMemsetD8Async(d3, 0, 64, s1);
        let _ = cuEventRecord(ev, s1);
        assert_eq!(cuCtxWaitEvent(a, ev), CUDA_SUCCESS);
        let mut s3 = null_mut();
        let _ = cuStreamCreate(&raw mut s3, 0);
        let _ = cuStreamSynchronize(s3);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemFree_v2(d3);
            }),
            0,
            "completed through a context-wide wait"
        );
        // An event of another context; a destroyed context; a capture refuses the record.
        let _ = cuCtxPushCurrent_v2(b);
        let mut other = null_mut();
        let _ = cuEventCreate(&raw mut other, 0);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        assert_eq!(
            violations_of(|| {
                let _ = cuCtxRecordEvent(a, other);
            }),
            1,
            "event of b"
        );
        let _ = cuStreamBeginCapture_v2(s2, 0);
        assert_eq!(
            cuCtxRecordEvent(a, ev),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        );
        assert_eq!(cuCtxWaitEvent(a, ev), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        let mut g = null_mut();
        let _ = cuStreamEndCapture(s2, &raw mut g);
        let _ = cuGraphDestroy(g);
        let _ = cuCtxPushCurrent_v2(b);
        let _ = cuEventDestroy_v2(other);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(b);
        assert_eq!(
            violations_of(|| {
                let _ = cuCtxRecordEvent(b, ev);
            }),
            1,
            "destroyed context"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuCtxWaitEvent(b, ev);
            }),
            1,
            "destroyed context"
        );
        for s in [s1, s2, s3] {
            let _ = cuStreamDestroy_v2(s);
        }
        let _ = cuEventDestroy_v2(ev);
        let _ = cuCtxPopCurrent_v2(&raw mut p); // a
        let _ = cuCtxDestroy_v2(a);
        assert_eq!(
            custackCheckdriverSetDriverVersion(DRIVER_VERSION),
            CUDA_SUCCESS
        );
    }
}

#[test]
fn export_tables_are_not_found_and_not_counted() {
    // NVRTC 13 asks for the driver's private tables by UUID inside `nvrtcCompileProgram`, and
    // reads a table it never got where the entry point is missing: the double has none.
    let _serial = serial();
    check::start(0, 0, 0); // counting on, nothing failed
    let id = [0x6bu8; 16];
    let mut table: *const c_void = core::ptr::dangling();
    let before = check::calls();
    // SAFETY: a valid out-pointer and a 16-byte id.
    let r = unsafe { cuGetExportTable(&raw mut table, id.as_ptr().cast()) };
    assert_eq!((r, table), (CUDA_ERROR_NOT_FOUND, core::ptr::null()));
    // A lookup, as cuGetProcAddress: not a call the fault schedules count (and fail).
    assert_eq!(check::calls(), before);
    let mut v = 0;
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { cuDriverGetVersion(&raw mut v) }, CUDA_SUCCESS);
    assert_eq!(check::calls(), before + 1, "a driver call is counted");
    mode::CHECK.store(false, Relaxed);
}

#[test]
fn a_told_failure_is_the_programs_own_and_leaves_the_schedules() {
    // `custackCheckdriverFailNext` (not sticky): the program expects that error and checks it,
    // so it is not the report's `failed`, and a schedule's failure later still comes.
    let _serial = serial();
    check::faults_off();
    let k = check::calls() + 2;
    check::start(k, 0, 0); // the schedule fails call k
    check::fail_next(1, false); // the program tells call k - 1 to fail
    let version = || {
        let mut v = 0;
        // SAFETY: a valid out-pointer.
        unsafe { cuDriverGetVersion(&raw mut v) }
    };
    assert_eq!(version(), 1, "the told failure");
    assert_eq!(
        check::failed(),
        None,
        "a told failure is not the schedule's"
    );
    assert_ne!(version(), CUDA_SUCCESS, "the schedule's");
    assert_eq!(check::failed(), Some("cuDriverGetVersion"));
    assert_eq!(version(), CUDA_SUCCESS);
    check::faults_off();
    mode::CHECK.store(false, Relaxed);
}

#[test]
fn a_told_sticky_error_neither_moves_nor_hides_a_sticky_schedule() {
    let _serial = serial();
    check::faults_off();
    let k = check::calls() + 3;
    check::start(0, k, 0); // the schedule turns sticky at call k
    check::fail_next(719, true); // the program's own sticky error from call k - 2
    // A call a sticky error fails (it answers before its body, which needs no context then).
    // SAFETY: takes nothing.
    let sync = || unsafe { cuCtxSynchronize() };
    assert_eq!(sync(), 719, "the told sticky error");
    assert_eq!(sync(), 719, "still the told one");
    assert_eq!(
        check::failed(),
        None,
        "a told failure is not the schedule's"
    );
    assert_eq!(sync(), 700, "the schedule's sticky error, at its call");
    assert!(
        check::failed().is_some(),
        "the schedule's failure is the report's"
    );
    check::faults_off();
    mode::CHECK.store(false, Relaxed);
}

#[test]
fn a_told_entry_point_fails_at_its_next_call_only() {
    // `custackCheckdriverFailCall`: the next call of that entry point fails (the program's own
    // failure, not the report's `failed`), not a call of another entry point before it, and once.
    let _serial = serial();
    check::faults_off();
    // SAFETY: takes nothing.
    let sync = || unsafe { cuCtxSynchronize() };
    let version = || {
        let mut v = 0;
        // SAFETY: a valid out-pointer.
        unsafe { cuDriverGetVersion(&raw mut v) }
    };
    // SAFETY: a NUL-terminated name.
    let told = unsafe { custackCheckdriverFailCall(c"cuDriverGetVersion".as_ptr(), 2, 0) };
    assert_eq!(told, 0);
    assert_ne!(sync(), 2, "another entry point's call is not the told one");
    assert_eq!(version(), 2, "the told entry point's next call");
    assert_eq!(version(), CUDA_SUCCESS, "told once");
    assert_eq!(
        check::failed(),
        None,
        "a told failure is not the schedule's"
    );
    // Sticky: the told call and every counted call after it, of any entry point.
    // SAFETY: as above.
    let told = unsafe { custackCheckdriverFailCall(c"cuCtxSynchronize".as_ptr(), 719, 1) };
    assert_eq!(told, 0);
    assert_eq!(version(), CUDA_SUCCESS, "before the told call");
    assert_eq!(sync(), 719, "the told call");
    assert_eq!(sync(), 719, "sticky from it on");
    // A null name is refused.
    assert_eq!(
        // SAFETY: null is allowed (the extension's contract: null or NUL-terminated).
        unsafe { custackCheckdriverFailCall(core::ptr::null(), 1, 0) },
        1
    );
    check::faults_off();
    mode::CHECK.store(false, Relaxed);
}
