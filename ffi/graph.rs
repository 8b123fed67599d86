//! Mirrors cuda.h "Graph Management" (group__CUDA__GRAPH).

use super::types::{
    CUDA_KERNEL_NODE_PARAMS_v2, CUDA_MEM_ALLOC_NODE_PARAMS, CUDA_MEMCPY3D, CUDA_MEMSET_NODE_PARAMS,
    CUcontext, CUdeviceptr, CUevent, CUgraph, CUgraphExec, CUgraphExecUpdateResultInfo,
    CUgraphNode, CUresult, CUstream,
};
use core::ffi::{c_char, c_int, c_uint, c_ulonglong};

link_or_stub! {
    libcuda;
    /// Creates an empty graph (`flags` must be 0).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphCreate(phGraph: *mut CUgraph, flags: c_uint) -> CUresult;
    /// Adds a kernel node after `numDependencies` nodes of the graph; the parameters are copied
    /// (`cuGraphAddKernelNode` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddKernelNode_v2(
        phGraphNode: *mut CUgraphNode,
        hGraph: CUgraph,
        dependencies: *const CUgraphNode,
        numDependencies: usize,
        nodeParams: *const CUDA_KERNEL_NODE_PARAMS_v2,
    ) -> CUresult;
    /// Adds a memcpy node, its copy run in context `ctx`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddMemcpyNode(
        phGraphNode: *mut CUgraphNode,
        hGraph: CUgraph,
        dependencies: *const CUgraphNode,
        numDependencies: usize,
        copyParams: *const CUDA_MEMCPY3D,
        ctx: CUcontext,
    ) -> CUresult;
    /// Adds a memset node, its memset run in context `ctx`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddMemsetNode(
        phGraphNode: *mut CUgraphNode,
        hGraph: CUgraph,
        dependencies: *const CUgraphNode,
        numDependencies: usize,
        memsetParams: *const CUDA_MEMSET_NODE_PARAMS,
        ctx: CUcontext,
    ) -> CUresult;
    /// Adds a node that records `event`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddEventRecordNode(
        phGraphNode: *mut CUgraphNode,
        hGraph: CUgraph,
        dependencies: *const CUgraphNode,
        numDependencies: usize,
        event: CUevent,
    ) -> CUresult;
    /// Adds a node that waits for `event`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddEventWaitNode(
        phGraphNode: *mut CUgraphNode,
        hGraph: CUgraph,
        dependencies: *const CUgraphNode,
        numDependencies: usize,
        event: CUevent,
    ) -> CUresult;
    /// Adds an empty node (no work: a join of its dependencies) after `numDependencies` nodes.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddEmptyNode(
        phGraphNode: *mut CUgraphNode,
        hGraph: CUgraph,
        dependencies: *const CUgraphNode,
        numDependencies: usize,
    ) -> CUresult;
    /// Adds a node that runs a copy of `childGraph` (cloned when the node is made).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddChildGraphNode(
        phGraphNode: *mut CUgraphNode,
        hGraph: CUgraph,
        dependencies: *const CUgraphNode,
        numDependencies: usize,
        childGraph: CUgraph,
    ) -> CUresult;
    /// Adds a memory allocation node: the driver fills in `nodeParams.dptr`, the address of
    /// memory that exists from this node until a free node of it, in graph order.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddMemAllocNode(
        phGraphNode: *mut CUgraphNode,
        hGraph: CUgraph,
        dependencies: *const CUgraphNode,
        numDependencies: usize,
        nodeParams: *mut CUDA_MEM_ALLOC_NODE_PARAMS,
    ) -> CUresult;
    /// Adds a memory free node of `dptr`, an allocation of an allocation node of the graph.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddMemFreeNode(
        phGraphNode: *mut CUgraphNode,
        hGraph: CUgraph,
        dependencies: *const CUgraphNode,
        numDependencies: usize,
        dptr: CUdeviceptr,
    ) -> CUresult;
    /// Adds the edges `from[i]` -> `to[i]` between nodes of the graph.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddDependencies(
        hGraph: CUgraph,
        from: *const CUgraphNode,
        to: *const CUgraphNode,
        numDependencies: usize,
    ) -> CUresult;
    /// Sets the parameters of an executable graph's kernel node, named by its node in the graph
    /// the executable graph was made from, for the next launches; the parameters are copied
    /// (`cuGraphExecKernelNodeSetParams` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecKernelNodeSetParams_v2(
        hGraphExec: CUgraphExec,
        hNode: CUgraphNode,
        nodeParams: *const CUDA_KERNEL_NODE_PARAMS_v2,
    ) -> CUresult;
    /// Sets the parameters of an executable graph's memcpy node (1D copies only, the same
    /// memory types and contexts as the node's), named by its node in the graph the executable
    /// graph was made from, for the next launches.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecMemcpyNodeSetParams(
        hGraphExec: CUgraphExec,
        hNode: CUgraphNode,
        copyParams: *const CUDA_MEMCPY3D,
        ctx: CUcontext,
    ) -> CUresult;
    /// Enables or disables a kernel, memset or memcpy node of an executable graph, named by
    /// its node in the graph the executable graph was made from, for the next launches (a
    /// disabled node runs as an empty node; its parameters are kept).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphNodeSetEnabled(
        hGraphExec: CUgraphExec,
        hNode: CUgraphNode,
        isEnabled: c_uint,
    ) -> CUresult;
    /// Whether a kernel, memset or memcpy node of an executable graph, named by its node in
    /// the graph the executable graph was made from, is enabled (1) or disabled (0).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphNodeGetEnabled(
        hGraphExec: CUgraphExec,
        hNode: CUgraphNode,
        isEnabled: *mut c_uint,
    ) -> CUresult;
    /// Sets the parameters of an executable graph's memset node (1D, device memory of the
    /// node's context), named by its node in the graph the executable graph was made from.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecMemsetNodeSetParams(
        hGraphExec: CUgraphExec,
        hNode: CUgraphNode,
        memsetParams: *const CUDA_MEMSET_NODE_PARAMS,
        ctx: CUcontext,
    ) -> CUresult;
    /// Sets the graph an executable graph's child-graph node runs, named by its node in the
    /// graph the executable graph was made from, for the next launches: `childGraph` must have
    /// the topology and node insertion order of the node's graph (the driver copies its nodes'
    /// parameters; `CUDA_ERROR_INVALID_VALUE` otherwise).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecChildGraphNodeSetParams(
        hGraphExec: CUgraphExec,
        hNode: CUgraphNode,
        childGraph: CUgraph,
    ) -> CUresult;
    /// Sets the event an executable graph's event record node records, named by its node in
    /// the graph the executable graph was made from, for the next launches.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecEventRecordNodeSetEvent(
        hGraphExec: CUgraphExec,
        hNode: CUgraphNode,
        event: CUevent,
    ) -> CUresult;
    /// Sets the event an executable graph's event wait node waits for, named by its node in
    /// the graph the executable graph was made from, for the next launches.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecEventWaitNodeSetEvent(
        hGraphExec: CUgraphExec,
        hNode: CUgraphNode,
        event: CUevent,
    ) -> CUresult;
    /// Writes a DOT description of a graph to the file at `path` (a C string), in as much
    /// detail as `flags` (`CU_GRAPH_DEBUG_DOT_FLAGS_*`) asks.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphDebugDotPrint(hGraph: CUgraph, path: *const c_char, flags: c_uint) -> CUresult;
    /// Clones a graph: a new graph with the same nodes, parameters and edges.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphClone(phGraphClone: *mut CUgraph, originalGraph: CUgraph) -> CUresult;
    /// Returns the type of a node (a `CU_GRAPH_NODE_TYPE_*`).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphNodeGetType(hNode: CUgraphNode, type_: *mut CUgraphNodeType) -> CUresult;
    /// Destroys a graph.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphDestroy(hGraph: CUgraph) -> CUresult;
    /// Returns a graph's nodes (`numNodes` in: capacity of `nodes`, or 0 with null `nodes` to
    /// count; out: the count).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphGetNodes(
        hGraph: CUgraph,
        nodes: *mut CUgraphNode,
        numNodes: *mut usize,
    ) -> CUresult;
    /// Creates an executable graph from a graph (`cuGraphInstantiate` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphInstantiateWithFlags(
        phGraphExec: *mut CUgraphExec,
        hGraph: CUgraph,
        flags: c_ulonglong,
    ) -> CUresult;
    /// Launches an executable graph in a stream.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphLaunch(hGraphExec: CUgraphExec, hStream: CUstream) -> CUresult;
    /// Uploads an executable graph to the device in a stream without running it; later
    /// launches of it are ordered after the upload.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphUpload(hGraphExec: CUgraphExec, hStream: CUstream) -> CUresult;
    /// Destroys an executable graph.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecDestroy(hGraphExec: CUgraphExec) -> CUresult;
    /// Updates an executable graph with the parameters of a graph of the same topology
    /// (`cuGraphExecUpdate` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecUpdate_v2(
        hGraphExec: CUgraphExec,
        hGraph: CUgraph,
        resultInfo: *mut CUgraphExecUpdateResultInfo,
    ) -> CUresult;
}

