//! The double's own tests. Graphs: stream waits, graphs built node by node, conditional bodies,
//! node updates, and the memory of graph allocation nodes.

use super::*;

#[test]
fn graphs_and_stream_waits_are_modelled() {
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
        // Work on `one` that `two` waits for completes when `two` is synchronized.
        let mut ev = null_mut();
        let _ = cuEventCreate(&raw mut ev, 0);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemsetD8Async(d, 0, 64, one);
                let _ = cuEventRecord(ev, one);
                let _ = cuStreamWaitEvent(two, ev, 0);
                let _ = cuStreamSynchronize(two);
            }),
            0,
            "a wait completes the work it waited for"
        );
        // A captured memset runs at each launch, not at capture.
        let (mut graph, mut exec) = (null_mut(), null_mut());
        let _ = cuStreamBeginCapture_v2(one, 0);
        let mut captured = 0;
        assert_eq!(cuStreamIsCapturing(one, &raw mut captured), CUDA_SUCCESS);
        assert_eq!(captured, 1);
        let _ = cuMemsetD8Async(d, 0, 64, one);
        let _ = cuStreamEndCapture(one, &raw mut graph);
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
        let mut n = 0;
        let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
        assert_eq!(n, 1);
        // One node per operation, however many buffers each uses: a copy between two
        // buffers, a copy to the host, a copy from it, a memset.
        let (mut e, mut host) = (0, null_mut());
        let _ = cuMemAlloc_v2(&raw mut e, 64);
        let _ = cuMemHostAlloc(&raw mut host, 64, 0);
        let mut four = null_mut();
        let _ = cuStreamBeginCapture_v2(one, 0);
        let _ = cuMemcpyDtoDAsync_v2(e, d, 64, one);
        let _ = cuMemcpyDtoHAsync_v2(host, e, 64, one);
        let _ = cuMemcpyHtoDAsync_v2(d, host, 64, one);
        let _ = cuMemsetD8Async(e, 0, 64, one);
        let _ = cuStreamEndCapture(one, &raw mut four);
        let _ = cuGraphGetNodes(four, null_mut(), &raw mut n);
        assert_eq!(n, 4, "one node per captured operation");
        let _ = cuGraphDestroy(four);
        let _ = cuMemFreeHost(host);
        let _ = cuMemFree_v2(e);
        assert_eq!(
            violations_of(|| {
                let _ = cuMemFree_v2(d); // nothing pending: the capture ran nothing
            }),
            0,
            "captured work is not pending"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, one);
            }),
            1,
            "a graph launched over freed memory"
        );
        let _ = cuGraphExecDestroy(exec);
        let _ = cuGraphDestroy(graph);
        assert_eq!(
            violations_of(|| {
                let _ = cuGraphDestroy(graph);
            }),
            1,
            "a graph destroyed twice"
        );
        let _ = cuEventDestroy_v2(ev);
        let _ = cuStreamDestroy_v2(one);
        let _ = cuStreamDestroy_v2(two);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn graphs_built_node_by_node_are_modelled() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let mut one = null_mut();
        let _ = cuStreamCreate(&raw mut one, 0);
        let (mut d, mut e, mut host) = (0, 0, null_mut());
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemAlloc_v2(&raw mut e, 64);
        let _ = cuMemHostAlloc(&raw mut host, 64, 0);
        let (mut graph, mut child, mut exec) = (null_mut(), null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut child, 0);
        let mut node = null_mut();
        // CUDA_MEMSET_NODE_PARAMS: 64 bytes of `e` set to 7.
        let mut memset = [0u8; 40];
        memset[0..8].copy_from_slice(&e.to_ne_bytes());
        memset[16..20].copy_from_slice(&7u32.to_ne_bytes());
        memset[20..24].copy_from_slice(&1u32.to_ne_bytes());
        memset[24..32].copy_from_slice(&64usize.to_ne_bytes());
        memset[32..40].copy_from_slice(&1usize.to_ne_bytes());
        let set = memset.as_ptr().cast();
        assert_eq!(
            cuGraphAddMemsetNode(&raw mut node, child, core::ptr::null(), 0, set, a),
            CUDA_SUCCESS
        );
        let _ = cuGraphCreate(&raw mut graph, 0);
        let mut memset_d = memset;
        memset_d[0..8].copy_from_slice(&d.to_ne_bytes());
        let set_d = memset_d.as_ptr().cast();
        let mut first = null_mut();
        let _ = cuGraphAddMemsetNode(&raw mut first, graph, core::ptr::null(), 0, set_d, a);
        // CUDA_MEMCPY3D: 64 bytes from `d` to the host, after the memset.
        let mut copy = [0u8; 200];
        copy[32..36].copy_from_slice(&2u32.to_ne_bytes());
        copy[48..56].copy_from_slice(&d.to_ne_bytes());
        copy[120..124].copy_from_slice(&1u32.to_ne_bytes());
        // The host pointer is written as a pointer, keeping its provenance (Miri).
        copy.as_mut_ptr()
            .add(128)
            .cast::<*mut c_void>()
            .write_unaligned(host);
        copy[176..184].copy_from_slice(&64usize.to_ne_bytes());
        copy[184..192].copy_from_slice(&1usize.to_ne_bytes());
        copy[192..200].copy_from_slice(&1usize.to_ne_bytes());
        let deps = [first];
        let _ = cuGraphAddMemcpyNode(
            &raw mut node,
            graph,
            deps.as_ptr(),
            1,
            copy.as_ptr().cast(),
            a,
        );
        let _ = cuGraphAddChildGraphNode(&raw mut node, graph, core::ptr::null(), 0, child);
        let mut n = 0;
        let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
        assert_eq!(n, 3, "a memset, a copy and a child-graph node");
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
        assert_eq!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, one);
                let _ = cuStreamSynchronize(one);
            }),
            0,
            "a built graph launched over live memory"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuMemFree_v2(e); // nothing pending: the launch is complete
            }),
            0,
            "a built graph's nodes are not pending work"
        );
        assert!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, one);
                let _ = cuStreamSynchronize(one);
            }) > 0,
            "a child graph's node over freed memory"
        );
        let _ = cuGraphExecDestroy(exec);
        let _ = cuGraphDestroy(graph);
        let _ = cuGraphDestroy(child);
        let _ = cuMemFree_v2(d);
        let _ = cuMemFreeHost(host);
        let _ = cuStreamDestroy_v2(one);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn conditional_bodies_join_their_graph_s_work_and_take_their_own_handles() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let (mut graph, mut other, mut exec) = (null_mut(), null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut graph, 0);
        let _ = cuGraphCreate(&raw mut other, 0);
        let (mut mine, mut theirs) = (0u64, 0u64);
        assert_eq!(
            cuGraphConditionalHandleCreate(&raw mut mine, graph, a, 1, 1),
            CUDA_SUCCESS
        );
        let _ = cuGraphConditionalHandleCreate(&raw mut theirs, other, a, 1, 1);
        // CUgraphNodeParams of a WHILE node (type 13; handle, type 1, size 1, ctx).
        let node_params = |handle: u64| {
            let mut p = [0u64; 32];
            p[0] = 13;
            p[2] = handle;
            p[3] = 1 | (1 << 32);
            p[5] = a.addr() as u64;
            p
        };
        let none = core::ptr::null();
        let mut node = null_mut();
        let mut p = node_params(theirs);
        assert!(
            violations_of(|| {
                let r = cuGraphAddNode(&raw mut node, graph, none, 0, p.as_mut_ptr().cast());
                assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
            }) > 0,
            "a handle of another graph"
        );
        let mut p = node_params(mine);
        assert_eq!(
            violations_of(|| {
                let r = cuGraphAddNode(&raw mut node, graph, none, 0, p.as_mut_ptr().cast());
                assert_eq!(r, CUDA_SUCCESS);
            }),
            0
        );
        let body = p.as_ptr().add(4).cast::<*const Handle>().read().read();
        assert!(
            violations_of(|| {
                let mut q = node_params(mine);
                let _ = cuGraphAddNode(&raw mut node, graph, none, 0, q.as_mut_ptr().cast());
            }) > 0,
            "a handle taken twice"
        );
        // A memset node of the body: its work is the graph's, checked at each launch.
        let mut memset = [0u64; 5];
        memset[0] = d;
        memset[2] = 4u64 << 32;
        memset[3] = 16;
        memset[4] = 1;
        let mut set = null_mut();
        assert_eq!(
            cuGraphAddMemsetNode(&raw mut set, body, none, 0, memset.as_ptr().cast(), a),
            CUDA_SUCCESS
        );
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
        let _ = cuMemFree_v2(d);
        assert!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }) > 0,
            "the body's buffer freed"
        );
        let _ = cuGraphExecDestroy(exec);
        let _ = cuGraphDestroy(graph);
        let _ = cuGraphDestroy(other);
        let _ = cuStreamDestroy_v2(s);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn memset_node_updates_replace_the_nodes_work_and_clones_keep_the_old() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let (mut d, mut e) = (0, 0);
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemAlloc_v2(&raw mut e, 64);
        // CUDA_MEMSET_NODE_PARAMS: dst, pitch, value, elementSize, width, height.
        let memset = |dst: CUdeviceptr| {
            let mut p = [0u8; 40];
            p[0..8].copy_from_slice(&dst.to_ne_bytes());
            p[16..20].copy_from_slice(&7u32.to_ne_bytes());
            p[20..24].copy_from_slice(&4u32.to_ne_bytes());
            p[24..32].copy_from_slice(&16usize.to_ne_bytes());
            p[32..40].copy_from_slice(&1usize.to_ne_bytes());
            p
        };
        let (mut graph, mut clone, mut node) = (null_mut(), null_mut(), null_mut());
        let (mut exec, mut cloned) = (null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut graph, 0);
        let p = memset(d);
        let none = core::ptr::null();
        let added = cuGraphAddMemsetNode(&raw mut node, graph, none, 0, p.as_ptr().cast(), a);
        assert_eq!(added, CUDA_SUCCESS);
        assert_eq!(cuGraphClone(&raw mut clone, graph), CUDA_SUCCESS);
        let mut n = 0usize;
        let _ = cuGraphGetNodes(clone, null_mut(), &raw mut n);
        assert_eq!(n, 1, "the clone's one node");
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
        let _ = cuGraphInstantiateWithFlags(&raw mut cloned, clone, 0);
        // The node now sets `e`, not `d`.
        let q = memset(e);
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphExecMemsetNodeSetParams(exec, node, q.as_ptr().cast(), a),
                    CUDA_SUCCESS
                );
                let _ = cuMemFree_v2(d); // no node of `exec` uses it any more
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }),
            0,
            "an updated memset node over live memory, its old buffer freed"
        );
        assert!(
            violations_of(|| {
                let _ = cuGraphLaunch(cloned, s);
                let _ = cuStreamSynchronize(s);
            }) > 0,
            "the clone's executable graph still sets the freed buffer"
        );
    }
}

