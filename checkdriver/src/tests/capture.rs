//! The double's own tests. Stream capture: into a graph being built, joined by an event wait, a
//! stream in a capture neither synchronized nor queried, a fork not joined back, several forks
//! through one event, a captured host function.

use super::*;

#[test]
fn captures_into_a_graph_and_nodes_added_to_a_capture_join_that_graph_s_work() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let (mut s, mut t) = (null_mut(), null_mut());
        let _ = cuStreamCreate(&raw mut s, 0);
        let _ = cuStreamCreate(&raw mut t, 0);
        let (mut d, mut e) = (0, 0);
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemAlloc_v2(&raw mut e, 64);
        let none = core::ptr::null();
        let info = |stream: Handle| {
            let (mut status, mut id, mut graph, mut deps, mut n) =
                (0, 0u64, null_mut(), core::ptr::null(), 7usize);
            let r = cuStreamGetCaptureInfo_v2(
                stream,
                &raw mut status,
                &raw mut id,
                &raw mut graph,
                &raw mut deps,
                &raw mut n,
            );
            assert_eq!(r, CUDA_SUCCESS);
            assert_eq!(n, 0);
            (status, graph)
        };
        // A capture into a graph being built: its memset is the graph's work.
        let (mut graph, mut exec) = (null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut graph, 0);
        assert_eq!(
            cuStreamBeginCaptureToGraph(t, graph, none, core::ptr::null(), 0, 1),
            CUDA_SUCCESS
        );
        assert_eq!(info(t), (1, graph));
        assert_eq!(cuMemsetD32Async(d, 1, 16, t), CUDA_SUCCESS);
        let mut ended = null_mut();
        assert_eq!(cuStreamEndCapture(t, &raw mut ended), CUDA_SUCCESS);
        assert_eq!(ended, graph, "a capture into a graph ends in that graph");
        assert_eq!(info(t).0, 0);
        let mut join = null_mut();
        assert_eq!(
            cuGraphAddEmptyNode(&raw mut join, graph, none, 0),
            CUDA_SUCCESS
        );
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
        let _ = cuMemFree_v2(d);
        assert!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }) > 0,
            "the captured memset's buffer freed"
        );
        let _ = cuGraphExecDestroy(exec);
        // A conditional node added in the middle of a capture, on the graph the capture
        // info names; its body's memset is the capture's work, and so the graph's.
        assert_eq!(cuStreamBeginCapture_v2(s, 1), CUDA_SUCCESS);
        let (status, captured) = info(s);
        assert_eq!(status, 1);
        assert!(!captured.is_null());
        let mut cond = 0u64;
        assert_eq!(
            cuGraphConditionalHandleCreate(&raw mut cond, captured, a, 1, 1),
            CUDA_SUCCESS
        );
        let mut p = [0u64; 32];
        p[0] = 13;
        p[2] = cond;
        p[3] = 1 | (1 << 32);
        p[5] = a.addr() as u64;
        let mut node = null_mut();
        assert_eq!(
            cuGraphAddNode(&raw mut node, captured, none, 0, p.as_mut_ptr().cast()),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuStreamUpdateCaptureDependencies(s, &raw mut node, 1, 1),
            CUDA_SUCCESS
        );
        let body = p.as_ptr().add(4).cast::<*const Handle>().read().read();
        let mut memset = [0u64; 5];
        memset[0] = e;
        memset[2] = 4u64 << 32;
        memset[3] = 16;
        memset[4] = 1;
        let mut set = null_mut();
        assert_eq!(
            cuGraphAddMemsetNode(&raw mut set, body, none, 0, memset.as_ptr().cast(), a),
            CUDA_SUCCESS
        );
        let mut second = null_mut();
        assert_eq!(cuStreamEndCapture(s, &raw mut second), CUDA_SUCCESS);
        assert_eq!(
            second, captured,
            "the capture ends in the graph its info named"
        );
        assert_eq!(
            cuStreamUpdateCaptureDependencies(s, &raw mut node, 1, 1),
            CUDA_ERROR_INVALID_VALUE
        );
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, second, 0);
        let _ = cuMemFree_v2(e);
        assert!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }) > 0,
            "the body's buffer freed"
        );
        let _ = cuGraphExecDestroy(exec);
        let _ = cuGraphDestroy(second);
        let _ = cuGraphDestroy(graph);
        let _ = cuStreamDestroy_v2(t);
        let _ = cuStreamDestroy_v2(s);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn a_stream_joins_a_capture_by_waiting_for_its_event() {
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
        let (mut fork, mut join) = (null_mut(), null_mut());
        let _ = cuEventCreate(&raw mut fork, 0);
        let _ = cuEventCreate(&raw mut join, 0);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        // Fork: `two` waits for an event recorded in `one`'s capture, and joins it; its
        // memset is a node of the graph, not work that runs now. Join back, end.
        let (mut graph, mut exec) = (null_mut(), null_mut());
        let _ = cuStreamBeginCapture_v2(one, 0);
        let _ = cuEventRecord(fork, one);
        let mut capturing = 0;
        let _ = cuStreamIsCapturing(two, &raw mut capturing);
        assert_eq!(capturing, 0, "not before the wait");
        let _ = cuStreamWaitEvent(two, fork, 0);
        let _ = cuStreamIsCapturing(two, &raw mut capturing);
        assert_eq!(capturing, 1, "the wait joined the capture");
        let _ = cuMemsetD8Async(d, 0, 64, two);
        let _ = cuEventRecord(join, two);
        let _ = cuStreamWaitEvent(one, join, 0);
        let _ = cuStreamEndCapture(one, &raw mut graph);
        let _ = cuStreamIsCapturing(two, &raw mut capturing);
        assert_eq!(capturing, 0, "the capture's end releases the joined stream");
        let mut n = 0;
        let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
        assert_eq!(n, 1, "the joined stream's memset is the graph's node");
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
        assert_eq!(
            violations_of(|| {
                let _ = cuStreamSynchronize(two); // returns at once: nothing ran
                let _ = cuMemFree_v2(d);
            }),
            0,
            "the joined stream's captured work is not pending"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, one);
            }),
            1,
            "the graph's node uses the freed memory"
        );
        let _ = cuGraphExecDestroy(exec);
        let _ = cuGraphDestroy(graph);
        // After the capture, `two`'s work runs again.
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemsetD8Async(d, 0, 64, two);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemFree_v2(d);
            }),
            1,
            "work enqueued after the capture is pending"
        );
        let _ = cuStreamSynchronize(two);
        let _ = cuEventDestroy_v2(fork);
        let _ = cuEventDestroy_v2(join);
        let _ = cuStreamDestroy_v2(one);
        let _ = cuStreamDestroy_v2(two);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn a_stream_in_a_capture_is_neither_synchronized_nor_queried_from_any_thread() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals)
    // and handles the double made; the other thread pushes the context before it uses them.
    unsafe {
        let a = ctx();
        let (mut one, mut two) = (null_mut(), null_mut());
        let _ = cuStreamCreate(&raw mut one, 0);
        let _ = cuStreamCreate(&raw mut two, 0);
        let mut fork = null_mut();
        let _ = cuEventCreate(&raw mut fork, 0);
        let _ = cuStreamBeginCapture_v2(one, 0);
        let _ = cuEventRecord(fork, one);
        let _ = cuStreamWaitEvent(two, fork, 0);
        // Another thread's synchronize and query of the stream that joined this thread's
        // capture: refused as the driver refused it on the H100, as are this thread's, and the
        // origin's.
        let (ctx_addr, two_addr) = (a.addr(), two.addr());
        let there = std::thread::spawn(move || {
            let two: Handle = core::ptr::without_provenance_mut(two_addr);
            let mut p = null_mut();
            let _ = cuCtxPushCurrent_v2(core::ptr::without_provenance_mut(ctx_addr));
            let answers = (cuStreamSynchronize(two), cuStreamQuery(two));
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            answers
        })
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let refused = (
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
        );
        assert_eq!(there, refused, "the joined stream, from another thread");
        assert_eq!((cuStreamSynchronize(two), cuStreamQuery(two)), refused);
        assert_eq!((cuStreamSynchronize(one), cuStreamQuery(one)), refused);
        let mut join = null_mut();
        let _ = cuEventCreate(&raw mut join, 0);
        let _ = cuEventRecord(join, two);
        let _ = cuStreamWaitEvent(one, join, 0);
        let mut graph = null_mut();
        assert_eq!(cuStreamEndCapture(one, &raw mut graph), CUDA_SUCCESS);
        // Out of the capture both answer as usual.
        for st in [one, two] {
            assert_eq!(
                (cuStreamSynchronize(st), cuStreamQuery(st)),
                (CUDA_SUCCESS, CUDA_SUCCESS)
            );
        }
        let _ = cuGraphDestroy(graph);
        let _ = cuEventDestroy_v2(fork);
        let _ = cuEventDestroy_v2(join);
        let _ = cuStreamDestroy_v2(one);
        let _ = cuStreamDestroy_v2(two);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn a_fork_not_joined_back_fails_the_capture_and_leaves_it() {
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
        let (mut fork, mut join) = (null_mut(), null_mut());
        let _ = cuEventCreate(&raw mut fork, 0);
        let _ = cuEventCreate(&raw mut join, 0);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        // Joined back, then more work on the fork: unjoined again.
        let mut graph = null_mut();
        let _ = cuStreamBeginCapture_v2(one, 0);
        let _ = cuEventRecord(fork, one);
        let _ = cuStreamWaitEvent(two, fork, 0);
        let _ = cuEventRecord(join, two);
        let _ = cuStreamWaitEvent(one, join, 0);
        let _ = cuMemsetD8Async(d, 0, 64, two);
        let mut status = 0;
        let mut g = null_mut();
        let (mut id, mut deps, mut n) = (0, core::ptr::null(), 9);
        let _ = cuStreamGetCaptureInfo_v2(
            two,
            &raw mut status,
            &raw mut id,
            &raw mut g,
            &raw mut deps,
            &raw mut n,
        );
        assert_eq!(status, 1, "the fork is in the capture");
        assert!(
            !g.is_null(),
            "the capture's graph is named while it is made"
        );
        assert_eq!(
            cuStreamEndCapture(one, &raw mut graph),
            CUDA_ERROR_STREAM_CAPTURE_UNJOINED
        );
        assert!(graph.is_null(), "a failed capture hands out no graph");
        let _ = cuStreamIsCapturing(two, &raw mut status);
        assert_eq!(status, 0, "the failed capture's end releases the fork");
        let _ = cuStreamGetCaptureInfo_v2(
            one,
            &raw mut status,
            &raw mut id,
            &raw mut g,
            &raw mut deps,
            &raw mut n,
        );
        assert_eq!(status, 0, "and the origin");
        // Joined back after its last work: the capture ends in a graph of one node.
        let _ = cuStreamBeginCapture_v2(one, 0);
        let _ = cuEventRecord(fork, one);
        let _ = cuStreamWaitEvent(two, fork, 0);
        let _ = cuMemsetD8Async(d, 0, 64, two);
        let _ = cuEventRecord(join, two);
        let _ = cuStreamWaitEvent(one, join, 0);
        assert_eq!(cuStreamEndCapture(one, &raw mut graph), CUDA_SUCCESS);
        let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
        assert_eq!(n, 1);
        let _ = cuGraphDestroy(graph);
        let _ = cuMemFree_v2(d);
        let _ = cuEventDestroy_v2(fork);
        let _ = cuEventDestroy_v2(join);
        let _ = cuStreamDestroy_v2(one);
        let _ = cuStreamDestroy_v2(two);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn several_forks_through_one_event_join_back_in_turn_and_one_left_fails_the_capture() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals)
    // and handles the double made: the wrong sequence under test misuses the driver's
    // contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let (mut one, mut two, mut three) = (null_mut(), null_mut(), null_mut());
        let _ = cuStreamCreate(&raw mut one, 0);
        let _ = cuStreamCreate(&raw mut two, 0);
        let _ = cuStreamCreate(&raw mut three, 0);
        let mut event = null_mut();
        let _ = cuEventCreate(&raw mut event, 0);
        let (mut d, mut e) = (0, 0);
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemAlloc_v2(&raw mut e, 64);
        // The sequence `Stream::capture_forks` makes: one event, recorded on the origin and
        // waited for by each fork in turn, then recorded on each fork and waited for by the
        // origin in turn.
        let fork_and_work = || {
            assert_eq!(cuStreamBeginCapture_v2(one, 0), CUDA_SUCCESS);
            for fork in [two, three] {
                assert_eq!(cuEventRecord(event, one), CUDA_SUCCESS);
                assert_eq!(cuStreamWaitEvent(fork, event, 0), CUDA_SUCCESS);
            }
            assert_eq!(cuMemsetD8Async(d, 1, 64, two), CUDA_SUCCESS);
            assert_eq!(cuMemsetD8Async(e, 2, 64, three), CUDA_SUCCESS);
        };
        let join = |fork: Handle| {
            assert_eq!(cuEventRecord(event, fork), CUDA_SUCCESS);
            assert_eq!(cuStreamWaitEvent(one, event, 0), CUDA_SUCCESS);
        };
        let capturing = |stream: Handle| {
            let mut status = 7;
            let _ = cuStreamIsCapturing(stream, &raw mut status);
            status
        };
        fork_and_work();
        join(two);
        join(three);
        let mut graph = null_mut();
        assert_eq!(cuStreamEndCapture(one, &raw mut graph), CUDA_SUCCESS);
        let mut n = 0;
        let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
        assert_eq!(n, 2, "each fork's memset");
        let _ = cuGraphDestroy(graph);
        // The second fork left unjoined: the capture fails and releases every stream.
        fork_and_work();
        join(two);
        assert_eq!(
            cuStreamEndCapture(one, &raw mut graph),
            CUDA_ERROR_STREAM_CAPTURE_UNJOINED
        );
        assert!(graph.is_null());
        assert_eq!(
            [capturing(one), capturing(two), capturing(three)],
            [0, 0, 0]
        );
        let _ = cuMemFree_v2(d);
        let _ = cuMemFree_v2(e);
        let _ = cuEventDestroy_v2(event);
        for s in [one, two, three] {
            let _ = cuStreamDestroy_v2(s);
        }
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn a_captured_host_function_is_a_node_called_at_each_launch() {
    use core::sync::atomic::AtomicUsize;
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    unsafe extern "C" fn call(_: *mut c_void) {
        CALLS.fetch_add(1, Relaxed);
    }
    unsafe extern "C" fn destroy(_: *mut c_void) {
        DROPS.fetch_add(1, Relaxed);
    }
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let mut one = null_mut();
        let _ = cuStreamCreate(&raw mut one, 0);
        let (mut graph, mut exec, mut object) = (null_mut(), null_mut(), null_mut());
        let _ = cuStreamBeginCapture_v2(one, 0);
        let (mut status, mut id, mut g, mut deps, mut n) = (0, 0, null_mut(), core::ptr::null(), 0);
        let _ = cuStreamGetCaptureInfo_v2(
            one,
            &raw mut status,
            &raw mut id,
            &raw mut g,
            &raw mut deps,
            &raw mut n,
        );
        let _ = cuUserObjectCreate(&raw mut object, null_mut(), Some(destroy), 1, 1);
        assert_eq!(cuGraphRetainUserObject(g, object, 1, 1), CUDA_SUCCESS);
        let _ = cuLaunchHostFunc(one, Some(call), null_mut());
        assert_eq!(CALLS.load(Relaxed), 0, "captured, not called");
        let _ = cuStreamEndCapture(one, &raw mut graph);
        assert_eq!(graph, g, "the capture ends in the graph it named");
        let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
        assert_eq!(n, 1, "a host node");
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
        let _ = cuGraphDestroy(graph);
        for launch in 1..=3 {
            let _ = cuGraphLaunch(exec, one);
            assert_eq!(CALLS.load(Relaxed), launch);
        }
        assert_eq!(
            DROPS.load(Relaxed),
            0,
            "the executable graph keeps the object"
        );
        let _ = cuGraphExecDestroy(exec);
        assert_eq!(DROPS.load(Relaxed), 1);
        // Outside a capture a host function runs at once, and a callback cannot be captured.
        let _ = cuLaunchHostFunc(one, Some(call), null_mut());
        assert_eq!(CALLS.load(Relaxed), 4);
        let _ = cuStreamBeginCapture_v2(one, 0);
        assert_eq!(
            cuStreamAddCallback(one, None, null_mut(), 0),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        );
        let _ = cuStreamEndCapture(one, &raw mut graph);
        let _ = cuGraphDestroy(graph);
        let _ = cuStreamDestroy_v2(one);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}
