//! Mirrors cuda.h "Driver Entry Point Access" (group__CUDA__DRIVER__ENTRY__POINT), and lists the
//! entry points custack *looks up* through it rather than links.
//!
//! Linked: every `fn` in an `unsafe extern "C"` block of `ffi/`, each exported by drivers 535 and
//! 580 (`tests/symbols.rs` checks the linked library). Looked up: the `PFN_*` function-pointer
//! types below, entry points newer than driver 535 (CUDA 12.2), each with the CUDA version that
//! introduced it (`*_VERSION`, in `cuDriverGetVersion`'s encoding: 12050 is 12.5). custack
//! resolves them with `cuGetProcAddress_v2` on first use, once per process, and reports
//! "needs driver ≥ X.Y" on an older driver; linking them would keep custack from loading there.

use super::graph::{CUgraphConditionalHandle, CUgraphNodeParams};
use super::types::{
    CUarray, CUcontext, CUctxCreateParams, CUdevResource, CUdevResourceDesc, CUdevResourceType,
    CUdevice, CUdeviceptr, CUevent, CUfunction, CUgraph, CUgraphNode, CUgreenCtx, CUmemLocation,
    CUmodule, CUresult, CUstream, CUstreamCaptureMode,
};
use core::ffi::{c_char, c_int, c_ulonglong, c_void};
use core::ffi::{c_uint, c_void as void};

/// `CUdriverProcAddressQueryResult`: what `cuGetProcAddress_v2` found.
pub type CUdriverProcAddressQueryResult = c_int;
/// The symbol was found.
pub const CU_GET_PROC_ADDRESS_SUCCESS: CUdriverProcAddressQueryResult = 0;
/// The driver does not know the symbol.
pub const CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND: CUdriverProcAddressQueryResult = 1;
/// The symbol exists, but not at the CUDA version asked for.
pub const CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: CUdriverProcAddressQueryResult = 2;

/// `CUdriverProcAddress_flags`: the default stream semantics of the returned function.
pub const CU_GET_PROC_ADDRESS_DEFAULT: c_ulonglong = 0;

link_or_stub! {
    libcuda;
    /// Returns the requested driver API function pointer (`cuGetProcAddress` maps here in
    /// CUDA 12).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DRIVER__ENTRY__POINT.html>
    pub fn cuGetProcAddress_v2(
        symbol: *const c_char,
        pfn: *mut *mut c_void,
        cudaVersion: c_int,
        flags: c_ulonglong,
        symbolStatus: *mut CUdriverProcAddressQueryResult,
    ) -> CUresult;
}

// ---------------------------------------------------------------------------------------------
// Looked up (cuda.h order within each group).

/// `cuFuncGetParamInfo` (Execution Control): a kernel parameter's offset and size. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
pub type PFN_cuFuncGetParamInfo = unsafe extern "C" fn(
    func: CUfunction,
    paramIndex: usize,
    paramOffset: *mut usize,
    paramSize: *mut usize,
) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuFuncGetParamInfo_VERSION: c_int = 12040;

/// `cuFuncLoad` (Execution Control): loads a function that lazy loading has not loaded yet.
/// Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
pub type PFN_cuFuncLoad = unsafe extern "C" fn(function: CUfunction) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuFuncLoad_VERSION: c_int = 12040;

/// `cuFuncGetParamCount` (Execution Control): the number of a kernel's parameters. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
pub type PFN_cuFuncGetParamCount =
    unsafe extern "C" fn(func: CUfunction, paramCount: *mut usize) -> CUresult;
/// CUDA 13.2.
pub const PFN_cuFuncGetParamCount_VERSION: c_int = 13020;

