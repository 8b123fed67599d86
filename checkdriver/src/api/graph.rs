//! Models `cuda.h` "Graph Management" (`group__CUDA__GRAPH`): graphs captured or built node by node
//! (kernel, memcpy, memset, host, event, child graph, memory and conditional nodes), their
//! executable graphs, launches, uploads and updates, and user objects (`user_object.rs`). In
//! checking mode a graph keeps the work of its nodes and runs it again at each launch.

use super::common::{out, read_field};
use super::init::REPORTED_VERSION;
use super::launch::run_kernel;
use super::memory::{Shape, Side, copy_desc, copy_used, new_address};
use super::types::{
    CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_SUPPORTED,
    CUDA_ERROR_OPERATING_SYSTEM, CUDA_SUCCESS, CUdeviceptr, CUresult, Handle,
};
use crate::check::{self, Kind};
use crate::handles::handle;
use crate::node_kinds::{self, NodeKind, Topology};
use crate::{user_object, work};
use core::ffi::{c_char, c_uint, c_ulonglong, c_void};
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

entry_points! {
    fn cuGraphDestroy(graph: Handle) {
        let _ = check::destroyed(Kind::Graph, graph as usize, "cuGraphDestroy");
        check::graph_forgotten(graph as usize);
        user_object::owner_destroyed(graph as usize);
        CUDA_SUCCESS
    }
    // With an array, fresh node handles up to its capacity: the double keeps no node objects
    // (nor their kinds: `cuGraphNodeGetType` says every node is an empty one).
    fn cuGraphGetNodes(graph: Handle, nodes: *mut Handle, n: *mut usize) {
        check::used(Kind::Graph, graph as usize, "cuGraphGetNodes");
        if n.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let len = check::graph_len(graph as usize);
        if !nodes.is_null() {
            for i in 0..(*n).min(len) {
                *nodes.add(i) = handle();
            }
        }
        out(n, len);
        CUDA_SUCCESS
    }
    fn cuGraphNodeGetType(node: Handle, kind: *mut c_uint) {
        if node.is_null() || kind.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        out(kind, 5);
        CUDA_SUCCESS
    }
    // A clone takes the graph's operations (and its node count): launched, it uses the same
    // memory, which must be live then.
    fn cuGraphClone(clone: *mut Handle, graph: Handle) {
        check::used(Kind::Graph, graph as usize, "cuGraphClone");
        let c = handle();
        check::graph_cloned(graph as usize, c as usize);
        user_object::copied(graph as usize, c as usize, false);
        out(clone, c);
        CUDA_SUCCESS
    }
    // A DOT file of one node per node the graph holds, without edges: enough for a reader to
    // parse, nothing of the driver's own detail.
    fn cuGraphDebugDotPrint(graph: Handle, path: *const c_char, flags: c_uint) {
        check::used(Kind::Graph, graph as usize, "cuGraphDebugDotPrint");
        if path.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let Ok(path) = core::ffi::CStr::from_ptr(path).to_str() else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        let mut dot = format!("digraph graph_{:x} {{\n", graph as usize);
        for i in 0..check::graph_len(graph as usize) {
            use core::fmt::Write as _;
            let _ = writeln!(dot, "  node_{i};");
        }
        dot.push_str("}\n");
        match std::fs::write(path, dot) {
            Ok(()) => CUDA_SUCCESS,
            Err(_) => CUDA_ERROR_OPERATING_SYSTEM,
        }
    }
    fn cuGraphInstantiateWithFlags(exec: *mut Handle, graph: Handle, flags: c_ulonglong) {
        check::used(Kind::Graph, graph as usize, "cuGraphInstantiate");
        let e = handle();
        check::created(Kind::GraphExec, e as usize, 0);
        check::graph_instantiated(e as usize, graph as usize);
        check::kept_instantiated(e as usize, graph as usize, flags & 1 != 0);
        user_object::copied(graph as usize, e as usize, false);
        out(exec, e);
        CUDA_SUCCESS
    }
    fn cuGraphLaunch(exec: Handle, stream: Handle) {
        // Memory a previous launch kept, not freed yet: refused, as the driver does.
        if !check::kept_launch(exec as usize, stream as usize) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        check::enqueue(stream as usize);
        check::used(Kind::GraphExec, exec as usize, "cuGraphLaunch");
        check::used(Kind::Stream, stream as usize, "cuGraphLaunch");
        check::graph_launched(exec as usize, stream as usize);
        CUDA_SUCCESS
    }
    fn cuGraphUpload(exec: Handle, stream: Handle) {
        check::enqueue(stream as usize);
        check::used(Kind::GraphExec, exec as usize, "cuGraphUpload");
        check::used(Kind::Stream, stream as usize, "cuGraphUpload");
        CUDA_SUCCESS
    }
    fn cuGraphExecDestroy(exec: Handle) {
        let _ = check::destroyed(Kind::GraphExec, exec as usize, "cuGraphExecDestroy");
        user_object::owner_destroyed(exec as usize);
        CUDA_SUCCESS
    }
    // An update that changes the node count is refused, as the driver refuses a changed
    // topology (`CUgraphExecUpdateResultInfo`: `result` at 0, the nodes at 8 and 16), and the
    // executable graph is unchanged.
    fn cuGraphExecUpdate_v2(exec: Handle, graph: Handle, info: *mut c_void) {
        check::used(Kind::GraphExec, exec as usize, "cuGraphExecUpdate");
        check::used(Kind::Graph, graph as usize, "cuGraphExecUpdate");
        if !check::update_keeps_topology(exec as usize, graph as usize) {
            if !info.is_null() {
                let info = info.cast::<u8>();
                info.cast::<c_uint>().write_unaligned(UPDATE_ERROR_TOPOLOGY_CHANGED);
                info.add(8).cast::<Handle>().write_unaligned(core::ptr::null_mut());
                info.add(16).cast::<Handle>().write_unaligned(core::ptr::null_mut());
            }
            return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
        }
        check::graph_instantiated(exec as usize, graph as usize);
        user_object::copied(graph as usize, exec as usize, true);
        CUDA_SUCCESS
    }
    // Graphs built node by node: each node's work is kept as if enqueued on a stream capturing
    // into the graph (the graph's handle as its key), in the order the nodes were added, which
    // honours every dependency; a launch enqueues it all again. Event record and wait nodes
    // only check their event.
    fn cuGraphCreate(graph: *mut Handle, flags: c_uint) {
        let g = handle();
        check::graph_created(g as usize);
        out(graph, g);
        CUDA_SUCCESS
    }
    fn cuGraphAddKernelNode_v2(
        node: *mut Handle,
        graph: Handle,
        deps: *const Handle,
        n: usize,
        params: *const c_void,
    ) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddKernelNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if params.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let start = check::building_ops(g);
        // The work goes under `g`: the graph's own, or for a conditional node's body the graph
        // being built that it joins.
        let key = core::ptr::without_provenance_mut(g);
        let r = graph_kernel(params, key, "cuGraphAddKernelNode");
        let r = graph_node_made(node, g, r);
        if r == CUDA_SUCCESS {
            check::kernel_node_made(*node as usize, g, start);
            node_kinds::made(graph as usize, *node as usize, NodeKind::Kernel);
        }
        r
    }
    // A host node: its function is called with its argument at each launch, in the graph's
    // order (as the double runs every node's work, on the launching thread).
    fn cuGraphAddHostNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, params: *const c_void) {
        const WHAT: &str = "cuGraphAddHostNode";
        let Some(g) = check::graph_stream(graph as usize, WHAT) else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if params.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        // CUDA_HOST_NODE_PARAMS: fn, userData.
        let Some(f) = params.cast::<Option<unsafe extern "C" fn(*mut c_void)>>().read_unaligned() else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        let data = params.cast::<u8>().add(8).cast::<*mut c_void>().read_unaligned();
        let start = check::building_ops(g);
        let r = check::data_op(g, &work::DataOp::HostFn { f, data }, WHAT);
        let r = graph_node_made(node, g, r);
        if r == CUDA_SUCCESS {
            // Its span of the graph's work, for `cuGraphExecHostNodeSetParams`.
            check::kernel_node_made(*node as usize, g, start);
            node_kinds::made(graph as usize, *node as usize, NodeKind::Host);
        }
        r
    }
    fn cuUserObjectCreate(
        object: *mut Handle,
        ptr: *mut c_void,
        destroy: Option<unsafe extern "C" fn(*mut c_void)>,
        count: c_uint,
        flags: c_uint,
    ) {
        // CU_USER_OBJECT_NO_DESTRUCTOR_SYNC is required.
        let Some(destroy) = destroy else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if object.is_null() || count == 0 || flags != 1 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let o = handle();
        user_object::created(o as usize, ptr, destroy, count);
        out(object, o);
        CUDA_SUCCESS
    }
    fn cuUserObjectRelease(object: Handle, count: c_uint) {
        if count == 0 || !user_object::released(object as usize, count) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        CUDA_SUCCESS
    }
    fn cuGraphRetainUserObject(graph: Handle, object: Handle, count: c_uint, flags: c_uint) {
        check::used(Kind::Graph, graph as usize, "cuGraphRetainUserObject");
        if count == 0 || flags > 1 || !user_object::retained(graph as usize, object as usize, count, flags == 1) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        CUDA_SUCCESS
    }
    fn cuGraphExecKernelNodeSetParams_v2(exec: Handle, node: Handle, params: *const c_void) {
        const WHAT: &str = "cuGraphExecKernelNodeSetParams";
        check::used(Kind::GraphExec, exec as usize, WHAT);
        if params.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        // The new work is kept as a scratch graph's, then takes the node's place.
        let scratch_graph = handle();
        let scratch = scratch_graph as usize;
        check::graph_created(scratch);
        let r = graph_kernel(params, scratch_graph, WHAT);
        let _ = check::destroyed(Kind::Graph, scratch, WHAT);
        let known = check::kernel_node_set(exec as usize, node as usize, scratch, WHAT);
        if r != CUDA_SUCCESS {
            return r;
        }
        if known { CUDA_SUCCESS } else { CUDA_ERROR_INVALID_VALUE }
    }
    fn cuGraphAddMemcpyNode(
        node: *mut Handle,
        graph: Handle,
        deps: *const Handle,
        n: usize,
        copy: *const c_void,
        ctx: Handle,
    ) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddMemcpyNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::context_named(ctx as usize, "cuGraphAddMemcpyNode");
        let start = check::building_ops(g);
        graph_copy(copy, g);
        let r = graph_node_made(node, g, CUDA_SUCCESS);
        // Its span of the graph's work, for `cuGraphExecMemcpyNodeSetParams`.
        check::kernel_node_made(*node as usize, g, start);
        node_kinds::made(graph as usize, *node as usize, NodeKind::Memcpy);
        r
    }
    fn cuGraphAddMemsetNode(
        node: *mut Handle,
        graph: Handle,
        deps: *const Handle,
        n: usize,
        memset: *const c_void,
        ctx: Handle,
    ) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddMemsetNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::context_named(ctx as usize, "cuGraphAddMemsetNode");
        let start = check::building_ops(g);
        let r = graph_memset(memset, g, "cuGraphAddMemsetNode");
        let r = graph_node_made(node, g, r);
        if r == CUDA_SUCCESS {
            // Its span of the graph's work, for `cuGraphExecMemsetNodeSetParams`.
            check::kernel_node_made(*node as usize, g, start);
            node_kinds::made(graph as usize, *node as usize, NodeKind::Memset);
        }
        r
    }
    // An executable graph's memset or memcpy node updated: the new work is kept as a scratch
    // graph's, then takes the node's place, as for a kernel node.
    fn cuGraphExecMemsetNodeSetParams(exec: Handle, node: Handle, memset: *const c_void, ctx: Handle) {
        const WHAT: &str = "cuGraphExecMemsetNodeSetParams";
        check::used(Kind::GraphExec, exec as usize, WHAT);
        check::context_named(ctx as usize, WHAT);
        let scratch = handle() as usize;
        check::graph_created(scratch);
        let r = graph_memset(memset, scratch, WHAT);
        let _ = check::destroyed(Kind::Graph, scratch, WHAT);
        let known = check::kernel_node_set(exec as usize, node as usize, scratch, WHAT);
        if r != CUDA_SUCCESS {
            return r;
        }
        if known { CUDA_SUCCESS } else { CUDA_ERROR_INVALID_VALUE }
    }
    fn cuGraphExecMemcpyNodeSetParams(exec: Handle, node: Handle, copy: *const c_void, ctx: Handle) {
        const WHAT: &str = "cuGraphExecMemcpyNodeSetParams";
        check::used(Kind::GraphExec, exec as usize, WHAT);
        check::context_named(ctx as usize, WHAT);
        if copy.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let scratch = handle() as usize;
        check::graph_created(scratch);
        graph_copy(copy, scratch);
        let _ = check::destroyed(Kind::Graph, scratch, WHAT);
        if check::kernel_node_set(exec as usize, node as usize, scratch, WHAT) {
            CUDA_SUCCESS
        } else {
            CUDA_ERROR_INVALID_VALUE
        }
    }
    // A kernel, memset or memcpy node of an executable graph enabled or disabled: a disabled
    // node's work is left out of the launches until it is enabled again.
    fn cuGraphNodeSetEnabled(exec: Handle, node: Handle, enabled: c_uint) {
        const WHAT: &str = "cuGraphNodeSetEnabled";
        check::used(Kind::GraphExec, exec as usize, WHAT);
        if !node_kinds::can_be_disabled(node as usize, WHAT) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        if check::node_enabled_set(exec as usize, node as usize, enabled != 0, WHAT) {
            CUDA_SUCCESS
        } else {
            CUDA_ERROR_INVALID_VALUE
        }
    }
    fn cuGraphNodeGetEnabled(exec: Handle, node: Handle, enabled: *mut c_uint) {
        const WHAT: &str = "cuGraphNodeGetEnabled";
        check::used(Kind::GraphExec, exec as usize, WHAT);
        if enabled.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        match check::node_enabled(exec as usize, node as usize, WHAT) {
            Some(on) => {
                out(enabled, c_uint::from(on));
                CUDA_SUCCESS
            }
            None => CUDA_ERROR_INVALID_VALUE,
        }
    }
    fn cuGraphAddEventRecordNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, event: Handle) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddEventRecordNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::used(Kind::Event, event as usize, "cuGraphAddEventRecordNode");
        // The event is used by each launch (live, of the launch's context): its span of the
        // graph's work, for `cuGraphExecEventRecordNodeSetEvent`.
        let start = check::building_ops(g);
        check::enqueued(g, Kind::Event, event as usize);
        let r = graph_node_made(node, g, CUDA_SUCCESS);
        if r == CUDA_SUCCESS {
            check::kernel_node_made(*node as usize, g, start);
            node_kinds::made(graph as usize, *node as usize, NodeKind::EventRecord);
        }
        r
    }
    fn cuGraphAddEventWaitNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, event: Handle) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddEventWaitNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::used_from_any_context(Kind::Event, event as usize, "cuGraphAddEventWaitNode");
        let start = check::building_ops(g);
        let r = graph_node_made(node, g, CUDA_SUCCESS);
        if r == CUDA_SUCCESS {
            // An empty span, for `cuGraphExecEventWaitNodeSetEvent`.
            check::kernel_node_made(*node as usize, g, start);
            node_kinds::made(graph as usize, *node as usize, NodeKind::EventWait);
        }
        r
    }
    fn cuGraphAddChildGraphNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, child: Handle) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddChildGraphNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::used(Kind::Graph, child as usize, "cuGraphAddChildGraphNode");
        let topology = Topology {
            nodes: check::graph_len(child as usize),
            kinds: node_kinds::kinds_of(child as usize),
        };
        // The child is cloned into the node: its nodes' work is the parent's from now on (its
        // span, for `cuGraphExecChildGraphNodeSetParams`).
        let start = check::building_ops(g);
        check::child_added(g, child as usize);
        user_object::copied(child as usize, graph as usize, false);
        let h = handle();
        check::kernel_node_made(h as usize, g, start);
        node_kinds::child_made(graph as usize, h as usize, topology);
        out(node, h);
        CUDA_SUCCESS
    }
    // An executable graph's host node, event nodes and child-graph node updated: the node must
    // be one of the graph the executable graph was made from, of the call's kind; its new work
    // is kept as a scratch graph's, then takes the node's place, as for a kernel node.
    fn cuGraphExecHostNodeSetParams(exec: Handle, node: Handle, params: *const c_void) {
        const WHAT: &str = "cuGraphExecHostNodeSetParams";
        check::used(Kind::GraphExec, exec as usize, WHAT);
        if params.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        // CUDA_HOST_NODE_PARAMS: fn, userData.
        let Some(f) = params.cast::<Option<unsafe extern "C" fn(*mut c_void)>>().read_unaligned() else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        let data = params.cast::<u8>().add(8).cast::<*mut c_void>().read_unaligned();
        if !node_kinds::is(node as usize, NodeKind::Host, WHAT) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let scratch = handle() as usize;
        check::graph_created(scratch);
        let r = check::data_op(scratch, &work::DataOp::HostFn { f, data }, WHAT);
        exec_node_set(exec, node, scratch, r, WHAT)
    }
    // The new graph must keep the node's topology, as far as the double sees it (its node
    // count, and its nodes' kinds where both are built graphs): otherwise the driver's
    // `CUDA_ERROR_INVALID_VALUE`, the node unchanged.
    fn cuGraphExecChildGraphNodeSetParams(exec: Handle, node: Handle, child: Handle) {
        const WHAT: &str = "cuGraphExecChildGraphNodeSetParams";
        check::used(Kind::GraphExec, exec as usize, WHAT);
        check::used(Kind::Graph, child as usize, WHAT);
        if !node_kinds::is(node as usize, NodeKind::Child, WHAT) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let new = Topology {
            nodes: check::graph_len(child as usize),
            kinds: node_kinds::kinds_of(child as usize),
        };
        if node_kinds::child_of(node as usize).is_some_and(|old| !old.kept_by(&new)) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let scratch = handle() as usize;
        check::graph_created(scratch);
        check::child_added(scratch, child as usize);
        exec_node_set(exec, node, scratch, CUDA_SUCCESS, WHAT)
    }
    fn cuGraphExecEventRecordNodeSetEvent(exec: Handle, node: Handle, event: Handle) {
        const WHAT: &str = "cuGraphExecEventRecordNodeSetEvent";
        exec_event_node_set(exec, node, event, NodeKind::EventRecord, WHAT)
    }
    fn cuGraphExecEventWaitNodeSetEvent(exec: Handle, node: Handle, event: Handle) {
        const WHAT: &str = "cuGraphExecEventWaitNodeSetEvent";
        exec_event_node_set(exec, node, event, NodeKind::EventWait, WHAT)
    }
    // A memory allocation node of a graph being built (`CUDA_MEM_ALLOC_NODE_PARAMS`: `bytesize`
    // at 104, `dptr` at 112): memory of the graph's own, as a captured `cuMemAllocAsync` makes,
    // from this node on. Like the driver, no memory node in a conditional node's body.
    fn cuGraphAddMemAllocNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, params: *mut c_void) {
        const WHAT: &str = "cuGraphAddMemAllocNode";
        let Some(g) = check::graph_stream(graph as usize, WHAT) else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if g != graph as usize {
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        if params.is_null() || node.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let at = |offset: usize| params.cast::<u8>().add(offset);
        let bytes = at(104).cast::<usize>().read_unaligned();
        if bytes == 0 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        // `CUDA_MEM_ALLOC_NODE_PARAMS` is 8-byte aligned (its `dptr` an 8-byte field).
        #[allow(clippy::cast_ptr_alignment, reason = "a field of the struct, aligned as it is")]
        let dptr = at(112).cast::<CUdeviceptr>();
        let r = new_address(dptr, bytes);
        check::allocated_on(g, dptr.read());
        graph_node_made(node, g, r)
    }
    // A memory free node: `dptr` must be memory of one of the graph's allocation nodes, not
    // freed yet. Its data stays, for the launches of the nodes before the free node.
    fn cuGraphAddMemFreeNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, dptr: CUdeviceptr) {
        const WHAT: &str = "cuGraphAddMemFreeNode";
        let Some(g) = check::graph_stream(graph as usize, WHAT) else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if g != graph as usize {
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        if node.is_null() || !check::graph_alloc_freed(g, dptr) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        check::freeing(Kind::DeviceMemory, dptr as usize, Some(g), WHAT);
        let _ = check::destroyed(Kind::DeviceMemory, dptr as usize, WHAT);
        graph_node_made(node, g, CUDA_SUCCESS)
    }
    // A conditional node's handle, for a node of `graph` (a graph being built or a body).
    fn cuGraphConditionalHandleCreate(
        handle: *mut u64,
        graph: Handle,
        ctx: Handle,
        default: c_uint,
        flags: c_uint,
    ) {
        const WHAT: &str = "cuGraphConditionalHandleCreate";
        if check::graph_stream(graph as usize, WHAT).is_none() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        check::context_named(ctx as usize, WHAT);
        if handle.is_null() || flags & !1 != 0 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let h = NEXT_CONDITIONAL.fetch_add(1, Relaxed);
        check::conditional_handle_made(h, graph as usize);
        out(handle, h);
        CUDA_SUCCESS
    }
    // A node of any type, as CUDA 12.2 declared it; the double makes only conditional nodes
    // (`CUgraphNodeParams`, 256 bytes: the type at 0; `CUDA_CONDITIONAL_NODE_PARAMS` at 16:
    // handle, type at 24, size at 28, `phGraph_out` at 32, ctx at 40). Their bodies are
    // graphs whose nodes join the work of the graph being built (`check::conditional_bodies`).
    fn cuGraphAddNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, params: *mut c_void) {
        const WHAT: &str = "cuGraphAddNode";
        let Some(g) = check::graph_stream(graph as usize, WHAT) else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if params.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let at = |offset: usize| params.cast::<u8>().add(offset);
        if at(0).cast::<c_uint>().read_unaligned() != 13 {
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        let cond = at(16).cast::<u64>().read_unaligned();
        let kind = at(24).cast::<c_uint>().read_unaligned();
        let size = at(28).cast::<c_uint>().read_unaligned();
        let ctx = at(40).cast::<Handle>().read_unaligned();
        check::context_named(ctx as usize, WHAT);
        // IF with ELSE, and SWITCH: from 12.8.
        let newer = REPORTED_VERSION.load(Relaxed) >= 12080;
        let valid = match kind {
            0 => size == 1 || size == 2 && newer,
            1 => size == 1,
            2 => size >= 1 && newer,
            _ => false,
        };
        if !valid || !check::conditional_handle_taken(cond, graph as usize, WHAT) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        // The array is the node's for its life: kept, as the driver keeps it.
        let bodies: Box<[Handle]> = (0..size).map(|_| handle()).collect();
        let keys: Vec<usize> = bodies.iter().map(|&b| b as usize).collect();
        check::conditional_bodies(g, &keys);
        let mut kept = BODY_ARRAYS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.push(BodyArray(bodies));
        if let Some(array) = kept.last_mut() {
            at(32).cast::<*mut Handle>().write_unaligned(array.0.as_mut_ptr());
        }
        graph_node_made(node, g, CUDA_SUCCESS)
    }
    fn cuGraphAddEmptyNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddEmptyNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        graph_node_made(node, g, CUDA_SUCCESS)
    }
    fn cuGraphAddDependencies(graph: Handle, from: *const Handle, to: *const Handle, n: usize) {
        check::used(Kind::Graph, graph as usize, "cuGraphAddDependencies");
        CUDA_SUCCESS
    }
}

