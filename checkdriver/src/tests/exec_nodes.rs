//! The double's own tests. An executable graph's host, child-graph and event nodes updated one
//! by one: the new work takes the node's place, a node of another kind is a violation, and a
//! child graph of another topology is refused as the driver refuses it.

use super::*;
use core::sync::atomic::{AtomicU32, Ordering::SeqCst};

static OLD_CALLS: AtomicU32 = AtomicU32::new(0);
static NEW_CALLS: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn old_host(_: *mut c_void) {
    OLD_CALLS.fetch_add(1, SeqCst);
}

unsafe extern "C" fn new_host(_: *mut c_void) {
    NEW_CALLS.fetch_add(1, SeqCst);
}

/// `CUDA_HOST_NODE_PARAMS`: the function and its argument, as pointers (so that the function
/// keeps its provenance under Miri's strict provenance).
#[repr(C)]
struct HostParams {
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
}

/// `CUDA_HOST_NODE_PARAMS` of `f`, with a null argument.
fn host_params(f: unsafe extern "C" fn(*mut c_void)) -> HostParams {
    HostParams {
        f,
        data: core::ptr::null_mut(),
    }
}

/// `CUDA_MEMSET_NODE_PARAMS` of 16 words at `dst`.
fn memset(dst: CUdeviceptr) -> [u8; 40] {
    let mut p = [0u8; 40];
    p[0..8].copy_from_slice(&dst.to_ne_bytes());
    p[16..20].copy_from_slice(&7u32.to_ne_bytes());
    p[20..24].copy_from_slice(&4u32.to_ne_bytes());
    p[24..32].copy_from_slice(&16usize.to_ne_bytes());
    p[32..40].copy_from_slice(&1usize.to_ne_bytes());
    p
}

/// Every test's start: a new context made current, and a stream of it.
///
/// # Safety
///
/// The double's entry points, with this function's locals as out-pointers.
unsafe fn start() -> (Handle, Handle) {
    let a = ctx();
    let mut s = null_mut();
    // SAFETY: a valid out-pointer; the context is current.
    let _ = unsafe { cuStreamCreate(&raw mut s, 0) };
    (a, s)
}

/// A graph whose nodes `add` adds (given the new graph), and its executable graph.
///
/// # Safety
///
/// A context is current; `add` calls the double's entry points on the graph it is given.
unsafe fn built(add: impl FnOnce(Handle)) -> (Handle, Handle) {
    let (mut graph, mut exec) = (null_mut(), null_mut());
    // SAFETY: valid out-pointers; the context is current (the caller's promise).
    let _ = unsafe { cuGraphCreate(&raw mut graph, 0) };
    add(graph);
    // SAFETY: as above; `graph` is the live graph made above.
    let _ = unsafe { cuGraphInstantiateWithFlags(&raw mut exec, graph, 0) };
    (graph, exec)
}

/// Every test's end: `s` destroyed, the context `a` popped and destroyed.
///
/// # Safety
///
/// `a` is current, `s` a stream of it, each made by [`start`].
unsafe fn end(a: Handle, s: Handle) {
    let mut p = null_mut();
    // SAFETY: handles the double made (the caller's promise); a valid out-pointer.
    unsafe {
        let _ = cuStreamDestroy_v2(s);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn a_host_node_update_calls_the_new_function_and_a_node_of_another_kind_is_a_violation() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // parameters that outlive the calls that read them, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let (a, s) = start();
        let mut ev = null_mut();
        let _ = cuEventCreate(&raw mut ev, 0);
        let (mut host, mut record) = (null_mut(), null_mut());
        let none = core::ptr::null();
        let old = host_params(old_host);
        let (graph, exec) = built(|graph| {
            assert_eq!(
                cuGraphAddHostNode(&raw mut host, graph, none, 0, (&raw const old).cast()),
                CUDA_SUCCESS
            );
            let _ = cuGraphAddEventRecordNode(&raw mut record, graph, none, 0, ev);
        });
        let (old_before, new_before) = (OLD_CALLS.load(SeqCst), NEW_CALLS.load(SeqCst));
        let new = host_params(new_host);
        assert_eq!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, s);
                assert_eq!(
                    cuGraphExecHostNodeSetParams(exec, host, (&raw const new).cast()),
                    CUDA_SUCCESS
                );
                let _ = cuGraphLaunch(exec, s);
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }),
            0,
            "a host node updated"
        );
        assert_eq!(
            OLD_CALLS.load(SeqCst) - old_before,
            1,
            "the old function, once"
        );
        assert_eq!(NEW_CALLS.load(SeqCst) - new_before, 2, "then the new one");
        // The event record node is no host node; nor is a host node enabled or disabled.
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphExecHostNodeSetParams(exec, record, (&raw const new).cast()),
                    CUDA_ERROR_INVALID_VALUE
                );
            }),
            1,
            "a host update of an event record node"
        );
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphNodeSetEnabled(exec, host, 0),
                    CUDA_ERROR_INVALID_VALUE
                );
            }),
            1,
            "a host node disabled"
        );
        // A node of no graph this executable graph was made from.
        let (mut other, mut stranger) = (null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut other, 0);
        let _ = cuGraphAddHostNode(&raw mut stranger, other, none, 0, (&raw const old).cast());
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphExecHostNodeSetParams(exec, stranger, (&raw const new).cast()),
                    CUDA_ERROR_INVALID_VALUE
                );
            }),
            1,
            "a host node of another graph"
        );
        let _ = cuGraphExecDestroy(exec);
        let _ = cuGraphDestroy(graph);
        let _ = cuGraphDestroy(other);
        let _ = cuEventDestroy_v2(ev);
        end(a, s);
    }
}