/// `cuCtxCreate_v4` (Context Management): creates a context with parameters (execution
/// affinity, CUDA-in-graphics). Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
pub type PFN_cuCtxCreate_v4 = unsafe extern "C" fn(
    pctx: *mut CUcontext,
    ctxCreateParams: *mut CUctxCreateParams,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult;
/// CUDA 12.5.
pub const PFN_cuCtxCreate_v4_VERSION: c_int = 12050;

/// `cuCtxRecordEvent` (Context Management): records an event capturing all work of a context so
/// far, on every stream. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
pub type PFN_cuCtxRecordEvent = unsafe extern "C" fn(hCtx: CUcontext, hEvent: CUevent) -> CUresult;
/// CUDA 12.5.
pub const PFN_cuCtxRecordEvent_VERSION: c_int = 12050;

/// `cuCtxWaitEvent` (Context Management): makes all future work of a context wait for an event.
/// Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
pub type PFN_cuCtxWaitEvent = unsafe extern "C" fn(hCtx: CUcontext, hEvent: CUevent) -> CUresult;
/// CUDA 12.5.
pub const PFN_cuCtxWaitEvent_VERSION: c_int = 12050;

/// `cuDeviceGetDevResource` (Green Contexts): a device's resource of a kind. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
pub type PFN_cuDeviceGetDevResource = unsafe extern "C" fn(
    device: CUdevice,
    resource: *mut CUdevResource,
    type_: CUdevResourceType,
) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuDeviceGetDevResource_VERSION: c_int = 12040;

/// `cuCtxGetDevResource` (Green Contexts): a context's resource of a kind (a green context's
/// partition, for the `CUcontext` that stands for it). Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
pub type PFN_cuCtxGetDevResource = unsafe extern "C" fn(
    hCtx: CUcontext,
    resource: *mut CUdevResource,
    type_: CUdevResourceType,
) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuCtxGetDevResource_VERSION: c_int = 12040;

/// `cuDevSmResourceSplitByCount` (Green Contexts): splits an SM resource into groups of at
/// least `minCount` SMs. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
pub type PFN_cuDevSmResourceSplitByCount = unsafe extern "C" fn(
    result: *mut CUdevResource,
    nbGroups: *mut c_uint,
    input: *const CUdevResource,
    remaining: *mut CUdevResource,
    useFlags: c_uint,
    minCount: c_uint,
) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuDevSmResourceSplitByCount_VERSION: c_int = 12040;

/// `cuDevResourceGenerateDesc` (Green Contexts): a descriptor of resources for
/// `cuGreenCtxCreate`. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
pub type PFN_cuDevResourceGenerateDesc = unsafe extern "C" fn(
    phDesc: *mut CUdevResourceDesc,
    resources: *mut CUdevResource,
    nbResources: c_uint,
) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuDevResourceGenerateDesc_VERSION: c_int = 12040;

/// `cuGreenCtxCreate` (Green Contexts): a green context over a resource descriptor. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
pub type PFN_cuGreenCtxCreate = unsafe extern "C" fn(
    phCtx: *mut CUgreenCtx,
    desc: CUdevResourceDesc,
    dev: CUdevice,
    flags: c_uint,
) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuGreenCtxCreate_VERSION: c_int = 12040;

/// `cuGreenCtxDestroy` (Green Contexts). Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
pub type PFN_cuGreenCtxDestroy = unsafe extern "C" fn(hCtx: CUgreenCtx) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuGreenCtxDestroy_VERSION: c_int = 12040;

/// `cuCtxFromGreenCtx` (Green Contexts): the `CUcontext` that stands for a green context.
/// Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
pub type PFN_cuCtxFromGreenCtx =
    unsafe extern "C" fn(pContext: *mut CUcontext, hCtx: CUgreenCtx) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuCtxFromGreenCtx_VERSION: c_int = 12040;

/// `cuGreenCtxStreamCreate` (Green Contexts): a stream whose work runs on a green context's
/// SMs; `flags` must be `CU_STREAM_NON_BLOCKING`. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
pub type PFN_cuGreenCtxStreamCreate = unsafe extern "C" fn(
    phStream: *mut CUstream,
    greenCtx: CUgreenCtx,
    flags: c_uint,
    priority: c_int,
) -> CUresult;
/// CUDA 12.5.
pub const PFN_cuGreenCtxStreamCreate_VERSION: c_int = 12050;

/// `CUlogLevel` (Error Log Management).
pub type CUlogLevel = c_int;
/// An error.
pub const CU_LOG_LEVEL_ERROR: CUlogLevel = 0;
/// A warning.
pub const CU_LOG_LEVEL_WARNING: CUlogLevel = 1;

/// `CUlogsCallback`: receives each driver log message (not NUL-terminated: `length` bytes).
pub type CUlogsCallback = Option<
    unsafe extern "C" fn(
        data: *mut void,
        logLevel: CUlogLevel,
        message: *mut c_char,
        length: usize,
    ),
>;

/// `CUlogsCallbackHandle`: a registered callback.
pub type CUlogsCallbackHandle = *mut void;

/// `cuLogsRegisterCallback` (Error Log Management): registers a callback for the driver's
/// error log messages. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LOGS.html>
pub type PFN_cuLogsRegisterCallback = unsafe extern "C" fn(
    callbackFunc: CUlogsCallback,
    userData: *mut void,
    callback_out: *mut CUlogsCallbackHandle,
) -> CUresult;
/// CUDA 12.9.
pub const PFN_cuLogsRegisterCallback_VERSION: c_int = 12090;

/// `cuModuleGetFunctionCount` (Module Management): how many functions a module has. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
pub type PFN_cuModuleGetFunctionCount =
    unsafe extern "C" fn(count: *mut c_uint, mod_: CUmodule) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuModuleGetFunctionCount_VERSION: c_int = 12040;

/// `cuModuleEnumerateFunctions` (Module Management): a module's function handles. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
pub type PFN_cuModuleEnumerateFunctions = unsafe extern "C" fn(
    functions: *mut CUfunction,
    numFunctions: c_uint,
    mod_: CUmodule,
) -> CUresult;
/// CUDA 12.4.
pub const PFN_cuModuleEnumerateFunctions_VERSION: c_int = 12040;

/// `cuFuncGetName` (Execution Control): a function's name (owned by the driver). Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
pub type PFN_cuFuncGetName =
    unsafe extern "C" fn(name: *mut *const c_char, hfunc: CUfunction) -> CUresult;
/// CUDA 12.3.
pub const PFN_cuFuncGetName_VERSION: c_int = 12030;

/// `cuGraphAddNode` (Graph Management), as CUDA 12.2 declared it (no edge data): adds a node
/// of any type after `numDependencies` nodes; custack makes conditional nodes with it (the
/// driver's only way to). Looked up at CUDA 12.2, whose signature this is: at 12.3 the name
/// selects `cuGraphAddNode_v2`, which takes edge data too.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
pub type PFN_cuGraphAddNode = unsafe extern "C" fn(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *mut CUgraphNodeParams,
) -> CUresult;
/// CUDA 12.2.
pub const PFN_cuGraphAddNode_VERSION: c_int = 12020;

/// `cuGraphConditionalHandleCreate` (Graph Management): makes the handle of a conditional
/// node's condition for a node of `hGraph`, with a default value assigned at each launch when
/// `flags` has `CU_GRAPH_COND_ASSIGN_DEFAULT`. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
pub type PFN_cuGraphConditionalHandleCreate = unsafe extern "C" fn(
    pHandle_out: *mut CUgraphConditionalHandle,
    hGraph: CUgraph,
    ctx: CUcontext,
    defaultLaunchValue: c_uint,
    flags: c_uint,
) -> CUresult;
/// CUDA 12.3.
pub const PFN_cuGraphConditionalHandleCreate_VERSION: c_int = 12030;

/// `cuStreamBeginCaptureToGraph` (Stream Management): begins a capture on `hStream` whose work
/// becomes nodes of the existing graph `hGraph` (a graph being built, or a conditional node's
/// body) after `numDependencies` of its nodes, `dependencyData` null for default edges. Ended
/// by `cuStreamEndCapture`, which returns `hGraph` itself. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
pub type PFN_cuStreamBeginCaptureToGraph = unsafe extern "C" fn(
    hStream: CUstream,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    dependencyData: *const c_void,
    numDependencies: usize,
    mode: CUstreamCaptureMode,
) -> CUresult;
/// CUDA 12.3.
pub const PFN_cuStreamBeginCaptureToGraph_VERSION: c_int = 12030;

/// `CUmemcpySrcAccessOrder` (Memory Management): when a batched copy may read its source.
pub type CUmemcpySrcAccessOrder = c_int;
/// Invalid (the zero value).
pub const CU_MEMCPY_SRC_ACCESS_ORDER_INVALID: CUmemcpySrcAccessOrder = 0x0;
/// The source is read in stream order.
pub const CU_MEMCPY_SRC_ACCESS_ORDER_STREAM: CUmemcpySrcAccessOrder = 0x1;
/// The source may be read out of stream order, all reads done before the call returns.
pub const CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL: CUmemcpySrcAccessOrder = 0x2;
/// The source may be read out of stream order, also after the call returns.
pub const CU_MEMCPY_SRC_ACCESS_ORDER_ANY: CUmemcpySrcAccessOrder = 0x3;

/// `CUmemcpyFlags`: none.
pub const CU_MEMCPY_FLAG_DEFAULT: c_uint = 0x0;
/// `CUmemcpyFlags`: prefer copy engines' overlap with compute work.
pub const CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE: c_uint = 0x1;

/// `CUmemcpyAttributes` (`CUmemcpyAttributes_v1`, CUDA 12.8): the attributes of the copies of a
/// batch that it applies to.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUmemcpyAttributes {
    /// `CUmemcpySrcAccessOrder`.
    pub srcAccessOrder: CUmemcpySrcAccessOrder,
    /// Where the source should be, for managed or pageable memory (ignored otherwise).
    pub srcLocHint: CUmemLocation,
    /// Where the destination should be, for managed or pageable memory (ignored otherwise).
    pub dstLocHint: CUmemLocation,
    /// `CUmemcpyFlags`.
    pub flags: c_uint,
}
static_assertions::assert_eq_size!(CUmemcpyAttributes, [u8; 24]);
const _: () = assert!(align_of::<CUmemcpyAttributes>() == 4);
const _: () = assert!(core::mem::offset_of!(CUmemcpyAttributes, srcLocHint) == 4);
const _: () = assert!(core::mem::offset_of!(CUmemcpyAttributes, dstLocHint) == 12);
const _: () = assert!(core::mem::offset_of!(CUmemcpyAttributes, flags) == 20);

