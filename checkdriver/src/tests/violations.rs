//! The double's own tests. One deliberately wrong raw call sequence per violation kind, each of
//! which must be reported (one test, so the global record is read in order; every call on the
//! test's thread, so only that thread's violations are counted: once, under a loaded machine, a
//! double free of host memory counted 2, one of them not the test's).

use super::*;

#[test]
fn each_violation_kind_is_reported() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        // A correct sequence records nothing.
        assert_eq!(
            own_violations_of(|| {
                let a = ctx();
                let mut s = null_mut();
                let _ = cuStreamCreate(&raw mut s, 0);
                let mut d = 0;
                let _ = cuMemAlloc_v2(&raw mut d, 64);
                let _ = cuMemsetD8Async(d, 0, 64, s);
                let _ = cuStreamSynchronize(s);
                let _ = cuMemFree_v2(d);
                let _ = cuStreamDestroy_v2(s);
                let mut p = null_mut();
                let _ = cuCtxPopCurrent_v2(&raw mut p);
                let _ = cuCtxDestroy_v2(a);
            }),
            0
        );
        // A handle of a context that is not current.
        let _a = ctx(); // stays on the stack under b, x and y below
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let b = ctx(); // pushed on top of a
        assert_eq!(
            own_violations_of(|| {
                let _ = cuStreamSynchronize(s);
            }),
            1,
            "wrong context"
        );
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        // Destroyed twice, and used after destruction.
        let _ = cuStreamDestroy_v2(s);
        assert_eq!(
            own_violations_of(|| {
                let _ = cuStreamDestroy_v2(s);
            }),
            1,
            "double destroy"
        );
        assert_eq!(
            own_violations_of(|| {
                let _ = cuStreamQuery(s);
            }),
            1,
            "use after destroy"
        );
        // Device memory freed twice; host memory freed twice.
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemFree_v2(d);
        assert_eq!(
            own_violations_of(|| {
                let _ = cuMemFree_v2(d);
            }),
            1,
            "double free"
        );
        let mut h = null_mut();
        let _ = cuMemHostAlloc(&raw mut h, 64, 0);
        let _ = cuMemFreeHost(h);
        assert_eq!(
            own_violations_of(|| {
                let _ = cuMemFreeHost(h);
            }),
            1,
            "double free host"
        );
        // A function used after its module was unloaded.
        let mut m = null_mut();
        let ptx =
            c".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
        let _ = cuModuleLoadData(&raw mut m, ptx.as_ptr().cast());
        let mut f = null_mut();
        let _ = cuModuleGetFunction(&raw mut f, m, c"k".as_ptr());
        let _ = cuModuleUnload(m);
        assert_eq!(
            own_violations_of(|| {
                let _ = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, null_mut(), null_mut(), null_mut());
            }),
            1,
            "function of an unloaded module"
        );
        // Destroying a context that is on a stack below the top (x under y). (Destroying the
        // calling thread's top context is allowed: the driver pops it.)
        let x = ctx();
        let y = ctx();
        assert_eq!(
            own_violations_of(|| {
                let _ = cuCtxDestroy_v2(x);
            }),
            1,
            "destroy while current"
        );
        assert_eq!(
            own_violations_of(|| {
                let _ = cuCtxDestroy_v2(y);
            }),
            0,
            "destroy on top"
        );
        let _ = cuCtxPopCurrent_v2(&raw mut p); // x
        let _ = cuCtxPopCurrent_v2(&raw mut p); // a
        // Popping an empty stack.
        assert_eq!(
            own_violations_of(|| {
                let _ = cuCtxPopCurrent_v2(&raw mut p);
            }),
            1,
            "empty pop"
        );
        assert_eq!(
            own_violations_of(|| {
                let _ = cuCtxDestroy_v2(b);
            }),
            0,
            "b is floating"
        );
        // Freeing memory an enqueued copy may still use; a synchronize completes it.
        let z = ctx();
        let mut st = null_mut();
        let _ = cuStreamCreate(&raw mut st, 0);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let mut h = null_mut();
        let _ = cuMemHostAlloc(&raw mut h, 64, 0);
        let _ = cuMemcpyHtoDAsync_v2(d, h, 64, st);
        assert_eq!(
            own_violations_of(|| {
                let _ = cuMemFree_v2(d);
            }),
            1,
            "pending device memory"
        );
        assert_eq!(
            own_violations_of(|| {
                let _ = cuMemFreeHost(h);
            }),
            1,
            "pending host memory"
        );
        // The work's hold on a freed object ends with the report: another object made later
        // at the same address (host memory's allocator reuses addresses) and freed is not
        // reported for that work (it was, once: a later test's free at a reused address then
        // counted twice). The release check itself, run twice on one address under work that
        // used it, reports once.
        let (mut d3, mut h3) = (0, null_mut());
        let _ = cuMemAlloc_v2(&raw mut d3, 64);
        let _ = cuMemHostAlloc(&raw mut h3, 64, 0);
        let _ = cuMemcpyHtoDAsync_v2(d3, h3, 64, st);
        let release = || check::freeing(Kind::HostMemory, h3 as usize, None, "a release");
        assert_eq!(own_violations_of(release), 1, "freed under pending work");
        assert_eq!(
            own_violations_of(release),
            0,
            "another object at a freed object's address"
        );
        let _ = cuStreamSynchronize(st);
        let _ = cuMemFreeHost(h3);
        let _ = cuMemFree_v2(d3);
        let mut d2 = 0;
        let _ = cuMemAlloc_v2(&raw mut d2, 64);
        let mut ev = null_mut();
        let _ = cuEventCreate(&raw mut ev, 0);
        let _ = cuMemsetD8Async(d2, 0, 64, st);
        let _ = cuEventRecord(ev, st);
        let _ = cuEventSynchronize(ev);
        assert_eq!(
            own_violations_of(|| {
                let _ = cuMemFree_v2(d2);
            }),
            0,
            "completed by an event"
        );
        let _ = cuEventDestroy_v2(ev);
        let _ = cuStreamDestroy_v2(st);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(z);
        // Using a destroyed context's memory.
        let c = ctx();
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(c);
        let e = ctx();
        assert_eq!(
            own_violations_of(|| {
                let _ = cuMemsetD8_v2(d, 0, 64);
            }),
            1,
            "freed with its context"
        );
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(e);
    }
}

