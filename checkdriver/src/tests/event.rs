//! The double's own tests. Events: waited for from another context.

use super::*;

// The driver's event waits accept an event of another context (the CUDA
// Programming Guide's multi-device stream and event behaviour; `cuStreamWaitEvent`'s
// documentation); every other use of the event still needs its own context current.
#[test]
fn events_are_waited_for_from_another_context() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let mut sa = null_mut();
        let _ = cuStreamCreate(&raw mut sa, 0);
        let mut e = null_mut();
        let _ = cuEventCreate(&raw mut e, 0);
        let _ = cuEventRecord(e, sa);
        let b = ctx(); // pushed over a
        let mut sb = null_mut();
        let _ = cuStreamCreate(&raw mut sb, 0);
        assert_eq!(
            violations_of(|| {
                let _ = cuStreamWaitEvent(sb, e, 0);
                let _ = cuEventQuery(e);
                let _ = cuEventSynchronize(e);
            }),
            0,
            "waits on an event of another context"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuEventRecord(e, sb);
            }),
            1,
            "recording an event of another context (on a stream of this one)"
        );
        let mut p = null_mut();
        let _ = cuStreamDestroy_v2(sb);
        let _ = cuCtxPopCurrent_v2(&raw mut p); // a is current again
        let _ = cuEventDestroy_v2(e);
        let _ = cuStreamDestroy_v2(sa);
        let _ = cuCtxDestroy_v2(b);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}