#[test]
fn graph_memory_nodes_make_memory_of_the_graph_s_own_freed_once() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        // CUDA_MEM_ALLOC_NODE_PARAMS: 120 bytes, `bytesize` at 104, `dptr` at 112.
        let mut params = [0u64; 15];
        params[13] = 64;
        let memset = |dst: CUdeviceptr| {
            let mut p = [0u8; 40];
            p[0..8].copy_from_slice(&dst.to_ne_bytes());
            p[16..20].copy_from_slice(&7u32.to_ne_bytes());
            p[20..24].copy_from_slice(&4u32.to_ne_bytes());
            p[24..32].copy_from_slice(&16usize.to_ne_bytes());
            p[32..40].copy_from_slice(&1usize.to_ne_bytes());
            p
        };
        let none = core::ptr::null();
        let (mut graph, mut alloc, mut set, mut free, mut late) =
            (null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut graph, 0);
        let made =
            cuGraphAddMemAllocNode(&raw mut alloc, graph, none, 0, params.as_mut_ptr().cast());
        assert_eq!(made, CUDA_SUCCESS);
        let dptr = params[14];
        assert_ne!(dptr, 0, "the driver's address");
        let p = memset(dptr);
        assert_eq!(
            cuGraphAddMemsetNode(
                &raw mut set,
                graph,
                &raw const alloc,
                1,
                p.as_ptr().cast(),
                a
            ),
            CUDA_SUCCESS
        );
        // Not an allocation of this graph's: refused.
        assert_eq!(
            cuGraphAddMemFreeNode(&raw mut free, graph, &raw const set, 1, dptr + 4),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphAddMemFreeNode(&raw mut free, graph, &raw const set, 1, dptr),
                    CUDA_SUCCESS
                );
            }),
            0
        );
        // Freed twice: refused; used after its free node: a violation.
        assert_eq!(
            cuGraphAddMemFreeNode(&raw mut free, graph, &raw const set, 1, dptr),
            CUDA_ERROR_INVALID_VALUE
        );
        assert!(
            violations_of(|| {
                let _ = cuGraphAddMemsetNode(
                    &raw mut late,
                    graph,
                    &raw const free,
                    1,
                    p.as_ptr().cast(),
                    a,
                );
            }) > 0
        );
        let _ = cuGraphDestroy(graph);
        // An allocation never freed goes with its graph: nothing left behind.
        let mut other = null_mut();
        let _ = cuGraphCreate(&raw mut other, 0);
        let mut params = [0u64; 15];
        params[13] = 64;
        let _ = cuGraphAddMemAllocNode(&raw mut alloc, other, none, 0, params.as_mut_ptr().cast());
        let _ = cuGraphDestroy(other);
        assert!(!check::left_behind(
            Kind::DeviceMemory,
            params[14] as usize,
            64
        ));
    }
}