/// `CUgraphDebugDot_flags`: what [`cuGraphDebugDotPrint`] writes beyond the nodes and edges.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE: c_uint = 1 << 0;
/// Adds each node's runtime (`cuda*`) type.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES: c_uint = 1 << 1;
/// Adds kernel nodes' parameters.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_PARAMS: c_uint = 1 << 2;
/// Adds memcpy nodes' parameters.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_MEMCPY_NODE_PARAMS: c_uint = 1 << 3;
/// Adds memset nodes' parameters.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_MEMSET_NODE_PARAMS: c_uint = 1 << 4;
/// Adds host nodes' parameters.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_HOST_NODE_PARAMS: c_uint = 1 << 5;
/// Adds event record and wait nodes' parameters.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_EVENT_NODE_PARAMS: c_uint = 1 << 6;
/// Adds kernel nodes' launch attributes.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_ATTRIBUTES: c_uint = 1 << 9;
/// Adds the node and graph handles.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES: c_uint = 1 << 10;
/// Adds memory allocation nodes' parameters.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_MEM_ALLOC_NODE_PARAMS: c_uint = 1 << 11;
/// Adds memory free nodes' parameters.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_MEM_FREE_NODE_PARAMS: c_uint = 1 << 12;
/// Numbers the edges.
pub const CU_GRAPH_DEBUG_DOT_FLAGS_EXTRA_TOPO_INFO: c_uint = 1 << 14;
/// Adds conditional nodes' parameters (CUDA 12.3).
pub const CU_GRAPH_DEBUG_DOT_FLAGS_CONDITIONAL_NODE_PARAMS: c_uint = 1 << 15;

