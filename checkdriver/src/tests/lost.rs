//! The double's own tests. A lost device (`NULLDRIVER_LOST_AT`): from call k on every call but
//! the context stack's and the destroys answers `CUDA_ERROR_DEVICE_UNAVAILABLE`, the work
//! pending at the loss never completes, and a release of what it uses is a violation however
//! the release is answered, while one of memory no work uses is not.

use super::*;

static HOST_FN_RAN: AtomicBool = AtomicBool::new(false);

unsafe extern "C" fn host_fn(_: *mut c_void) {
    HOST_FN_RAN.store(true, Relaxed);
}

/// Finds the device again when dropped, also on a failed assertion's unwind: the tests that
/// run after one see a device that answers.
struct FoundAgain;

impl Drop for FoundAgain {
    fn drop(&mut self) {
        check::lose_at(0);
        mode::CHECK.store(false, Relaxed);
    }
}

#[test]
fn a_lost_device_answers_unavailable_for_ever_and_its_pending_work_never_ends() {
    const UNAVAILABLE: CUresult = 46;
    let _serial = serial();
    let _found = FoundAgain;
    mode::CHECK.store(true, Relaxed);
    check::lose_at(u64::MAX); // counting on, nothing lost yet
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made.
    unsafe {
        let a = ctx();
        let mut s = null_mut();
        assert_eq!(cuStreamCreate(&raw mut s, 0), CUDA_SUCCESS);
        let (mut d, mut idle) = (0, 0);
        assert_eq!(cuMemAlloc_v2(&raw mut d, 256), CUDA_SUCCESS);
        assert_eq!(cuMemAlloc_v2(&raw mut idle, 256), CUDA_SUCCESS);
        let mut h = null_mut();
        assert_eq!(cuMemHostAlloc(&raw mut h, 256, 0), CUDA_SUCCESS);
        assert_eq!(cuMemsetD8Async(d, 1, 256, s), CUDA_SUCCESS);
        assert_eq!(cuMemcpyHtoDAsync_v2(d, h, 256, s), CUDA_SUCCESS);
        // Lost from the next call on.
        check::lose_at(check::calls() + 1);
        // Every wait and query, every new piece of work, answers the device unavailable, for
        // ever: nothing says the work is over.
        for _ in 0..3 {
            assert_eq!(cuStreamQuery(s), UNAVAILABLE);
            assert_eq!(cuStreamSynchronize(s), UNAVAILABLE);
            assert_eq!(cuCtxSynchronize(), UNAVAILABLE);
        }
        let mut more = 0;
        assert_eq!(cuMemAlloc_v2(&raw mut more, 64), UNAVAILABLE);
        HOST_FN_RAN.store(false, Relaxed);
        assert_eq!(cuLaunchHostFunc(s, Some(host_fn), null_mut()), UNAVAILABLE);
        assert!(
            !HOST_FN_RAN.load(Relaxed),
            "a lost device ran a host function"
        );
        // The context stack still answers (the driver's host-side state).
        let mut popped = null_mut();
        assert_eq!(cuCtxPopCurrent_v2(&raw mut popped), CUDA_SUCCESS);
        assert_eq!(popped, a);
        assert_eq!(cuCtxPushCurrent_v2(a), CUDA_SUCCESS);
        // Releasing what the pending work uses is a violation, though the free is answered
        // with the error: the device's work may still touch it.
        let freed = violations_of(|| assert_eq!(cuMemFree_v2(d), UNAVAILABLE));
        assert_eq!(freed, 1, "a free under a lost device's pending work");
        let freed_host = violations_of(|| assert_eq!(cuMemFreeHost(h), UNAVAILABLE));
        assert_eq!(freed_host, 1, "page-locked memory a pending copy reads");
        let last = mode::violations().last().cloned().unwrap_or_default();
        assert!(last.contains("the device is lost"), "{last}");
        // Memory no work uses: its failed free releases nothing and is no violation.
        assert_eq!(
            violations_of(|| assert_eq!(cuMemFree_v2(idle), UNAVAILABLE)),
            0
        );
        // The context's destruction is still honoured, as after a sticky fault.
        assert_eq!(cuCtxDestroy_v2(a), CUDA_SUCCESS);
        // The failed free kept the page-locked memory, as the real driver keeps it: the test
        // gives it back to the C heap itself, so that Miri's leak check (scripts/miri.sh runs
        // the double's tests) finds nothing left behind.
        c_free(h);
    }
}

unsafe extern "C" {
    /// The C heap's `free`, which the double's `cuMemHostAlloc` memory came from
    /// (`posix_memalign`).
    #[link_name = "free"]
    fn c_free(p: *mut core::ffi::c_void);
}

/// The double's sticky list is custack's (`ErrorKind::is_sticky`, pinned by custack's
/// `sticky_set` test), and the lost device's code is not on it: the lost schedule never poisons
/// the process, and the sticky schedule stays the one that does.
#[test]
fn the_lost_device_s_code_is_not_sticky_and_the_sticky_list_is_custack_s() {
    let sticky: Vec<i32> = (0..=1000).filter(|&c| check::is_sticky(c)).collect();
    assert_eq!(
        sticky,
        [
            214, 226, 700, 702, 710, 714, 715, 716, 717, 718, 719, 721, 810, 911
        ]
    );
    assert!(!check::is_sticky(46));
}