#[test]
fn memory_a_graph_keeps_is_made_by_each_launch_and_a_relaunch_before_its_free_fails() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let _a = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let none = core::ptr::null();
        // An allocation node with no free node, instantiated with `flags`: its memory.
        let keeping = |flags: c_ulonglong| {
            let (mut graph, mut alloc, mut exec) = (null_mut(), null_mut(), null_mut());
            let _ = cuGraphCreate(&raw mut graph, 0);
            let mut params = [0u64; 15];
            params[13] = 64;
            let made =
                cuGraphAddMemAllocNode(&raw mut alloc, graph, none, 0, params.as_mut_ptr().cast());
            assert_eq!(made, CUDA_SUCCESS);
            assert_eq!(
                cuGraphInstantiateWithFlags(&raw mut exec, graph, flags),
                CUDA_SUCCESS
            );
            // The executable graph does not depend on its graph.
            let _ = cuGraphDestroy(graph);
            (exec, params[14])
        };
        let (exec, dptr) = keeping(0);
        // Not made before a launch: freeing it is a violation.
        assert!(
            violations_of(|| {
                let _ = cuMemFree_v2(dptr);
            }) > 0
        );
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        // Made and not freed: the relaunch fails, as the driver's does.
        assert_eq!(cuGraphLaunch(exec, s), CUDA_ERROR_INVALID_VALUE);
        let _ = cuStreamSynchronize(s);
        assert_eq!(
            violations_of(|| assert_eq!(cuMemFree_v2(dptr), CUDA_SUCCESS)),
            0
        );
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        let _ = cuStreamSynchronize(s);
        // Destroying the executable graph frees nothing: still live, freed by the program.
        let _ = cuGraphExecDestroy(exec);
        assert!(check::left_behind(Kind::DeviceMemory, dptr as usize, 64));
        assert_eq!(cuMemFree_v2(dptr), CUDA_SUCCESS);
        // With AUTO_FREE_ON_LAUNCH, each launch frees what the previous one left.
        let (exec, dptr) = keeping(1);
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        let _ = cuStreamSynchronize(s);
        let _ = cuGraphExecDestroy(exec);
        assert_eq!(
            violations_of(|| assert_eq!(cuMemFree_v2(dptr), CUDA_SUCCESS)),
            0
        );
    }
}