/// `CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED`: why `cuGraphExecUpdate` refused an update.
const UPDATE_ERROR_TOPOLOGY_CHANGED: c_uint = 2;

/// The next conditional handle `cuGraphConditionalHandleCreate` makes.
static NEXT_CONDITIONAL: AtomicU64 = AtomicU64::new(1);

/// The body-graph arrays of the conditional nodes made (`cuGraphAddNode`'s `phGraph_out`):
/// kept for the process, as the driver keeps each while its node lives.
static BODY_ARRAYS: std::sync::Mutex<Vec<BodyArray>> = std::sync::Mutex::new(Vec::new());

/// One conditional node's body graphs (handles: addresses without provenance, never
/// dereferenced).
struct BodyArray(Box<[Handle]>);

// SAFETY: the handles are numbers the double made; nothing is reached through them.
unsafe impl Send for BodyArray {}

/// A kernel node's work (`params` a `CUDA_KERNEL_NODE_PARAMS_v2`), checked as a launch and
/// kept as graph `g`'s.
///
/// # Safety
///
/// `params` points to a `CUDA_KERNEL_NODE_PARAMS_v2` whose `kernelParams` holds the kernel's
/// arguments (the contract of `cuGraphAddKernelNode`).
unsafe fn graph_kernel(params: *const c_void, graph: Handle, what: &str) -> CUresult {
    let g = graph as usize;
    // CUDA_KERNEL_NODE_PARAMS_v2: func, grid and block (6 unsigned), shared, kernelParams.
    // SAFETY: `params` is a `CUDA_KERNEL_NODE_PARAMS_v2` (this function's contract), whose
    // `func` is at 0, its six dimensions and `sharedMemBytes` at 8, its `kernelParams` at 40.
    let f = unsafe { read_field::<Handle>(params, 0) };
    // SAFETY: as above.
    let dim = |i: usize| unsafe { read_field::<c_uint>(params, 8 + 4 * i) };
    let shared = dim(6);
    // SAFETY: as above.
    let kernel_params = unsafe { read_field::<*mut *mut c_void>(params, 40) };
    check::used(Kind::Function, f as usize, what);
    // SAFETY: `kernel_params` holds the kernel's arguments (this function's contract).
    unsafe { check::launched(f as usize, g, kernel_params, what) };
    // SAFETY: as above.
    unsafe {
        run_kernel(
            f,
            [dim(0), dim(1), dim(2)],
            [dim(3), dim(4), dim(5)],
            shared,
            graph,
            kernel_params,
            what,
        )
    }
}