#[test]
fn a_child_graph_node_takes_a_graph_of_its_topology_only() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: as in the test above.
    unsafe {
        let (a, s) = start();
        let (mut d, mut e) = (0, 0);
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemAlloc_v2(&raw mut e, 64);
        let none = core::ptr::null();
        // Three children: a memset of `d`, a memset of `e`, two memsets; and a host node.
        let child = |sets: &[CUdeviceptr]| {
            let mut g = null_mut();
            let _ = cuGraphCreate(&raw mut g, 0);
            for &p in sets {
                let mut n = null_mut();
                let q = memset(p);
                let _ = cuGraphAddMemsetNode(&raw mut n, g, none, 0, q.as_ptr().cast(), a);
            }
            g
        };
        let (first, second, longer) = (child(&[d]), child(&[e]), child(&[e, e]));
        let (mut hosted, mut h) = (null_mut(), null_mut());
        let _ = cuGraphCreate(&raw mut hosted, 0);
        let old = host_params(old_host);
        let _ = cuGraphAddHostNode(&raw mut h, hosted, none, 0, (&raw const old).cast());
        let mut node = null_mut();
        let (parent, exec) = built(|parent| {
            assert_eq!(
                cuGraphAddChildGraphNode(&raw mut node, parent, none, 0, first),
                CUDA_SUCCESS
            );
        });
        // Another count of nodes, or a node of another kind: refused, the node unchanged.
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphExecChildGraphNodeSetParams(exec, node, longer),
                    CUDA_ERROR_INVALID_VALUE
                );
                assert_eq!(
                    cuGraphExecChildGraphNodeSetParams(exec, node, hosted),
                    CUDA_ERROR_INVALID_VALUE
                );
            }),
            0,
            "the driver's refusals"
        );
        // The node sets `e` from now on: `d` may go.
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphExecChildGraphNodeSetParams(exec, node, second),
                    CUDA_SUCCESS
                );
                let _ = cuMemFree_v2(d);
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }),
            0,
            "an updated child-graph node over live memory, its old buffer freed"
        );
        // Its new memory freed: the next launch uses freed memory.
        assert!(
            violations_of(|| {
                let _ = cuMemFree_v2(e);
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }) > 0,
            "the child's new memory is the node's"
        );
        // A child-graph update of a node of another kind.
        let mut m = null_mut();
        let q = memset(e);
        let (g2, x2) = built(|g2| {
            let _ = cuGraphAddMemsetNode(&raw mut m, g2, none, 0, q.as_ptr().cast(), a);
        });
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphExecChildGraphNodeSetParams(x2, m, second),
                    CUDA_ERROR_INVALID_VALUE
                );
            }),
            1,
            "a memset node given a child graph"
        );
        for x in [exec, x2] {
            let _ = cuGraphExecDestroy(x);
        }
        for g in [parent, first, second, longer, hosted, g2] {
            let _ = cuGraphDestroy(g);
        }
        end(a, s);
    }
}

#[test]
fn an_event_node_takes_a_live_event_of_its_context_and_its_own_kind_of_update() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: as in the first test.
    unsafe {
        let (a, s) = start();
        let (mut first, mut second) = (null_mut(), null_mut());
        let _ = cuEventCreate(&raw mut first, 0);
        let _ = cuEventCreate(&raw mut second, 0);
        let none = core::ptr::null();
        let (mut record, mut wait) = (null_mut(), null_mut());
        let (graph, exec) = built(|graph| {
            let _ = cuGraphAddEventRecordNode(&raw mut record, graph, none, 0, first);
            let _ = cuGraphAddEventWaitNode(&raw mut wait, graph, none, 0, first);
        });
        // Both nodes name `second` from now on: `first` may go.
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphExecEventRecordNodeSetEvent(exec, record, second),
                    CUDA_SUCCESS
                );
                assert_eq!(
                    cuGraphExecEventWaitNodeSetEvent(exec, wait, second),
                    CUDA_SUCCESS
                );
                let _ = cuEventDestroy_v2(first);
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }),
            0,
            "event nodes updated, the old event destroyed"
        );
        // The kinds crossed: a violation each, the nodes unchanged.
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuGraphExecEventRecordNodeSetEvent(exec, wait, second),
                    CUDA_ERROR_INVALID_VALUE
                );
                assert_eq!(
                    cuGraphExecEventWaitNodeSetEvent(exec, record, second),
                    CUDA_ERROR_INVALID_VALUE
                );
            }),
            2,
            "a record update of a wait node, a wait update of a record node"
        );
        // An event of another context recorded: a violation.
        let b = ctx();
        let mut foreign = null_mut();
        let _ = cuEventCreate(&raw mut foreign, 0);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        assert!(
            violations_of(|| {
                let _ = cuGraphExecEventRecordNodeSetEvent(exec, record, foreign);
            }) > 0,
            "an event of another context"
        );
        // The new event destroyed: the next launch records a destroyed event.
        let mut third = null_mut();
        let _ = cuEventCreate(&raw mut third, 0);
        let _ = cuGraphExecEventRecordNodeSetEvent(exec, record, third);
        assert!(
            violations_of(|| {
                let _ = cuEventDestroy_v2(third);
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }) > 0,
            "a launch records the node's event, which must be live"
        );
        let _ = cuGraphExecDestroy(exec);
        let _ = cuGraphDestroy(graph);
        let _ = cuEventDestroy_v2(second);
        end(a, s);
        let _ = cuCtxPushCurrent_v2(b);
        let _ = cuEventDestroy_v2(foreign);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(b);
    }
}