#[test]
fn a_kept_allocation_freed_in_stream_order_is_made_again_only_by_a_relaunch_ordered_after_the_free()
{
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals)
    // and handles the double made: the wrong sequences under test misuse the driver's
    // contract, which the double records, not Rust's.
    unsafe {
        let _a = ctx();
        let (mut s, mut other) = (null_mut(), null_mut());
        let _ = cuStreamCreate(&raw mut s, 0);
        let _ = cuStreamCreate(&raw mut other, 0);
        let (mut graph, mut alloc, mut exec) = (null_mut(), null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut graph, 0);
        let mut params = [0u64; 15];
        params[13] = 64;
        let none = core::ptr::null();
        let made =
            cuGraphAddMemAllocNode(&raw mut alloc, graph, none, 0, params.as_mut_ptr().cast());
        assert_eq!(made, CUDA_SUCCESS);
        assert_eq!(
            cuGraphInstantiateWithFlags(&raw mut exec, graph, 0),
            CUDA_SUCCESS
        );
        let _ = cuGraphDestroy(graph);
        let dptr = params[14];
        let launch = |on| violations_of(|| assert_eq!(cuGraphLaunch(exec, on), CUDA_SUCCESS));
        assert_eq!(launch(s), 0);
        let _ = cuStreamSynchronize(s);
        // Freed on `s`, relaunched on `s`: ordered by the stream.
        assert_eq!(cuMemFreeAsync(dptr, s), CUDA_SUCCESS);
        assert_eq!(launch(s), 0);
        let _ = cuStreamSynchronize(s);
        // Freed on `s`, which the host waits for (a scope's end), relaunched on `other`.
        assert_eq!(cuMemFreeAsync(dptr, s), CUDA_SUCCESS);
        let _ = cuStreamSynchronize(s);
        assert_eq!(launch(other), 0);
        let _ = cuStreamSynchronize(other);
        // Freed on `s`, relaunched on `other` after a wait for an event recorded after the free.
        let mut ev = null_mut();
        let _ = cuEventCreate(&raw mut ev, 0);
        assert_eq!(cuMemFreeAsync(dptr, s), CUDA_SUCCESS);
        let _ = cuEventRecord(ev, s);
        let _ = cuStreamWaitEvent(other, ev, 0);
        assert_eq!(launch(other), 0);
        let _ = cuStreamSynchronize(other);
        let _ = cuStreamSynchronize(s);
        // Freed on `s`, relaunched on `other` with no order: the free may run after the
        // relaunch made the memory again, and free the new launch's.
        assert_eq!(cuMemFreeAsync(dptr, s), CUDA_SUCCESS);
        assert!(
            launch(other) > 0,
            "an unordered relaunch after a stream-ordered free"
        );
        let _ = cuStreamSynchronize(s);
        let _ = cuStreamSynchronize(other);
        assert_eq!(
            violations_of(|| assert_eq!(cuMemFree_v2(dptr), CUDA_SUCCESS)),
            0
        );
        let _ = cuGraphExecDestroy(exec);
        let _ = cuEventDestroy_v2(ev);
    }
}