/// An event record or wait node (`kind`) of `exec` takes `event`
/// (`cuGraphExecEventRecordNodeSetEvent`, `cuGraphExecEventWaitNodeSetEvent`): a record names a
/// live event of the current context (the executable graph's), which its launches use; a wait
/// may name another context's event, as `cuStreamWaitEvent` may. A node of the other kind is
/// `CUDA_ERROR_INVALID_VALUE` (a violation).
fn exec_event_node_set(
    exec: Handle,
    node: Handle,
    event: Handle,
    kind: NodeKind,
    what: &str,
) -> CUresult {
    check::used(Kind::GraphExec, exec as usize, what);
    let record = kind == NodeKind::EventRecord;
    if record {
        check::used(Kind::Event, event as usize, what);
    } else {
        check::used_from_any_context(Kind::Event, event as usize, what);
    }
    if !node_kinds::is(node as usize, kind, what) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let scratch = handle() as usize;
    check::graph_created(scratch);
    if record {
        check::enqueued(scratch, Kind::Event, event as usize);
    }
    exec_node_set(exec, node, scratch, CUDA_SUCCESS, what)
}

/// Node `node` of `exec` takes the work scratch graph `scratch` holds (made for the call, with
/// result `r`), which is then forgotten: `r`, else `CUDA_ERROR_INVALID_VALUE` (a violation) for
/// a node that is not one of the graph `exec` was made from.
fn exec_node_set(exec: Handle, node: Handle, scratch: usize, r: CUresult, what: &str) -> CUresult {
    let _ = check::destroyed(Kind::Graph, scratch, what);
    let known = check::kernel_node_set(exec as usize, node as usize, scratch, what);
    if r != CUDA_SUCCESS {
        return r;
    }
    if known {
        CUDA_SUCCESS
    } else {
        CUDA_ERROR_INVALID_VALUE
    }
}