// ---------------------------------------------------------------------------------------------
// Conditional nodes (CUDA 12.3; IF with an ELSE body and SWITCH: CUDA 12.8). The handle and the
// node are made through entry points looked up, not linked (`entry_point.rs`:
// `PFN_cuGraphConditionalHandleCreate`, `PFN_cuGraphAddNode`).

/// `CUgraphConditionalHandle`: the handle of a conditional node's condition value, a 64-bit
/// integer that device code passes to `cudaGraphSetConditional`.
pub type CUgraphConditionalHandle = c_ulonglong;

/// `CU_GRAPH_COND_ASSIGN_DEFAULT`: the handle's default value is assigned at the start of each
/// launch of the executable graph.
pub const CU_GRAPH_COND_ASSIGN_DEFAULT: c_uint = 0x1;

/// `CUgraphConditionalNodeType`: what a conditional node does with its body graphs.
pub type CUgraphConditionalNodeType = c_uint;
/// Body 0 runs once if the condition is non-zero; with `size == 2` (CUDA 12.8), body 1 runs if
/// it is zero.
pub const CU_GRAPH_COND_TYPE_IF: CUgraphConditionalNodeType = 0;
/// Body 0 runs again and again while the condition is non-zero (checked before each run).
pub const CU_GRAPH_COND_TYPE_WHILE: CUgraphConditionalNodeType = 1;
/// Body `n` runs once, `n` the condition; none if `n >= size` (CUDA 12.8).
pub const CU_GRAPH_COND_TYPE_SWITCH: CUgraphConditionalNodeType = 2;