#[test]
fn an_auto_free_relaunch_frees_first_and_memory_the_program_holds_is_a_violation() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let _a = ctx();
        let (mut s, mut other) = (null_mut(), null_mut());
        let _ = cuStreamCreate(&raw mut s, 0);
        let _ = cuStreamCreate(&raw mut other, 0);
        let none = core::ptr::null();
        // An allocation node with no free node, instantiated with AUTO_FREE_ON_LAUNCH.
        let (mut graph, mut alloc, mut exec) = (null_mut(), null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut graph, 0);
        let mut params = [0u64; 15];
        params[13] = 64;
        let made =
            cuGraphAddMemAllocNode(&raw mut alloc, graph, none, 0, params.as_mut_ptr().cast());
        assert_eq!(made, CUDA_SUCCESS);
        assert_eq!(
            cuGraphInstantiateWithFlags(&raw mut exec, graph, 1),
            CUDA_SUCCESS
        );
        let _ = cuGraphDestroy(graph);
        let dptr = params[14];
        assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
        let _ = cuStreamSynchronize(s);
        // Nobody used what the launch made: the relaunch frees it and makes it again.
        assert_eq!(
            violations_of(|| assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS)),
            0
        );
        let _ = cuStreamSynchronize(s);
        // The program read it (it took it): the relaunch frees memory the program holds.
        let mut host = [0u8; 64];
        assert_eq!(
            cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), dptr, 64),
            CUDA_SUCCESS
        );
        assert!(violations_of(|| assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS)) > 0);
        let _ = cuStreamSynchronize(s);
        // Work on another stream may still use it: the relaunch's free is a violation. (A
        // launch of a graph captured over it, which the program's use did not follow: the
        // capture's memset was a use, which the relaunch before the launch answers.)
        let mut captured = null_mut();
        assert_eq!(cuStreamBeginCapture_v2(other, 0), CUDA_SUCCESS);
        let _ = cuMemsetD32Async(dptr, 7, 16, other);
        assert_eq!(cuStreamEndCapture(other, &raw mut captured), CUDA_SUCCESS);
        let mut writer = null_mut();
        assert_eq!(
            cuGraphInstantiateWithFlags(&raw mut writer, captured, 0),
            CUDA_SUCCESS
        );
        let _ = cuGraphDestroy(captured);
        assert!(violations_of(|| assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS)) > 0);
        let _ = cuStreamSynchronize(s);
        assert_eq!(cuGraphLaunch(writer, other), CUDA_SUCCESS);
        assert!(violations_of(|| assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS)) > 0);
        let _ = cuStreamSynchronize(other);
        let _ = cuStreamSynchronize(s);
        let _ = cuGraphExecDestroy(writer);
        // The program frees what it took (now the last launch's allocation), and the
        // executable graph's owner frees the last launch's: a double free.
        let _ = cuGraphExecDestroy(exec);
        assert_eq!(
            violations_of(|| assert_eq!(cuMemFree_v2(dptr), CUDA_SUCCESS)),
            0
        );
        assert!(
            violations_of(|| {
                let _ = cuMemFree_v2(dptr);
            }) > 0
        );
    }
}