/// A node of graph `g` was made with result `r`: on success it is counted and gets a handle,
/// written to `node`.
///
/// # Safety
///
/// `node` is null or valid for a write of a handle.
unsafe fn graph_node_made(node: *mut Handle, g: usize, r: CUresult) -> CUresult {
    if r == CUDA_SUCCESS {
        check::node_added(g);
        // SAFETY: `node` is null or valid for the write (this function's contract).
        unsafe { out(node, handle()) };
    }
    r
}

/// A memset node's work (`memset` a `CUDA_MEMSET_NODE_PARAMS`) kept under graph `g`.
///
/// # Safety
///
/// `memset` is null or points to a `CUDA_MEMSET_NODE_PARAMS`.
unsafe fn graph_memset(memset: *const c_void, g: usize, what: &str) -> CUresult {
    if memset.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // CUDA_MEMSET_NODE_PARAMS: dst, pitch, value, elementSize, width, height.
    // SAFETY: a non-null `memset` is a `CUDA_MEMSET_NODE_PARAMS` (this function's contract):
    // `dst` at 0, `value` at 16, `elementSize` at 20, `width` at 24, `height` at 32.
    let dst = unsafe { read_field::<CUdeviceptr>(memset, 0) };
    // SAFETY: as above.
    let value = unsafe { read_field::<c_uint>(memset, 16) };
    // SAFETY: as above.
    let size = unsafe { read_field::<c_uint>(memset, 20) } as usize;
    // SAFETY: as above.
    let width = unsafe { read_field::<usize>(memset, 24) };
    // SAFETY: as above.
    let height = unsafe { read_field::<usize>(memset, 32) };
    if !matches!(size, 1 | 2 | 4) || height != 1 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    check::used_span(dst, dst + (width * size) as u64, None, what);
    check::enqueued(g, Kind::DeviceMemory, dst as usize);
    let pattern = value.to_ne_bytes()[..size].to_vec();
    let op = work::DataOp::Fill {
        dst,
        pattern,
        count: width,
    };
    check::data_op(g, &op, what)
}