/// `CUgraphNodeType`: the kind of a node; custack makes only conditional nodes through
/// `cuGraphAddNode`.
pub type CUgraphNodeType = c_uint;
/// `CU_GRAPH_NODE_TYPE_KERNEL`.
pub const CU_GRAPH_NODE_TYPE_KERNEL: CUgraphNodeType = 0;
/// `CU_GRAPH_NODE_TYPE_MEMCPY`.
pub const CU_GRAPH_NODE_TYPE_MEMCPY: CUgraphNodeType = 1;
/// `CU_GRAPH_NODE_TYPE_MEMSET`.
pub const CU_GRAPH_NODE_TYPE_MEMSET: CUgraphNodeType = 2;
/// `CU_GRAPH_NODE_TYPE_HOST`.
pub const CU_GRAPH_NODE_TYPE_HOST: CUgraphNodeType = 3;
/// `CU_GRAPH_NODE_TYPE_GRAPH`: a child graph.
pub const CU_GRAPH_NODE_TYPE_GRAPH: CUgraphNodeType = 4;
/// `CU_GRAPH_NODE_TYPE_EMPTY`.
pub const CU_GRAPH_NODE_TYPE_EMPTY: CUgraphNodeType = 5;
/// `CU_GRAPH_NODE_TYPE_WAIT_EVENT`.
pub const CU_GRAPH_NODE_TYPE_WAIT_EVENT: CUgraphNodeType = 6;
/// `CU_GRAPH_NODE_TYPE_EVENT_RECORD`.
pub const CU_GRAPH_NODE_TYPE_EVENT_RECORD: CUgraphNodeType = 7;
/// `CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL`.
pub const CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL: CUgraphNodeType = 8;
/// `CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT`.
pub const CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT: CUgraphNodeType = 9;
/// `CU_GRAPH_NODE_TYPE_MEM_ALLOC`.
pub const CU_GRAPH_NODE_TYPE_MEM_ALLOC: CUgraphNodeType = 10;
/// `CU_GRAPH_NODE_TYPE_MEM_FREE`.
pub const CU_GRAPH_NODE_TYPE_MEM_FREE: CUgraphNodeType = 11;
/// `CU_GRAPH_NODE_TYPE_BATCH_MEM_OP`.
pub const CU_GRAPH_NODE_TYPE_BATCH_MEM_OP: CUgraphNodeType = 12;
/// `CU_GRAPH_NODE_TYPE_CONDITIONAL`.
pub const CU_GRAPH_NODE_TYPE_CONDITIONAL: CUgraphNodeType = 13;

/// `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`: the graph's unfreed allocations are freed
/// before each launch.
pub const CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH: c_ulonglong = 1;
/// `CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD`: uploaded when instantiated (with
/// `cuGraphInstantiateWithParams` and its upload stream only).
pub const CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD: c_ulonglong = 2;
/// `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH`: launchable from the device.
pub const CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH: c_ulonglong = 4;
/// `CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY`: kernel nodes run at their own priority
/// attribute rather than the launch stream's.
pub const CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY: c_ulonglong = 8;

/// `CUDA_CONDITIONAL_NODE_PARAMS`: a conditional node's handle, type and bodies.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_CONDITIONAL_NODE_PARAMS {
    /// The handle, made before the node with `cuGraphConditionalHandleCreate` on the graph the
    /// node is added to.
    pub handle: CUgraphConditionalHandle,
    /// `CU_GRAPH_COND_TYPE_*`.
    pub type_: CUgraphConditionalNodeType,
    /// The number of body graphs: 1 for WHILE, 1 or 2 for IF, at least 1 for SWITCH.
    pub size: c_uint,
    /// Out: an array of `size` body graphs, owned by the driver, valid while the node lives.
    pub phGraph_out: *mut CUgraph,
    /// The context the node runs in: the handle's, and every body node's.
    pub ctx: CUcontext,
}
const _: () = assert!(
    size_of::<CUDA_CONDITIONAL_NODE_PARAMS>() == 32
        && align_of::<CUDA_CONDITIONAL_NODE_PARAMS>() == 8
);