/// A CUDA call from code the driver called (a host function, a stream callback, a user
/// object's destructor) is a violation, once per call; the same code outside a callback, and a
/// callback that makes no call, record none.
#[test]
fn a_call_from_code_the_driver_called_is_a_violation() {
    /// Asks the driver for the current context: one call.
    unsafe extern "C" fn asks(_: *mut c_void) {
        let mut c = null_mut();
        // SAFETY: a valid out-pointer.
        let _ = unsafe { cuCtxGetCurrent(&raw mut c) };
    }
    /// The same, as a stream callback.
    unsafe extern "C" fn asks_as_callback(_: Handle, _: CUresult, data: *mut c_void) {
        // SAFETY: as `asks`.
        unsafe { asks(data) };
    }
    /// Makes no call.
    unsafe extern "C" fn quiet(_: *mut c_void) {}
    let _serial = serial();
    // The checking mode with no schedule, as `NULLDRIVER_CHECK=1` runs a clean program.
    check::start(0, 0, 0);
    // SAFETY: the double's entry points, with valid out-pointers and handles it made; the
    // callbacks take no data.
    unsafe {
        let a = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        assert_eq!(violations_of(|| asks(null_mut())), 0, "outside a callback");
        assert_eq!(
            violations_of(|| {
                let _ = cuLaunchHostFunc(s, Some(quiet), null_mut());
                let _ = cuStreamSynchronize(s);
            }),
            0,
            "a host function that makes no call"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuLaunchHostFunc(s, Some(asks), null_mut());
                let _ = cuStreamSynchronize(s);
            }),
            1,
            "a host function's call"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuStreamAddCallback(s, Some(asks_as_callback), null_mut(), 0);
                let _ = cuStreamSynchronize(s);
            }),
            1,
            "a stream callback's call"
        );
        assert_eq!(
            violations_of(|| {
                let mut o = null_mut();
                let _ = cuUserObjectCreate(&raw mut o, null_mut(), Some(asks), 1, 1);
                let _ = cuUserObjectRelease(o, 1);
            }),
            1,
            "a user object's destructor's call"
        );
        let _ = cuStreamDestroy_v2(s);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
    check::faults_off();
}

/// An event completes the work of its stream before its record, not a later use of the same
/// memory: freeing memory after a wait for an event recorded before its last use is a
/// violation (until the eleventh session the double completed every pending use of memory the
/// record had seen pending, and this free passed).
#[test]
fn an_event_completes_only_the_work_before_its_record() {
    let _serial = serial();
    check::start(0, 0, 0);
    // SAFETY: the double's entry points, with valid out-pointers and handles it made.
    unsafe {
        let a = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let mut e = null_mut();
        let _ = cuEventCreate(&raw mut e, 0);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemsetD8Async(d, 0, 64, s);
                let _ = cuEventRecord(e, s);
                let _ = cuEventSynchronize(e);
            }),
            0,
            "a wait for the record after the use"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuMemsetD8Async(d, 0, 64, s);
                let _ = cuEventRecord(e, s);
                let _ = cuMemsetD8Async(d, 1, 64, s);
                let _ = cuEventSynchronize(e);
                let _ = cuMemFree_v2(d);
            }),
            1,
            "freed after a wait for a record before its last use"
        );
        let _ = cuStreamSynchronize(s);
        let _ = cuEventDestroy_v2(e);
        let _ = cuStreamDestroy_v2(s);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
    check::faults_off();
}