/// A memcpy node of graph `g` (`copy` a `CUDA_MEMCPY3D`): a contiguous copy between host and
/// device memory is kept as the 1D copy on a stream is (its data moved at each launch), any
/// other shape is checked as a 3D copy.
///
/// # Safety
///
/// `copy` is null or points to a `CUDA_MEMCPY3D` whose host sides are valid for the copy.
unsafe fn graph_copy(copy: *const c_void, g: usize) {
    const WHAT: &str = "cuGraphAddMemcpyNode";
    if copy.is_null() {
        return;
    }
    // SAFETY: a non-null `copy` is a `CUDA_MEMCPY3D` (this function's contract).
    let (src, dst, [width, height, depth]) = unsafe { copy_desc(copy, Shape::ThreeD) };
    let plain = |s: &Side| s.x == 0 && s.y == 0 && s.z == 0;
    if height != 1 || depth != 1 || !plain(&src) || !plain(&dst) {
        // SAFETY: as above.
        unsafe { copy_used(copy, Shape::ThreeD, Some(g), WHAT) };
        return;
    }
    let bytes = width;
    let device = |p: u64| {
        check::used_span(p, p + bytes as u64, None, WHAT);
        check::enqueued(g, Kind::DeviceMemory, p as usize);
    };
    match (src.memory_type, dst.memory_type) {
        (1, 2) => {
            device(dst.device);
            check::enqueued(g, Kind::HostMemory, src.host as usize);
            check::host_enqueued(g, src.host, bytes, false, 0);
            let op = work::DataOp::FromHost {
                dst: dst.device,
                src: src.host.cast_const(),
                bytes,
            };
            check::data_op(g, &op, WHAT);
        }
        (2, 1) => {
            device(src.device);
            check::enqueued(g, Kind::HostMemory, dst.host as usize);
            check::host_enqueued(g, dst.host, bytes, true, src.device);
        }
        (2, 2) => {
            device(src.device);
            device(dst.device);
            let op = work::DataOp::Copy {
                dst: dst.device,
                src: src.device,
                bytes,
            };
            check::data_op(g, &op, WHAT);
        }
        // SAFETY: as above.
        _ => unsafe { copy_used(copy, Shape::ThreeD, Some(g), WHAT) },
    }
}