/// `cuMemcpyBatchAsync` (Memory Management) **as CUDA 12.8 declared it**
/// (`PFN_cuMemcpyBatchAsync_v12080` of `cudaTypedefs.h`): `count` pointer-to-pointer copies in
/// one call, enqueued on `hStream` as a whole, unordered among themselves; `attrs[k]` applies to
/// the copies from `attrsIdxs[k]` to the next index; `failIdx` receives the index of a copy that
/// failed (`SIZE_MAX` if none is to blame). CUDA 13.0 removed `failIdx` (its header maps the name
/// to `cuMemcpyBatchAsync_v2`): custack looks this entry point up at 12.8, so the driver returns
/// the 12.8 ABI declared here on every driver that has it. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
pub type PFN_cuMemcpyBatchAsync = unsafe extern "C" fn(
    dsts: *mut CUdeviceptr,
    srcs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    attrs: *mut CUmemcpyAttributes,
    attrsIdxs: *mut usize,
    numAttrs: usize,
    failIdx: *mut usize,
    hStream: CUstream,
) -> CUresult;
/// CUDA 12.8, the ABI asked for (the `failIdx` form).
pub const PFN_cuMemcpyBatchAsync_VERSION: c_int = 12080;

/// `CUoffset3D` (`CUoffset3D_v1`, CUDA 12.8): an offset into a CUDA array, in elements.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUoffset3D {
    /// Elements along x.
    pub x: usize,
    /// Rows along y.
    pub y: usize,
    /// Layers along z.
    pub z: usize,
}
const _: () = assert!(size_of::<CUoffset3D>() == 24 && align_of::<CUoffset3D>() == 8);

