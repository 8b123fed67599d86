//! The double's own tests. Hangs (`NULLDRIVER_HANG_AT`): hung work never completes and a blocking
//! wait on it hangs; a capture does not hang, its graph's launch does.

use super::*;

static HOST_FN_RAN: AtomicBool = AtomicBool::new(false);

unsafe extern "C" fn host_fn(_: *mut c_void) {
    HOST_FN_RAN.store(true, Relaxed);
}

// `NULLDRIVER_HANG_AT`: the hung enqueue and everything after it in stream order never
// complete; queries say so forever, events recorded after it never fire, streams and
// contexts made to wait for it hang from then on, and its memory must not be freed. (The
// blocking waits end the process: `tests/hangs.rs` runs them in a child.)
#[test]
fn hung_work_never_completes_and_what_waits_for_it_hangs() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let (mut one, mut two) = (null_mut(), null_mut());
        let _ = cuStreamCreate(&raw mut one, 0);
        let _ = cuStreamCreate(&raw mut two, 0);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let (mut before, mut after, mut whole) = (null_mut(), null_mut(), null_mut());
        let _ = cuEventCreate(&raw mut before, 0);
        let _ = cuEventCreate(&raw mut after, 0);
        let _ = cuEventCreate(&raw mut whole, 0);
        let _ = cuMemsetD8Async(d, 1, 64, one);
        let _ = cuEventRecord(before, one);
        check::hang_next();
        let _ = cuMemsetD8Async(d, 2, 64, one); // never completes
        // A query on hung work answers NOT_READY, however often it is asked.
        for _ in 0..3 {
            assert_eq!(cuStreamQuery(one), CUDA_ERROR_NOT_READY);
        }
        assert!(check::stream_hung(one as usize) && check::context_hung());
        // The work before it completes; nothing on another stream waits for it.
        assert_eq!(cuEventQuery(before), CUDA_SUCCESS);
        assert_eq!(cuStreamQuery(two), CUDA_SUCCESS);
        // Hung work never runs: a host function after it neither.
        HOST_FN_RAN.store(false, Relaxed);
        let _ = cuLaunchHostFunc(one, Some(host_fn), null_mut());
        assert!(
            !HOST_FN_RAN.load(Relaxed),
            "a host function after hung work ran"
        );
        // An event recorded after it never completes (on its stream, or context-wide).
        let _ = cuEventRecord(after, one);
        assert_eq!(cuEventQuery(after), CUDA_ERROR_NOT_READY);
        assert_eq!(cuEventQuery(after), CUDA_ERROR_NOT_READY);
        assert_eq!(cuCtxRecordEvent(a, whole), CUDA_SUCCESS);
        assert_eq!(cuEventQuery(whole), CUDA_ERROR_NOT_READY);
        // Recorded again where nothing hangs, an event completes again.
        let _ = cuEventRecord(whole, two);
        assert_eq!(cuEventQuery(whole), CUDA_SUCCESS);
        // A stream made to wait for it hangs from then on; waiting for earlier work does not.
        let _ = cuStreamWaitEvent(two, before, 0);
        assert_eq!(cuStreamQuery(two), CUDA_SUCCESS);
        let _ = cuStreamWaitEvent(two, after, 0);
        assert_eq!(cuStreamQuery(two), CUDA_ERROR_NOT_READY);
        // Freeing memory that hung work uses is a violation (it never stops using it).
        assert_eq!(
            violations_of(|| {
                let _ = cuMemFree_v2(d);
            }),
            1,
            "a free under hung work"
        );
        // A context made to wait for it: every stream of it hangs, now and later, but
        // a non-blocking stream does not hold back a synchronous copy.
        let b = ctx(); // pushed over a
        let mut nb = null_mut();
        let _ = cuStreamCreate(&raw mut nb, 1); // CU_STREAM_NON_BLOCKING
        assert!(!check::context_hung() && !check::synchronous_copy_hung());
        assert_eq!(cuCtxWaitEvent(b, after), CUDA_SUCCESS);
        assert_eq!(cuStreamQuery(nb), CUDA_ERROR_NOT_READY);
        let mut later = null_mut();
        let _ = cuStreamCreate(&raw mut later, 0);
        assert_eq!(cuStreamQuery(later), CUDA_ERROR_NOT_READY);
        assert!(check::context_hung() && check::synchronous_copy_hung());
        let mut p = null_mut();
        let _ = cuStreamDestroy_v2(later);
        let _ = cuStreamDestroy_v2(nb);
        let _ = cuCtxDestroy_v2(b);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        for e in [before, after, whole] {
            let _ = cuEventDestroy_v2(e);
        }
        let _ = cuStreamDestroy_v2(one);
        let _ = cuStreamDestroy_v2(two);
        let _ = cuCtxDestroy_v2(a);
    }
}

// A capture's operations are not enqueued work: the hang goes to the next real enqueue.
#[test]
fn a_capture_does_not_hang_but_its_graph_launch_does() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let mut st = null_mut();
        let _ = cuStreamCreate(&raw mut st, 0);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        check::hang_next();
        let _ = cuStreamBeginCapture_v2(st, 0);
        let _ = cuMemsetD8Async(d, 1, 64, st);
        let mut g = null_mut();
        let _ = cuStreamEndCapture(st, &raw mut g);
        assert_eq!(cuStreamQuery(st), CUDA_SUCCESS, "a captured memset hung");
        let mut exec = null_mut();
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, g, 0);
        let _ = cuGraphLaunch(exec, st);
        assert_eq!(cuStreamQuery(st), CUDA_ERROR_NOT_READY);
        let _ = cuGraphExecDestroy(exec);
        let _ = cuGraphDestroy(g);
        let _ = cuStreamDestroy_v2(st);
        // Left behind on purpose (hung work uses it): no free.
        let _ = cuCtxDestroy_v2(a);
    }
}