/// The union of `CUgraphNodeParams`: the parameters of one node type (custack writes only the
/// conditional member; the others are the reserved 29 words).
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUgraphNodeParams_params {
    /// `CU_GRAPH_NODE_TYPE_CONDITIONAL`.
    pub conditional: CUDA_CONDITIONAL_NODE_PARAMS,
    /// The union's size: 29 eight-byte words.
    pub reserved1: [i64; 29],
}

/// `CUgraphNodeParams` (CUDA 12.2): a node of any type, for `cuGraphAddNode`: 256 bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUgraphNodeParams {
    /// `CUgraphNodeType`.
    pub type_: CUgraphNodeType,
    /// Must be zero.
    pub reserved0: [c_int; 3],
    /// The type's parameters.
    pub params: CUgraphNodeParams_params,
    /// Must be zero.
    pub reserved2: i64,
}
static_assertions::assert_eq_size!(CUgraphNodeParams, [u8; 256]);
static_assertions::assert_eq_align!(CUgraphNodeParams, u64);
const _: () = assert!(core::mem::offset_of!(CUgraphNodeParams, params) == 16);
const _: () = assert!(core::mem::offset_of!(CUgraphNodeParams, reserved2) == 248);

/// `CUDA_HOST_NODE_PARAMS`: a host node's function and the pointer it is called with.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types, non_snake_case)]
pub struct CUDA_HOST_NODE_PARAMS {
    /// The function the driver calls, on a thread of its own, at each launch.
    pub fn_: super::launch::CUhostFn,
    /// Its argument.
    pub userData: *mut core::ffi::c_void,
}

/// `CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`: the only flag `cuUserObjectCreate` takes (the
/// destructor is not waited for by any CUDA call).
pub const CU_USER_OBJECT_NO_DESTRUCTOR_SYNC: c_uint = 1;
/// `CU_GRAPH_USER_OBJECT_MOVE`: `cuGraphRetainUserObject` moves the caller's references to the
/// graph instead of making new ones.
pub const CU_GRAPH_USER_OBJECT_MOVE: c_uint = 1;

link_or_stub! {
    libcuda;
    /// Adds a host node: the driver calls `nodeParams.fn_(nodeParams.userData)` at each launch,
    /// on a thread of its own, in the graph's order.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphAddHostNode(
        phGraphNode: *mut CUgraphNode,
        hGraph: CUgraph,
        dependencies: *const CUgraphNode,
        numDependencies: usize,
        nodeParams: *const CUDA_HOST_NODE_PARAMS,
    ) -> CUresult;
    /// Sets the function and argument of an executable graph's host node, named by its node in
    /// the graph the executable graph was made from, for the next launches (the parameters are
    /// copied; what `userData` points to is the caller's to keep alive).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecHostNodeSetParams(
        hGraphExec: CUgraphExec,
        hNode: CUgraphNode,
        nodeParams: *const CUDA_HOST_NODE_PARAMS,
    ) -> CUresult;
    /// Creates a user object around `ptr` with `initialRefcount` references held by the
    /// caller; `destroy(ptr)` runs, on a driver thread, when the last reference goes.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuUserObjectCreate(
        object_out: *mut super::types::CUuserObject,
        ptr: *mut core::ffi::c_void,
        destroy: super::launch::CUhostFn,
        initialRefcount: c_uint,
        flags: c_uint,
    ) -> CUresult;
    /// Releases `count` of the caller's references to a user object.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuUserObjectRelease(object: super::types::CUuserObject, count: c_uint) -> CUresult;
    /// Gives `graph` `count` references to a user object (moved from the caller's with
    /// `CU_GRAPH_USER_OBJECT_MOVE`); executable graphs made from the graph, its clones and
    /// executable graphs updated from it hold references of their own.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphRetainUserObject(
        graph: CUgraph,
        object: super::types::CUuserObject,
        count: c_uint,
        flags: c_uint,
    ) -> CUresult;
}