/// `CUextent3D` (`CUextent3D_v1`, CUDA 12.8): a copy's extent, in elements (bytes for a copy
/// between two pointers); no component may be 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUextent3D {
    /// Elements along x.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Layers.
    pub depth: usize,
}
const _: () = assert!(size_of::<CUextent3D>() == 24 && align_of::<CUextent3D>() == 8);

/// `CUmemcpy3DOperandType`: which member of `CUmemcpy3DOperand::op` is used.
pub type CUmemcpy3DOperandType = c_uint;
/// `op.ptr`: memory at an address (host or device, by unified addressing).
pub const CU_MEMCPY_OPERAND_TYPE_POINTER: CUmemcpy3DOperandType = 0x1;
/// `op.array`: a CUDA array.
pub const CU_MEMCPY_OPERAND_TYPE_ARRAY: CUmemcpy3DOperandType = 0x2;

/// `CUmemcpy3DOperand::op.ptr`: memory at an address, rows `rowLength` elements apart, layers
/// `layerHeight` rows apart (0: packed to the copy's extent).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUmemcpy3DOperandPtr {
    /// The address (a host address by unified addressing, or device memory).
    pub ptr: CUdeviceptr,
    /// Elements from one row to the next (0, or at least the extent's width).
    pub rowLength: usize,
    /// Rows from one layer to the next (0, or at least the extent's height).
    pub layerHeight: usize,
    /// Where the memory should be, for managed or pageable memory (ignored otherwise).
    pub locHint: CUmemLocation,
}