#[test]
fn kernel_node_updates_replace_the_nodes_work() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let ptx = concat!(include_str!("../../../tests/fixtures/kernels.ptx"), "\0");
        let (mut m, mut f, mut s) = (null_mut(), null_mut(), null_mut());
        let _ = cuModuleLoadData(&raw mut m, ptx.as_ptr().cast());
        let _ = cuModuleGetFunction(&raw mut f, m, c"add_u32".as_ptr());
        let _ = cuStreamCreate(&raw mut s, 0);
        let (mut d, mut e) = (0, 0);
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemAlloc_v2(&raw mut e, 64);
        // CUDA_KERNEL_NODE_PARAMS_v2 of `add_u32(x, k, n)`, one block of 16, written in
        // place: the pointers keep their provenance (Miri), which a copy of the bytes drops.
        let node_params = |p: &mut [u8; 72],
                           x: &mut CUdeviceptr,
                           k: &mut u32,
                           n: &mut u32,
                           args: &mut [*mut c_void; 3]| {
            *args = [
                core::ptr::from_mut(x).cast(),
                core::ptr::from_mut(k).cast(),
                core::ptr::from_mut(n).cast(),
            ];
            p.as_mut_ptr().cast::<Handle>().write_unaligned(f);
            for (i, v) in [1u32, 1, 1, 16, 1, 1, 0].iter().enumerate() {
                p[8 + 4 * i..12 + 4 * i].copy_from_slice(&v.to_ne_bytes());
            }
            p.as_mut_ptr()
                .add(40)
                .cast::<*mut *mut c_void>()
                .write_unaligned(args.as_mut_ptr());
        };
        let (mut x, mut k, mut n, mut args) = (d, 1u32, 16u32, [null_mut(); 3]);
        let mut p = [0u8; 72];
        node_params(&mut p, &mut x, &mut k, &mut n, &mut args);
        let (mut graph, mut other, mut exec) = (null_mut(), null_mut(), null_mut());
        let (mut node, mut stranger) = (null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut graph, 0);
        let none = core::ptr::null();
        assert_eq!(
            cuGraphAddKernelNode_v2(&raw mut node, graph, none, 0, p.as_ptr().cast()),
            CUDA_SUCCESS
        );
        let _ = cuGraphCreate(&raw mut other, 0);
        let _ = cuGraphAddKernelNode_v2(&raw mut stranger, other, none, 0, p.as_ptr().cast());
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
        // The node now adds 2 to `e`, not 1 to `d`.
        let (mut x, mut k, mut n, mut args) = (e, 2u32, 16u32, [null_mut(); 3]);
        let mut q = [0u8; 72];
        node_params(&mut q, &mut x, &mut k, &mut n, &mut args);
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphExecKernelNodeSetParams_v2(exec, node, q.as_ptr().cast()),
                    CUDA_SUCCESS
                );
                let _ = cuMemFree_v2(d); // no node uses it any more
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }),
            0,
            "an updated node over live memory, its old buffer freed"
        );
        assert!(
            violations_of(|| {
                let _ = cuGraphExecKernelNodeSetParams_v2(exec, stranger, q.as_ptr().cast());
            }) > 0,
            "a node of another graph"
        );
        let _ = cuMemFree_v2(e);
        assert!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }) > 0,
            "the updated node's buffer freed"
        );
        let _ = cuGraphExecDestroy(exec);
        let _ = cuGraphDestroy(graph);
        let _ = cuGraphDestroy(other);
        let _ = cuModuleUnload(m);
        let _ = cuStreamDestroy_v2(s);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn a_disabled_node_s_work_is_left_out_and_an_update_of_another_node_count_is_refused() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let (mut d, mut e) = (0, 0);
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemAlloc_v2(&raw mut e, 64);
        // CUDA_MEMSET_NODE_PARAMS: dst, pitch, value, elementSize, width, height.
        let memset = |dst: CUdeviceptr| {
            let mut p = [0u8; 40];
            p[0..8].copy_from_slice(&dst.to_ne_bytes());
            p[16..20].copy_from_slice(&7u32.to_ne_bytes());
            p[20..24].copy_from_slice(&4u32.to_ne_bytes());
            p[24..32].copy_from_slice(&16usize.to_ne_bytes());
            p[32..40].copy_from_slice(&1usize.to_ne_bytes());
            p
        };
        let none = core::ptr::null();
        let (mut graph, mut node, mut exec) = (null_mut(), null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut graph, 0);
        let p = memset(d);
        let _ = cuGraphAddMemsetNode(&raw mut node, graph, none, 0, p.as_ptr().cast(), a);
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
        let mut on = 7;
        assert_eq!(cuGraphNodeGetEnabled(exec, node, &raw mut on), CUDA_SUCCESS);
        assert_eq!(on, 1, "enabled when instantiated");
        // Disabled, its memory freed: the launch does not touch it.
        assert_eq!(
            violations_of(|| {
                assert_eq!(cuGraphNodeSetEnabled(exec, node, 0), CUDA_SUCCESS);
                assert_eq!(cuGraphNodeGetEnabled(exec, node, &raw mut on), CUDA_SUCCESS);
                assert_eq!(on, 0);
                let _ = cuMemFree_v2(d);
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }),
            0,
            "a disabled node's work left out of the launch"
        );
        // Enabled again, the node sets the freed memory.
        assert!(
            violations_of(|| {
                assert_eq!(cuGraphNodeSetEnabled(exec, node, 1), CUDA_SUCCESS);
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }) > 0,
            "the enabled node's work is back"
        );
        // Parameters set while disabled are kept for when it is enabled: now over `e`.
        assert_eq!(
            violations_of(|| {
                assert_eq!(cuGraphNodeSetEnabled(exec, node, 0), CUDA_SUCCESS);
                let q = memset(e);
                assert_eq!(
                    cuGraphExecMemsetNodeSetParams(exec, node, q.as_ptr().cast(), a),
                    CUDA_SUCCESS
                );
                let _ = cuGraphLaunch(exec, s);
                assert_eq!(cuGraphNodeSetEnabled(exec, node, 1), CUDA_SUCCESS);
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }),
            0,
            "the node enabled again runs its new parameters"
        );
        // A node the executable graph does not have: a violation, as the driver's invalid value.
        let (mut other, mut stranger) = (null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut other, 0);
        let r = memset(e);
        let _ = cuGraphAddMemsetNode(&raw mut stranger, other, none, 0, r.as_ptr().cast(), a);
        let _ = cuGraphAddMemsetNode(&raw mut stranger, other, none, 0, r.as_ptr().cast(), a);
        let mut refused = CUDA_SUCCESS;
        assert!(
            violations_of(|| refused = cuGraphNodeSetEnabled(exec, stranger, 0)) > 0,
            "a node of another graph"
        );
        assert_eq!(refused, CUDA_ERROR_INVALID_VALUE);
        // An update from a graph of two nodes: refused, topology changed, nothing updated.
        let mut info = [0u8; 24];
        assert_eq!(
            cuGraphExecUpdate_v2(exec, other, info.as_mut_ptr().cast()),
            CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE
        );
        assert_eq!(u32::from_ne_bytes([info[0], info[1], info[2], info[3]]), 2);
        assert_eq!(
            cuGraphNodeGetEnabled(exec, node, &raw mut on),
            CUDA_SUCCESS,
            "the executable graph keeps its nodes"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }),
            0,
            "still sets `e`"
        );
        // An update from a graph of one node of another kind (an event record node where the
        // memset node was): the same count, refused all the same, as the driver refuses a
        // node whose type changed.
        let (mut recorder, mut event, mut record) = (null_mut(), null_mut(), null_mut());
        let _ = cuEventCreate(&raw mut event, 0);
        let _ = cuGraphCreate(&raw mut recorder, 0);
        assert_eq!(
            cuGraphAddEventRecordNode(&raw mut record, recorder, none, 0, event),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuGraphExecUpdate_v2(exec, recorder, info.as_mut_ptr().cast()),
            CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
            "a node of another kind in the memset node's place"
        );
        // A graph of one memset node, as the executable graph's: taken.
        let (mut same, mut memset_node) = (null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut same, 0);
        let q = memset(d);
        let _ = cuGraphAddMemsetNode(&raw mut memset_node, same, none, 0, q.as_ptr().cast(), a);
        assert_eq!(
            cuGraphExecUpdate_v2(exec, same, info.as_mut_ptr().cast()),
            CUDA_SUCCESS,
            "the same kinds in the same order"
        );
    }
}