/// `CUmemcpy3DOperand::op.array`: a CUDA array and the offset into it, in elements.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmemcpy3DOperandArray {
    /// The array.
    pub array: CUarray,
    /// Where in the array the copy starts.
    pub offset: CUoffset3D,
}

/// `CUmemcpy3DOperand::op`: the anonymous union of cuda.h, by `type_`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUmemcpy3DOperandUnion {
    /// For `CU_MEMCPY_OPERAND_TYPE_POINTER`.
    pub ptr: CUmemcpy3DOperandPtr,
    /// For `CU_MEMCPY_OPERAND_TYPE_ARRAY`.
    pub array: CUmemcpy3DOperandArray,
}

/// `CUmemcpy3DOperand` (`CUmemcpy3DOperand_v1`, CUDA 12.8): one side of a batched 3D copy.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUmemcpy3DOperand {
    /// `CUmemcpy3DOperandType` (`type` in cuda.h).
    pub type_: CUmemcpy3DOperandType,
    /// The operand, as `type_` says.
    pub op: CUmemcpy3DOperandUnion,
}

impl core::fmt::Debug for CUmemcpy3DOperand {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("CUmemcpy3DOperand");
        d.field("type_", &self.type_);
        match self.type_ {
            // SAFETY: `type_` names the member in use.
            CU_MEMCPY_OPERAND_TYPE_POINTER => d.field("ptr", unsafe { &self.op.ptr }),
            // SAFETY: as above.
            CU_MEMCPY_OPERAND_TYPE_ARRAY => d.field("array", unsafe { &self.op.array }),
            _ => d.field("op", &"?"),
        };
        d.finish()
    }
}

/// `CUDA_MEMCPY3D_BATCH_OP` (`CUDA_MEMCPY3D_BATCH_OP_v1`, CUDA 12.8): one copy of a
/// `cuMemcpy3DBatchAsync` batch.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_MEMCPY3D_BATCH_OP {
    /// The source.
    pub src: CUmemcpy3DOperand,
    /// The destination.
    pub dst: CUmemcpy3DOperand,
    /// The extent, in elements (no component 0).
    pub extent: CUextent3D,
    /// `CUmemcpySrcAccessOrder`.
    pub srcAccessOrder: CUmemcpySrcAccessOrder,
    /// `CUmemcpyFlags`.
    pub flags: c_uint,
}
// The layout of cuda.h 13.0 (unchanged since 12.8): the union's two members are 32 bytes each.
const _: () = assert!(size_of::<CUmemcpy3DOperandPtr>() == 32);
const _: () = assert!(core::mem::offset_of!(CUmemcpy3DOperandPtr, rowLength) == 8);
const _: () = assert!(core::mem::offset_of!(CUmemcpy3DOperandPtr, layerHeight) == 16);
const _: () = assert!(core::mem::offset_of!(CUmemcpy3DOperandPtr, locHint) == 24);
const _: () = assert!(size_of::<CUmemcpy3DOperandArray>() == 32);
const _: () = assert!(core::mem::offset_of!(CUmemcpy3DOperandArray, offset) == 8);
const _: () = assert!(size_of::<CUmemcpy3DOperandUnion>() == 32);
const _: () = assert!(size_of::<CUmemcpy3DOperand>() == 40 && align_of::<CUmemcpy3DOperand>() == 8);
const _: () = assert!(core::mem::offset_of!(CUmemcpy3DOperand, op) == 8);
const _: () = assert!(size_of::<CUDA_MEMCPY3D_BATCH_OP>() == 112);
const _: () = assert!(align_of::<CUDA_MEMCPY3D_BATCH_OP>() == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_MEMCPY3D_BATCH_OP, dst) == 40);
const _: () = assert!(core::mem::offset_of!(CUDA_MEMCPY3D_BATCH_OP, extent) == 80);
const _: () = assert!(core::mem::offset_of!(CUDA_MEMCPY3D_BATCH_OP, srcAccessOrder) == 104);
const _: () = assert!(core::mem::offset_of!(CUDA_MEMCPY3D_BATCH_OP, flags) == 108);

/// `cuMemcpy3DBatchAsync` (Memory Management) **as CUDA 12.8 declared it**
/// (`PFN_cuMemcpy3DBatchAsync_v12080`): `numOps` 3D copies (arrays or memory at an address) in
/// one call, enqueued on `hStream` as a whole, unordered among themselves; `failIdx` receives
/// the index of a copy that failed (`SIZE_MAX` if none is to blame); `flags` must be 0. CUDA
/// 13.0 removed `failIdx` (`cuMemcpy3DBatchAsync_v2`); custack looks this up at 12.8, so every
/// driver that has it returns this ABI. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
pub type PFN_cuMemcpy3DBatchAsync = unsafe extern "C" fn(
    numOps: usize,
    opList: *mut CUDA_MEMCPY3D_BATCH_OP,
    failIdx: *mut usize,
    flags: c_ulonglong,
    hStream: CUstream,
) -> CUresult;
/// CUDA 12.8, the ABI asked for (the `failIdx` form).
pub const PFN_cuMemcpy3DBatchAsync_VERSION: c_int = 12080;

/// `cuMemPrefetchBatchAsync` (Unified Addressing, CUDA 13.0): prefetches `count` ranges of
/// managed memory; `prefetchLocs[k]` applies to the ranges from `prefetchLocIdxs[k]` to the
/// next index; `flags` must be 0. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
pub type PFN_cuMemPrefetchBatchAsync = unsafe extern "C" fn(
    dptrs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    prefetchLocs: *mut CUmemLocation,
    prefetchLocIdxs: *mut usize,
    numPrefetchLocs: usize,
    flags: c_ulonglong,
    hStream: CUstream,
) -> CUresult;
/// CUDA 13.0.
pub const PFN_cuMemPrefetchBatchAsync_VERSION: c_int = 13000;

/// `cuMemDiscardBatchAsync` (Unified Addressing, CUDA 13.0): discards `count` ranges of managed
/// memory, in stream order: their contents are undefined afterwards (the driver need not
/// migrate them); `flags` must be 0. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
pub type PFN_cuMemDiscardBatchAsync = unsafe extern "C" fn(
    dptrs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    flags: c_ulonglong,
    hStream: CUstream,
) -> CUresult;
/// CUDA 13.0.
pub const PFN_cuMemDiscardBatchAsync_VERSION: c_int = 13000;

/// `cuMemDiscardAndPrefetchBatchAsync` (Unified Addressing, CUDA 13.0): discards `count` ranges
/// of managed memory and prefetches them (their contents undefined) to the locations given as
/// in `cuMemPrefetchBatchAsync`; `flags` must be 0. Looked up.
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
pub type PFN_cuMemDiscardAndPrefetchBatchAsync = unsafe extern "C" fn(
    dptrs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    prefetchLocs: *mut CUmemLocation,
    prefetchLocIdxs: *mut usize,
    numPrefetchLocs: usize,
    flags: c_ulonglong,
    hStream: CUstream,
) -> CUresult;
/// CUDA 13.0.
pub const PFN_cuMemDiscardAndPrefetchBatchAsync_VERSION: c_int = 13000;
