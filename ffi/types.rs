//! Mirrors cuda.h "Data types used by CUDA driver" (group__CUDA__TYPES): handles, enums as
//! `#[repr(transparent)]` newtypes with associated constants, and `#[repr(C)]` structs.
//!
//! No C enum is a Rust `enum` here: a newer driver may return a value this file does not list,
//! and a Rust `enum` holding an unlisted discriminant is undefined behaviour.

use core::ffi::{c_char, c_int, c_uint, c_ulonglong};
use core::marker::{PhantomData, PhantomPinned};

macro_rules! opaque {
    ($(#[$doc:meta] $name:ident => $handle:ident;)*) => {$(
        #[$doc]
        ///
        /// Opaque: it cannot be constructed, moved out of, or sent between threads from Rust
        /// (the nomicon's "Representing opaque structs" pattern).
        #[repr(C)]
        pub struct $name {
            _data: [u8; 0],
            _marker: PhantomData<(*mut u8, PhantomPinned)>,
        }
        #[$doc]
        pub type $handle = *mut $name;
        static_assertions::assert_eq_size!($handle, *mut core::ffi::c_void);
    )*};
}

opaque! {
    /// The driver's context object (`CUctx_st`); a context handle is `CUcontext`.
    CUctx_st => CUcontext;
    /// The driver's module object (`CUmod_st`); a module handle is `CUmodule`.
    CUmod_st => CUmodule;
    /// The driver's function object (`CUfunc_st`); a function handle is `CUfunction`.
    CUfunc_st => CUfunction;
    /// The driver's stream object (`CUstream_st`); a stream handle is `CUstream`.
    CUstream_st => CUstream;
    /// The driver's event object (`CUevent_st`); an event handle is `CUevent`.
    CUevent_st => CUevent;
    /// The driver's graph object (`CUgraph_st`); a graph handle is `CUgraph`.
    CUgraph_st => CUgraph;
    /// The driver's graph node object (`CUgraphNode_st`); a node handle is `CUgraphNode`.
    CUgraphNode_st => CUgraphNode;
    /// The driver's executable graph object (`CUgraphExec_st`); a handle is `CUgraphExec`.
    CUgraphExec_st => CUgraphExec;
    /// The driver's context-independent library (`CUlib_st`); a handle is `CUlibrary`.
    CUlib_st => CUlibrary;
    /// The driver's context-independent kernel (`CUkern_st`); a handle is `CUkernel`.
    CUkern_st => CUkernel;
    /// The driver's CUDA array (`CUarray_st`); a handle is `CUarray`.
    CUarray_st => CUarray;
    /// The driver's mipmapped CUDA array (`CUmipmappedArray_st`): `CUmipmappedArray`.
    CUmipmappedArray_st => CUmipmappedArray;
    /// The driver's memory pool (`CUmemPoolHandle_st`); a handle is `CUmemoryPool`.
    CUmemPoolHandle_st => CUmemoryPool;
    /// The driver's linker state (`CUlinkState_st`); a handle is `CUlinkState`.
    CUlinkState_st => CUlinkState;
    /// The driver's green context object (`CUgreenCtx_st`); a handle is `CUgreenCtx`.
    CUgreenCtx_st => CUgreenCtx;
    /// A resource descriptor for green contexts (`CUdevResourceDesc_st`): `CUdevResourceDesc`.
    CUdevResourceDesc_st => CUdevResourceDesc;
    /// The driver's user object (`CUuserObject_st`); a handle is `CUuserObject`.
    CUuserObject_st => CUuserObject;
    /// The driver's imported external memory (`CUextMemory_st`): `CUexternalMemory`.
    CUextMemory_st => CUexternalMemory;
    /// The driver's imported external semaphore (`CUextSemaphore_st`): `CUexternalSemaphore`.
    CUextSemaphore_st => CUexternalSemaphore;
}

/// A device ordinal handle (`CUdevice`, `typedef int CUdevice_v1`).
pub type CUdevice = c_int;
/// A device address (`CUdeviceptr`, `unsigned long long` on 64-bit hosts).
pub type CUdeviceptr = c_ulonglong;
static_assertions::assert_eq_size!(CUdeviceptr, u64);
static_assertions::assert_eq_size!(CUdevice, i32);

/// `CUresult`: the status every driver entry point returns.
///
/// A newtype, not an enum: the driver may return codes newer than this list.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[must_use]
pub struct CUresult(pub c_int);

impl CUresult {
    /// `CUDA_SUCCESS` (0).
    pub const CUDA_SUCCESS: Self = Self(0);
    /// `CUDA_ERROR_INVALID_VALUE` (1).
    pub const CUDA_ERROR_INVALID_VALUE: Self = Self(1);
    /// `CUDA_ERROR_OUT_OF_MEMORY` (2).
    pub const CUDA_ERROR_OUT_OF_MEMORY: Self = Self(2);
    /// `CUDA_ERROR_NOT_INITIALIZED` (3).
    pub const CUDA_ERROR_NOT_INITIALIZED: Self = Self(3);
    /// `CUDA_ERROR_DEINITIALIZED` (4).
    pub const CUDA_ERROR_DEINITIALIZED: Self = Self(4);
    /// `CUDA_ERROR_PROFILER_DISABLED` (5).
    pub const CUDA_ERROR_PROFILER_DISABLED: Self = Self(5);
    /// `CUDA_ERROR_PROFILER_NOT_INITIALIZED` (6).
    pub const CUDA_ERROR_PROFILER_NOT_INITIALIZED: Self = Self(6);
    /// `CUDA_ERROR_PROFILER_ALREADY_STARTED` (7).
    pub const CUDA_ERROR_PROFILER_ALREADY_STARTED: Self = Self(7);
    /// `CUDA_ERROR_PROFILER_ALREADY_STOPPED` (8).
    pub const CUDA_ERROR_PROFILER_ALREADY_STOPPED: Self = Self(8);
    /// `CUDA_ERROR_STUB_LIBRARY` (34).
    pub const CUDA_ERROR_STUB_LIBRARY: Self = Self(34);
    /// `CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER` (36).
    pub const CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER: Self = Self(36);
    /// `CUDA_ERROR_DEVICE_UNAVAILABLE` (46).
    pub const CUDA_ERROR_DEVICE_UNAVAILABLE: Self = Self(46);
    /// `CUDA_ERROR_NO_DEVICE` (100).
    pub const CUDA_ERROR_NO_DEVICE: Self = Self(100);
    /// `CUDA_ERROR_INVALID_DEVICE` (101).
    pub const CUDA_ERROR_INVALID_DEVICE: Self = Self(101);
    /// `CUDA_ERROR_DEVICE_NOT_LICENSED` (102).
    pub const CUDA_ERROR_DEVICE_NOT_LICENSED: Self = Self(102);
    /// `CUDA_ERROR_INVALID_IMAGE` (200).
    pub const CUDA_ERROR_INVALID_IMAGE: Self = Self(200);
    /// `CUDA_ERROR_INVALID_CONTEXT` (201).
    pub const CUDA_ERROR_INVALID_CONTEXT: Self = Self(201);
    /// `CUDA_ERROR_CONTEXT_ALREADY_CURRENT` (202).
    pub const CUDA_ERROR_CONTEXT_ALREADY_CURRENT: Self = Self(202);
    /// `CUDA_ERROR_MAP_FAILED` (205).
    pub const CUDA_ERROR_MAP_FAILED: Self = Self(205);
    /// `CUDA_ERROR_UNMAP_FAILED` (206).
    pub const CUDA_ERROR_UNMAP_FAILED: Self = Self(206);
    /// `CUDA_ERROR_ARRAY_IS_MAPPED` (207).
    pub const CUDA_ERROR_ARRAY_IS_MAPPED: Self = Self(207);
    /// `CUDA_ERROR_ALREADY_MAPPED` (208).
    pub const CUDA_ERROR_ALREADY_MAPPED: Self = Self(208);
    /// `CUDA_ERROR_NO_BINARY_FOR_GPU` (209).
    pub const CUDA_ERROR_NO_BINARY_FOR_GPU: Self = Self(209);
    /// `CUDA_ERROR_ALREADY_ACQUIRED` (210).
    pub const CUDA_ERROR_ALREADY_ACQUIRED: Self = Self(210);
    /// `CUDA_ERROR_NOT_MAPPED` (211).
    pub const CUDA_ERROR_NOT_MAPPED: Self = Self(211);
    /// `CUDA_ERROR_NOT_MAPPED_AS_ARRAY` (212).
    pub const CUDA_ERROR_NOT_MAPPED_AS_ARRAY: Self = Self(212);
    /// `CUDA_ERROR_NOT_MAPPED_AS_POINTER` (213).
    pub const CUDA_ERROR_NOT_MAPPED_AS_POINTER: Self = Self(213);
    /// `CUDA_ERROR_ECC_UNCORRECTABLE` (214).
    pub const CUDA_ERROR_ECC_UNCORRECTABLE: Self = Self(214);
    /// `CUDA_ERROR_UNSUPPORTED_LIMIT` (215).
    pub const CUDA_ERROR_UNSUPPORTED_LIMIT: Self = Self(215);
    /// `CUDA_ERROR_CONTEXT_ALREADY_IN_USE` (216).
    pub const CUDA_ERROR_CONTEXT_ALREADY_IN_USE: Self = Self(216);
    /// `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED` (217).
    pub const CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: Self = Self(217);
    /// `CUDA_ERROR_INVALID_PTX` (218).
    pub const CUDA_ERROR_INVALID_PTX: Self = Self(218);
    /// `CUDA_ERROR_INVALID_GRAPHICS_CONTEXT` (219).
    pub const CUDA_ERROR_INVALID_GRAPHICS_CONTEXT: Self = Self(219);
    /// `CUDA_ERROR_NVLINK_UNCORRECTABLE` (220).
    pub const CUDA_ERROR_NVLINK_UNCORRECTABLE: Self = Self(220);
    /// `CUDA_ERROR_JIT_COMPILER_NOT_FOUND` (221).
    pub const CUDA_ERROR_JIT_COMPILER_NOT_FOUND: Self = Self(221);
    /// `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` (222).
    pub const CUDA_ERROR_UNSUPPORTED_PTX_VERSION: Self = Self(222);
    /// `CUDA_ERROR_JIT_COMPILATION_DISABLED` (223).
    pub const CUDA_ERROR_JIT_COMPILATION_DISABLED: Self = Self(223);
    /// `CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY` (224).
    pub const CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY: Self = Self(224);
    /// `CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC` (225).
    pub const CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC: Self = Self(225);
    /// `CUDA_ERROR_CONTAINED` (226).
    pub const CUDA_ERROR_CONTAINED: Self = Self(226);
    /// `CUDA_ERROR_INVALID_SOURCE` (300).
    pub const CUDA_ERROR_INVALID_SOURCE: Self = Self(300);
    /// `CUDA_ERROR_FILE_NOT_FOUND` (301).
    pub const CUDA_ERROR_FILE_NOT_FOUND: Self = Self(301);
    /// `CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND` (302).
    pub const CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND: Self = Self(302);
    /// `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED` (303).
    pub const CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: Self = Self(303);
    /// `CUDA_ERROR_OPERATING_SYSTEM` (304).
    pub const CUDA_ERROR_OPERATING_SYSTEM: Self = Self(304);
    /// `CUDA_ERROR_INVALID_HANDLE` (400).
    pub const CUDA_ERROR_INVALID_HANDLE: Self = Self(400);
    /// `CUDA_ERROR_ILLEGAL_STATE` (401).
    pub const CUDA_ERROR_ILLEGAL_STATE: Self = Self(401);
    /// `CUDA_ERROR_LOSSY_QUERY` (402).
    pub const CUDA_ERROR_LOSSY_QUERY: Self = Self(402);
    /// `CUDA_ERROR_NOT_FOUND` (500).
    pub const CUDA_ERROR_NOT_FOUND: Self = Self(500);
    /// `CUDA_ERROR_NOT_READY` (600).
    pub const CUDA_ERROR_NOT_READY: Self = Self(600);
    /// `CUDA_ERROR_ILLEGAL_ADDRESS` (700).
    pub const CUDA_ERROR_ILLEGAL_ADDRESS: Self = Self(700);
    /// `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES` (701).
    pub const CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: Self = Self(701);
    /// `CUDA_ERROR_LAUNCH_TIMEOUT` (702).
    pub const CUDA_ERROR_LAUNCH_TIMEOUT: Self = Self(702);
    /// `CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING` (703).
    pub const CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING: Self = Self(703);
    /// `CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED` (704).
    pub const CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: Self = Self(704);
    /// `CUDA_ERROR_PEER_ACCESS_NOT_ENABLED` (705).
    pub const CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: Self = Self(705);
    /// `CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE` (708).
    pub const CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE: Self = Self(708);
    /// `CUDA_ERROR_CONTEXT_IS_DESTROYED` (709).
    pub const CUDA_ERROR_CONTEXT_IS_DESTROYED: Self = Self(709);
    /// `CUDA_ERROR_ASSERT` (710).
    pub const CUDA_ERROR_ASSERT: Self = Self(710);
    /// `CUDA_ERROR_TOO_MANY_PEERS` (711).
    pub const CUDA_ERROR_TOO_MANY_PEERS: Self = Self(711);
    /// `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED` (712).
    pub const CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: Self = Self(712);
    /// `CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED` (713).
    pub const CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: Self = Self(713);
    /// `CUDA_ERROR_HARDWARE_STACK_ERROR` (714).
    pub const CUDA_ERROR_HARDWARE_STACK_ERROR: Self = Self(714);
    /// `CUDA_ERROR_ILLEGAL_INSTRUCTION` (715).
    pub const CUDA_ERROR_ILLEGAL_INSTRUCTION: Self = Self(715);
    /// `CUDA_ERROR_MISALIGNED_ADDRESS` (716).
    pub const CUDA_ERROR_MISALIGNED_ADDRESS: Self = Self(716);
    /// `CUDA_ERROR_INVALID_ADDRESS_SPACE` (717).
    pub const CUDA_ERROR_INVALID_ADDRESS_SPACE: Self = Self(717);
    /// `CUDA_ERROR_INVALID_PC` (718).
    pub const CUDA_ERROR_INVALID_PC: Self = Self(718);
    /// `CUDA_ERROR_LAUNCH_FAILED` (719).
    pub const CUDA_ERROR_LAUNCH_FAILED: Self = Self(719);
    /// `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE` (720).
    pub const CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: Self = Self(720);
    /// `CUDA_ERROR_TENSOR_MEMORY_LEAK` (721).
    pub const CUDA_ERROR_TENSOR_MEMORY_LEAK: Self = Self(721);
    /// `CUDA_ERROR_NOT_PERMITTED` (800).
    pub const CUDA_ERROR_NOT_PERMITTED: Self = Self(800);
    /// `CUDA_ERROR_NOT_SUPPORTED` (801).
    pub const CUDA_ERROR_NOT_SUPPORTED: Self = Self(801);
    /// `CUDA_ERROR_SYSTEM_NOT_READY` (802).
    pub const CUDA_ERROR_SYSTEM_NOT_READY: Self = Self(802);
    /// `CUDA_ERROR_SYSTEM_DRIVER_MISMATCH` (803).
    pub const CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: Self = Self(803);
    /// `CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE` (804).
    pub const CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: Self = Self(804);
    /// `CUDA_ERROR_MPS_CONNECTION_FAILED` (805).
    pub const CUDA_ERROR_MPS_CONNECTION_FAILED: Self = Self(805);
    /// `CUDA_ERROR_MPS_RPC_FAILURE` (806).
    pub const CUDA_ERROR_MPS_RPC_FAILURE: Self = Self(806);
    /// `CUDA_ERROR_MPS_SERVER_NOT_READY` (807).
    pub const CUDA_ERROR_MPS_SERVER_NOT_READY: Self = Self(807);
    /// `CUDA_ERROR_MPS_MAX_CLIENTS_REACHED` (808).
    pub const CUDA_ERROR_MPS_MAX_CLIENTS_REACHED: Self = Self(808);
    /// `CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED` (809).
    pub const CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED: Self = Self(809);
    /// `CUDA_ERROR_MPS_CLIENT_TERMINATED` (810).
    pub const CUDA_ERROR_MPS_CLIENT_TERMINATED: Self = Self(810);
    /// `CUDA_ERROR_CDP_NOT_SUPPORTED` (811).
    pub const CUDA_ERROR_CDP_NOT_SUPPORTED: Self = Self(811);
    /// `CUDA_ERROR_CDP_VERSION_MISMATCH` (812).
    pub const CUDA_ERROR_CDP_VERSION_MISMATCH: Self = Self(812);
    /// `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` (900).
    pub const CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: Self = Self(900);
    /// `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` (901).
    pub const CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: Self = Self(901);
    /// `CUDA_ERROR_STREAM_CAPTURE_MERGE` (902).
    pub const CUDA_ERROR_STREAM_CAPTURE_MERGE: Self = Self(902);
    /// `CUDA_ERROR_STREAM_CAPTURE_UNMATCHED` (903).
    pub const CUDA_ERROR_STREAM_CAPTURE_UNMATCHED: Self = Self(903);
    /// `CUDA_ERROR_STREAM_CAPTURE_UNJOINED` (904).
    pub const CUDA_ERROR_STREAM_CAPTURE_UNJOINED: Self = Self(904);
    /// `CUDA_ERROR_STREAM_CAPTURE_ISOLATION` (905).
    pub const CUDA_ERROR_STREAM_CAPTURE_ISOLATION: Self = Self(905);
    /// `CUDA_ERROR_STREAM_CAPTURE_IMPLICIT` (906).
    pub const CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: Self = Self(906);
    /// `CUDA_ERROR_CAPTURED_EVENT` (907).
    pub const CUDA_ERROR_CAPTURED_EVENT: Self = Self(907);
    /// `CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD` (908).
    pub const CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: Self = Self(908);
    /// `CUDA_ERROR_TIMEOUT` (909).
    pub const CUDA_ERROR_TIMEOUT: Self = Self(909);
    /// `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` (910).
    pub const CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: Self = Self(910);
    /// `CUDA_ERROR_EXTERNAL_DEVICE` (911).
    pub const CUDA_ERROR_EXTERNAL_DEVICE: Self = Self(911);
    /// `CUDA_ERROR_INVALID_CLUSTER_SIZE` (912).
    pub const CUDA_ERROR_INVALID_CLUSTER_SIZE: Self = Self(912);
    /// `CUDA_ERROR_FUNCTION_NOT_LOADED` (913).
    pub const CUDA_ERROR_FUNCTION_NOT_LOADED: Self = Self(913);
    /// `CUDA_ERROR_INVALID_RESOURCE_TYPE` (914).
    pub const CUDA_ERROR_INVALID_RESOURCE_TYPE: Self = Self(914);
    /// `CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION` (915).
    pub const CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION: Self = Self(915);
    /// `CUDA_ERROR_KEY_ROTATION` (916).
    pub const CUDA_ERROR_KEY_ROTATION: Self = Self(916);
    /// `CUDA_ERROR_UNKNOWN` (999).
    pub const CUDA_ERROR_UNKNOWN: Self = Self(999);
}

/// `CUuuid`: a device's 16-byte UUID.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUuuid {
    /// The raw bytes.
    pub bytes: [c_char; 16],
}
static_assertions::assert_eq_size!(CUuuid, [u8; 16]);
static_assertions::assert_eq_align!(CUuuid, u8);

macro_rules! c_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$cdoc:meta])* $c:ident = $v:expr;)* }) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub struct $name(pub c_int);
        impl $name { $($(#[$cdoc])* pub const $c: Self = Self($v);)* }
        static_assertions::assert_eq_size!($name, c_int);
    };
}

c_enum! {
    /// `CUctx_flags`: context creation flags (a bit set passed as `unsigned int`).
    CUctx_flags {
        /// Automatic scheduling.
        CU_CTX_SCHED_AUTO = 0x00;
        /// Spin while waiting for the GPU.
        CU_CTX_SCHED_SPIN = 0x01;
        /// Yield the thread while waiting for the GPU.
        CU_CTX_SCHED_YIELD = 0x02;
        /// Block on a synchronization primitive while waiting for the GPU.
        CU_CTX_SCHED_BLOCKING_SYNC = 0x04;
        /// Mask of the scheduling bits.
        CU_CTX_SCHED_MASK = 0x07;
        /// Support mapped pinned allocations (always on for current drivers).
        CU_CTX_MAP_HOST = 0x08;
        /// Keep local memory allocation after launch.
        CU_CTX_LMEM_RESIZE_TO_MAX = 0x10;
        /// Trigger coredumps from exceptions in this context.
        CU_CTX_COREDUMP_ENABLE = 0x20;
        /// Enable user pipe to trigger coredumps in this context.
        CU_CTX_USER_COREDUMP_ENABLE = 0x40;
        /// Ensure synchronous memory operations on this context will synchronize.
        CU_CTX_SYNC_MEMOPS = 0x80;
    }
}

c_enum! {
    /// `CUstream_flags`.
    CUstream_flags {
        /// Default stream flag: synchronizes with the legacy default (NULL) stream.
        CU_STREAM_DEFAULT = 0x0;
        /// The stream does not synchronize with the NULL stream.
        CU_STREAM_NON_BLOCKING = 0x1;
    }
}

/// `CU_STREAM_LEGACY` (`((CUstream)0x1)`): the current context's legacy default (NULL) stream,
/// whatever the compilation mode of the caller.
pub const CU_STREAM_LEGACY: CUstream = 0x1 as CUstream;
/// `CU_STREAM_PER_THREAD` (`((CUstream)0x2)`): the calling thread's per-thread default stream
/// of the current context.
pub const CU_STREAM_PER_THREAD: CUstream = 0x2 as CUstream;

c_enum! {
    /// `CUstreamCaptureMode`: which other threads' potentially unsafe calls a capture forbids.
    CUstreamCaptureMode {
        /// Forbidden on every thread while any global-mode capture is under way.
        CU_STREAM_CAPTURE_MODE_GLOBAL = 0;
        /// Forbidden on this thread only.
        CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
        /// Not forbidden.
        CU_STREAM_CAPTURE_MODE_RELAXED = 2;
    }
}

c_enum! {
    /// `CUstreamCaptureStatus`.
    CUstreamCaptureStatus {
        /// The stream is not capturing.
        CU_STREAM_CAPTURE_STATUS_NONE = 0;
        /// The stream is capturing.
        CU_STREAM_CAPTURE_STATUS_ACTIVE = 1;
        /// The capture was invalidated by an error but has not ended yet.
        CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2;
    }
}

c_enum! {
    /// `CUgraphExecUpdateResult`: why `cuGraphExecUpdate` refused an update.
    CUgraphExecUpdateResult {
        /// The update succeeded.
        CU_GRAPH_EXEC_UPDATE_SUCCESS = 0;
        /// The update failed for an unexpected reason, described by the return value.
        CU_GRAPH_EXEC_UPDATE_ERROR = 1;
        /// The topology of the graph changed.
        CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED = 2;
        /// The type of a node changed.
        CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED = 3;
        /// The function of a kernel node changed (drivers before CUDA 11.2).
        CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED = 4;
        /// Parameters changed in a way update does not support.
        CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED = 5;
        /// Something about a node is not supported by update.
        CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED = 6;
        /// The function of a kernel node changed in an unsupported way.
        CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE = 7;
        /// Node attributes changed in a way update does not support.
        CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED = 8;
    }
}

/// `CUgraphExecUpdateResultInfo` (`_v1`): what `cuGraphExecUpdate` reports about a failure.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUgraphExecUpdateResultInfo {
    /// Why the update failed.
    pub result: CUgraphExecUpdateResult,
    /// The "to" node of the offending edge, or the offending node; null when generic.
    pub errorNode: CUgraphNode,
    /// The "from" node of the offending edge; null otherwise.
    pub errorFromNode: CUgraphNode,
}
const _: () = assert!(
    size_of::<CUgraphExecUpdateResultInfo>() == 24
        && align_of::<CUgraphExecUpdateResultInfo>() == 8
);

c_enum! {
    /// `CUdevResourceType`: the kind of a device resource (green contexts, CUDA 12.4).
    CUdevResourceType {
        /// Not a valid resource.
        CU_DEV_RESOURCE_TYPE_INVALID = 0;
        /// Streaming multiprocessors.
        CU_DEV_RESOURCE_TYPE_SM = 1;
    }
}

/// `CUdevSmResource`: an SM resource's counts (CUDA 13.0 fills all four fields, 12.x the
/// first).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUdevSmResource {
    /// The number of SMs in the resource.
    pub smCount: c_uint,
    /// The smallest partition a split may make (CUDA 13.0).
    pub minSmPartitionSize: c_uint,
    /// The granularity of SM co-scheduling (CUDA 13.0).
    pub smCoscheduledAlignment: c_uint,
    /// Flags (CUDA 13.0).
    pub flags: c_uint,
}

/// `CUdevResource`: a tagged union describing a device resource, 144 bytes in both the CUDA 12.4
/// and 13.0 layouts (12.4: `type`, 92 bytes of padding, a 48-byte union; 13.0: the union is 40
/// bytes and a `nextResource` pointer follows). Only `type` and `sm` are read; the rest is the
/// driver's. Not to be modified outside the API that filled it.
#[repr(C, align(8))]
#[derive(Clone, Copy, Debug)]
pub struct CUdevResource {
    /// The kind of resource.
    pub type_: CUdevResourceType,
    _internal_padding: [u8; 92],
    /// For `CU_DEV_RESOURCE_TYPE_SM`: the SM counts.
    pub sm: CUdevSmResource,
    _rest: [u8; 32],
}
const _: () = assert!(size_of::<CUdevResource>() == 144 && align_of::<CUdevResource>() == 8);
const _: () = assert!(core::mem::offset_of!(CUdevResource, sm) == 96);

impl CUdevResource {
    /// An all-zero resource (`CU_DEV_RESOURCE_TYPE_INVALID`), for the driver to fill.
    pub const ZEROED: Self = Self {
        type_: CUdevResourceType::CU_DEV_RESOURCE_TYPE_INVALID,
        _internal_padding: [0; 92],
        sm: CUdevSmResource {
            smCount: 0,
            minSmPartitionSize: 0,
            smCoscheduledAlignment: 0,
            flags: 0,
        },
        _rest: [0; 32],
    };
}

/// `CU_GREEN_CTX_DEFAULT_STREAM`: create the green context's default stream.
pub const CU_GREEN_CTX_DEFAULT_STREAM: c_uint = 0x1;

c_enum! {
    /// `CUpointer_attribute`: what `cuPointerGetAttribute(s)` reports about an address.
    CUpointer_attribute {
        /// The context the memory belongs to (`CUcontext`).
        CU_POINTER_ATTRIBUTE_CONTEXT = 1;
        /// The memory type (`CUmemorytype` as `unsigned int`).
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
        /// The device address (`CUdeviceptr`).
        CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3;
        /// The host address (`void*`).
        CU_POINTER_ATTRIBUTE_HOST_POINTER = 4;
        /// A process-unique id of the allocation (`unsigned long long`).
        CU_POINTER_ATTRIBUTE_BUFFER_ID = 7;
        /// Whether it is managed memory (`int`).
        CU_POINTER_ATTRIBUTE_IS_MANAGED = 8;
        /// The device ordinal of the memory (`int`).
        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
        /// The start of the allocation (`CUdeviceptr`).
        CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11;
        /// The size of the allocation (`size_t`).
        CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12;
        /// Whether it is mapped (`int`).
        CU_POINTER_ATTRIBUTE_MAPPED = 13;
    }
}

/// `CUmemorytype`: host memory.
pub const CU_MEMORYTYPE_HOST: c_uint = 0x01;
/// `CUmemorytype`: device memory.
pub const CU_MEMORYTYPE_DEVICE: c_uint = 0x02;
/// `CUmemorytype`: an array.
pub const CU_MEMORYTYPE_ARRAY: c_uint = 0x03;
/// `CUmemorytype`: unified (managed) memory.
pub const CU_MEMORYTYPE_UNIFIED: c_uint = 0x04;

/// `cuMemAllocManaged` flag: the memory is accessible from any stream on any device.
pub const CU_MEM_ATTACH_GLOBAL: c_uint = 0x1;
/// `cuMemAllocManaged` flag: the memory is accessible from the host only, until attached.
pub const CU_MEM_ATTACH_HOST: c_uint = 0x2;
/// `CUdevice` standing for the host in prefetches and advice (`CU_DEVICE_CPU`).
pub const CU_DEVICE_CPU: CUdevice = -1;

c_enum! {
    /// `CUmem_advise`: advice about the use of managed memory.
    CUmem_advise {
        /// The data will mostly be read.
        CU_MEM_ADVISE_SET_READ_MOSTLY = 1;
        /// Undo `SET_READ_MOSTLY`.
        CU_MEM_ADVISE_UNSET_READ_MOSTLY = 2;
        /// The preferred location is the given device.
        CU_MEM_ADVISE_SET_PREFERRED_LOCATION = 3;
        /// Undo `SET_PREFERRED_LOCATION`.
        CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION = 4;
        /// The data will be accessed by the given device.
        CU_MEM_ADVISE_SET_ACCESSED_BY = 5;
        /// Undo `SET_ACCESSED_BY`.
        CU_MEM_ADVISE_UNSET_ACCESSED_BY = 6;
    }
}

c_enum! {
    /// `CUmem_range_attribute`: what `cuMemRangeGetAttribute` reports of managed memory.
    CUmem_range_attribute {
        /// Whether `SET_READ_MOSTLY` is in force (`int`).
        CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1;
        /// The preferred location (`int`: a device ordinal, `CU_DEVICE_CPU`, or -2 for none).
        CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION = 2;
        /// The devices that have `SET_ACCESSED_BY` (an `int` array).
        CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY = 3;
        /// The last location prefetched to (`int`).
        CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION = 4;
    }
}

c_enum! {
    /// `CUmemPool_attribute`: attributes of a memory pool.
    CUmemPool_attribute {
        /// Reuse memory freed in one stream for allocations in another, when ordered by events.
        CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1;
        /// Reuse freed memory opportunistically.
        CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC = 2;
        /// Insert dependencies to reuse freed memory.
        CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3;
        /// Bytes the pool keeps reserved before releasing memory to the OS (`cuuint64_t`).
        CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;
        /// Bytes reserved now (`cuuint64_t`).
        CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5;
        /// The high watermark of reserved bytes (`cuuint64_t`).
        CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH = 6;
        /// Bytes allocated from the pool now (`cuuint64_t`).
        CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7;
        /// The high watermark of allocated bytes (`cuuint64_t`).
        CU_MEMPOOL_ATTR_USED_MEM_HIGH = 8;
    }
}

/// `CUmemLocation`: where memory lives.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUmemLocation {
    /// `CUmemLocationType`: 1 for a device.
    pub type_: c_int,
    /// The device ordinal.
    pub id: c_int,
}

/// `CUmemLocationType`: a device.
pub const CU_MEM_LOCATION_TYPE_DEVICE: c_int = 1;
/// `CUmemLocationType`: host memory (the id is ignored).
pub const CU_MEM_LOCATION_TYPE_HOST: c_int = 2;
/// `CUmemAllocationType`: pinned (non-migratable) device memory.
pub const CU_MEM_ALLOCATION_TYPE_PINNED: c_int = 1;

/// `CUmemAllocationHandleType`: the kind of OS handle an allocation of `cuMemCreate` can be
/// exported to (`CUmemAllocationProp::requestedHandleTypes`, a bit mask) and imported from.
pub type CUmemAllocationHandleType = c_int;
/// `CUmemAllocationHandleType`: no export.
pub const CU_MEM_HANDLE_TYPE_NONE: CUmemAllocationHandleType = 0x0;
/// `CUmemAllocationHandleType`: a POSIX file descriptor (`int`; Linux).
pub const CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR: CUmemAllocationHandleType = 0x1;
/// `CUmemAllocationHandleType`: an NT handle (`HANDLE`; Windows).
pub const CU_MEM_HANDLE_TYPE_WIN32: CUmemAllocationHandleType = 0x2;
/// `CUmemAllocationHandleType`: a global KMT handle (`D3DKMT_HANDLE`; Windows).
pub const CU_MEM_HANDLE_TYPE_WIN32_KMT: CUmemAllocationHandleType = 0x4;
/// `CUmemAllocationHandleType`: a fabric handle (`CUmemFabricHandle`; CUDA 12.3, IMEX channels).
pub const CU_MEM_HANDLE_TYPE_FABRIC: CUmemAllocationHandleType = 0x8;

/// `CUmemFabricHandle` (`_v1`): a fabric handle to an allocation (64 opaque bytes), valid across
/// the nodes of an NVLink fabric (CUDA 12.3).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CUmemFabricHandle {
    /// The handle's bytes.
    pub data: [u8; 64],
}
const _: () = assert!(size_of::<CUmemFabricHandle>() == 64 && align_of::<CUmemFabricHandle>() == 1);

/// `CUmemPoolProps` (`_v1`): the properties of a pool for `cuMemPoolCreate`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmemPoolProps {
    /// `CUmemAllocationType`.
    pub allocType: c_int,
    /// `CUmemAllocationHandleType` for interprocess export (0: none).
    pub handleTypes: c_int,
    /// Where the pool's memory lives.
    pub location: CUmemLocation,
    /// Windows security attributes (null elsewhere).
    pub win32SecurityAttributes: *mut core::ffi::c_void,
    /// The pool's maximum size in bytes (0: the system's; CUDA 12.1).
    pub maxSize: usize,
    /// Usage flags (CUDA 12.3); then reserved bytes, zero.
    pub usage: core::ffi::c_ushort,
    /// Reserved, zero.
    pub reserved: [u8; 54],
}
const _: () = assert!(size_of::<CUmemPoolProps>() == 88 && align_of::<CUmemPoolProps>() == 8);

/// `CUDA_MEMCPY2D` (`_v2`): a 2D copy between host, device, array or unified memory.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_MEMCPY2D {
    /// Source X offset, in bytes.
    pub srcXInBytes: usize,
    /// Source Y offset, in rows.
    pub srcY: usize,
    /// Source memory type (`CUmemorytype`).
    pub srcMemoryType: c_uint,
    /// Source host pointer (host memory).
    pub srcHost: *const core::ffi::c_void,
    /// Source device pointer (device memory).
    pub srcDevice: CUdeviceptr,
    /// Source array (array memory).
    pub srcArray: CUarray,
    /// Source pitch, in bytes (ignored for arrays).
    pub srcPitch: usize,
    /// Destination X offset, in bytes.
    pub dstXInBytes: usize,
    /// Destination Y offset, in rows.
    pub dstY: usize,
    /// Destination memory type (`CUmemorytype`).
    pub dstMemoryType: c_uint,
    /// Destination host pointer.
    pub dstHost: *mut core::ffi::c_void,
    /// Destination device pointer.
    pub dstDevice: CUdeviceptr,
    /// Destination array.
    pub dstArray: CUarray,
    /// Destination pitch, in bytes.
    pub dstPitch: usize,
    /// Width of the copy, in bytes.
    pub WidthInBytes: usize,
    /// Height of the copy, in rows.
    pub Height: usize,
}
const _: () = assert!(size_of::<CUDA_MEMCPY2D>() == 128 && align_of::<CUDA_MEMCPY2D>() == 8);

/// `CUDA_MEMCPY3D` (`_v2`): a 3D copy between host, device, array or unified memory.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_MEMCPY3D {
    /// Source X offset, in bytes.
    pub srcXInBytes: usize,
    /// Source Y offset, in rows.
    pub srcY: usize,
    /// Source Z offset, in slices.
    pub srcZ: usize,
    /// Source level of detail (must be 0).
    pub srcLOD: usize,
    /// Source memory type (`CUmemorytype`).
    pub srcMemoryType: c_uint,
    /// Source host pointer (host memory).
    pub srcHost: *const core::ffi::c_void,
    /// Source device pointer (device memory).
    pub srcDevice: CUdeviceptr,
    /// Source array (array memory).
    pub srcArray: CUarray,
    /// Must be null.
    pub reserved0: *mut core::ffi::c_void,
    /// Source pitch, in bytes (ignored for arrays).
    pub srcPitch: usize,
    /// Source rows per slice (ignored for arrays).
    pub srcHeight: usize,
    /// Destination X offset, in bytes.
    pub dstXInBytes: usize,
    /// Destination Y offset, in rows.
    pub dstY: usize,
    /// Destination Z offset, in slices.
    pub dstZ: usize,
    /// Destination level of detail (must be 0).
    pub dstLOD: usize,
    /// Destination memory type (`CUmemorytype`).
    pub dstMemoryType: c_uint,
    /// Destination host pointer.
    pub dstHost: *mut core::ffi::c_void,
    /// Destination device pointer.
    pub dstDevice: CUdeviceptr,
    /// Destination array.
    pub dstArray: CUarray,
    /// Must be null.
    pub reserved1: *mut core::ffi::c_void,
    /// Destination pitch, in bytes (ignored for arrays).
    pub dstPitch: usize,
    /// Destination rows per slice (ignored for arrays).
    pub dstHeight: usize,
    /// Width of the copy, in bytes.
    pub WidthInBytes: usize,
    /// Height of the copy, in rows.
    pub Height: usize,
    /// Depth of the copy, in slices.
    pub Depth: usize,
}
const _: () = assert!(size_of::<CUDA_MEMCPY3D>() == 200 && align_of::<CUDA_MEMCPY3D>() == 8);

/// `CUDA_KERNEL_NODE_PARAMS_v2` (what `CUDA_KERNEL_NODE_PARAMS` names since CUDA 12.0): a
/// kernel node's function, launch shape and arguments (`cuGraphAddKernelNode`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_KERNEL_NODE_PARAMS_v2 {
    /// The kernel (null when `kern` is set).
    pub func: CUfunction,
    /// Blocks in the grid, x.
    pub gridDimX: c_uint,
    /// Blocks in the grid, y.
    pub gridDimY: c_uint,
    /// Blocks in the grid, z.
    pub gridDimZ: c_uint,
    /// Threads in a block, x.
    pub blockDimX: c_uint,
    /// Threads in a block, y.
    pub blockDimY: c_uint,
    /// Threads in a block, z.
    pub blockDimZ: c_uint,
    /// Dynamic shared memory per block, in bytes.
    pub sharedMemBytes: c_uint,
    /// One pointer per parameter, to its value (copied when the node is made).
    pub kernelParams: *mut *mut core::ffi::c_void,
    /// The packed-buffer alternative to `kernelParams` (null here).
    pub extra: *mut *mut core::ffi::c_void,
    /// A context-independent kernel instead of `func` (null when `func` is set).
    pub kern: CUkernel,
    /// The context `kern` runs in; ignored when `func` is set.
    pub ctx: CUcontext,
}
const _: () = assert!(
    size_of::<CUDA_KERNEL_NODE_PARAMS_v2>() == 72 && align_of::<CUDA_KERNEL_NODE_PARAMS_v2>() == 8
);

/// `CUDA_MEMSET_NODE_PARAMS` (`_v1`): a memset node's destination, value and shape
/// (`cuGraphAddMemsetNode`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_MEMSET_NODE_PARAMS {
    /// The destination's device address.
    pub dst: CUdeviceptr,
    /// The destination's pitch, in bytes (ignored when `height` is 1).
    pub pitch: usize,
    /// The value, of which the low `elementSize` bytes are set.
    pub value: c_uint,
    /// The size of one element: 1, 2 or 4 bytes.
    pub elementSize: c_uint,
    /// Elements per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
}
const _: () = assert!(
    size_of::<CUDA_MEMSET_NODE_PARAMS>() == 40 && align_of::<CUDA_MEMSET_NODE_PARAMS>() == 8
);

/// `CUDA_MEM_ALLOC_NODE_PARAMS` (`_v1`): a graph memory allocation node's pool properties,
/// access rights and size (`cuGraphAddMemAllocNode`), and the address the driver returns.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_MEM_ALLOC_NODE_PARAMS {
    /// Where and how the memory is allocated (pinned device memory; no export handles).
    pub poolProps: CUmemPoolProps,
    /// Access rights for other devices (null: only the allocating device's).
    pub accessDescs: *const CUmemAccessDesc,
    /// The number of `accessDescs`.
    pub accessDescCount: usize,
    /// The size in bytes.
    pub bytesize: usize,
    /// Out: the allocation's device address, fixed for the graph's lifetime.
    pub dptr: CUdeviceptr,
}
const _: () = assert!(
    size_of::<CUDA_MEM_ALLOC_NODE_PARAMS>() == 120 && align_of::<CUDA_MEM_ALLOC_NODE_PARAMS>() == 8
);

/// `CUmemGenericAllocationHandle`: a physical allocation made by `cuMemCreate`.
pub type CUmemGenericAllocationHandle = c_ulonglong;

/// `CUmemAllocationProp` (`_v1`): what `cuMemCreate` allocates.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmemAllocationProp {
    /// `CUmemAllocationType` (`CU_MEM_ALLOCATION_TYPE_PINNED`).
    pub type_: c_int,
    /// `CUmemAllocationHandleType` to export (0: none).
    pub requestedHandleTypes: c_int,
    /// Where the memory lives.
    pub location: CUmemLocation,
    /// Windows handle metadata (null elsewhere).
    pub win32HandleMetaData: *mut core::ffi::c_void,
    /// `allocFlags`: compression type, GPUDirect RDMA capable, usage, reserved; zero.
    pub allocFlags: [u8; 8],
}
const _: () = assert!(size_of::<CUmemAllocationProp>() == 32);

/// `CUmemAccessDesc` (`_v1`): an access right to a mapped range.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmemAccessDesc {
    /// Who gets the right.
    pub location: CUmemLocation,
    /// `CUmemAccess_flags`.
    pub flags: c_int,
}
const _: () = assert!(size_of::<CUmemAccessDesc>() == 12);
const _: () = assert!(align_of::<CUmemAccessDesc>() == 4);
const _: () = assert!(size_of::<CUmemLocation>() == 8 && align_of::<CUmemLocation>() == 4);

/// `CUmemAccess_flags`: no access.
pub const CU_MEM_ACCESS_FLAGS_PROT_NONE: c_int = 0;
/// `CUmemAccess_flags`: read only.
pub const CU_MEM_ACCESS_FLAGS_PROT_READ: c_int = 1;
/// `CUmemAccess_flags`: read and write.
pub const CU_MEM_ACCESS_FLAGS_PROT_READWRITE: c_int = 3;
/// `CUmemAllocationGranularity_flags`: the minimum granularity.
pub const CU_MEM_ALLOC_GRANULARITY_MINIMUM: c_int = 0;

/// `CUarray_format`: an array element's channel format.
pub type CUarray_format = c_uint;
/// 8-bit unsigned integer channels.
pub const CU_AD_FORMAT_UNSIGNED_INT8: CUarray_format = 0x01;
/// 16-bit unsigned integer channels.
pub const CU_AD_FORMAT_UNSIGNED_INT16: CUarray_format = 0x02;
/// 32-bit unsigned integer channels.
pub const CU_AD_FORMAT_UNSIGNED_INT32: CUarray_format = 0x03;
/// 8-bit signed integer channels.
pub const CU_AD_FORMAT_SIGNED_INT8: CUarray_format = 0x08;
/// 16-bit signed integer channels.
pub const CU_AD_FORMAT_SIGNED_INT16: CUarray_format = 0x09;
/// 32-bit signed integer channels.
pub const CU_AD_FORMAT_SIGNED_INT32: CUarray_format = 0x0a;
/// 16-bit float channels.
pub const CU_AD_FORMAT_HALF: CUarray_format = 0x10;
/// 32-bit float channels.
pub const CU_AD_FORMAT_FLOAT: CUarray_format = 0x20;

/// `CUDA_ARRAY3D_DESCRIPTOR` (`_v2`): a 1D, 2D or 3D array's shape and format.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_ARRAY3D_DESCRIPTOR {
    /// Width in elements.
    pub Width: usize,
    /// Height in elements (0 for 1D).
    pub Height: usize,
    /// Depth in elements (0 for 1D and 2D).
    pub Depth: usize,
    /// Channel format.
    pub Format: CUarray_format,
    /// Channels per element: 1, 2 or 4.
    pub NumChannels: c_uint,
    /// `CUDA_ARRAY3D_*` flags.
    pub Flags: c_uint,
}
const _: () = assert!(size_of::<CUDA_ARRAY3D_DESCRIPTOR>() == 40);
const _: () = assert!(align_of::<CUDA_ARRAY3D_DESCRIPTOR>() == 8);

/// `CUDA_ARRAY3D_LAYERED`: a layered array (of 1D or 2D layers, `Depth` of them).
pub const CUDA_ARRAY3D_LAYERED: c_uint = 0x01;
/// `CUDA_ARRAY3D_SURFACE_LDST`: the array can be bound to a surface object.
pub const CUDA_ARRAY3D_SURFACE_LDST: c_uint = 0x02;
/// `CUDA_ARRAY3D_COLOR_ATTACHMENT`: the array may be bound as a color target in an external
/// graphics API.
pub const CUDA_ARRAY3D_COLOR_ATTACHMENT: c_uint = 0x20;

/// `CUresourcetype`: what a `CUDA_RESOURCE_DESC` names.
pub type CUresourcetype = c_int;
/// `CU_RESOURCE_TYPE_ARRAY`: a CUDA array.
pub const CU_RESOURCE_TYPE_ARRAY: CUresourcetype = 0x00;
/// `CU_RESOURCE_TYPE_MIPMAPPED_ARRAY`: a mipmapped CUDA array.
pub const CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: CUresourcetype = 0x01;
/// `CU_RESOURCE_TYPE_LINEAR`: linear device memory.
pub const CU_RESOURCE_TYPE_LINEAR: CUresourcetype = 0x02;
/// `CU_RESOURCE_TYPE_PITCH2D`: pitched 2D device memory.
pub const CU_RESOURCE_TYPE_PITCH2D: CUresourcetype = 0x03;

/// `CUDA_RESOURCE_DESC::res.array`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_RESOURCE_DESC_array {
    /// The CUDA array.
    pub hArray: CUarray,
}
const _: () = assert!(size_of::<CUDA_RESOURCE_DESC_array>() == 8);

/// `CUDA_RESOURCE_DESC::res.mipmap`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_RESOURCE_DESC_mipmap {
    /// The mipmapped CUDA array.
    pub hMipmappedArray: CUmipmappedArray,
}
const _: () = assert!(size_of::<CUDA_RESOURCE_DESC_mipmap>() == 8);

/// `CUDA_RESOURCE_DESC::res.linear`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_RESOURCE_DESC_linear {
    /// Device pointer (aligned to `CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT`).
    pub devPtr: CUdeviceptr,
    /// Element format.
    pub format: CUarray_format,
    /// Channels per element.
    pub numChannels: c_uint,
    /// Size in bytes.
    pub sizeInBytes: usize,
}
const _: () = assert!(size_of::<CUDA_RESOURCE_DESC_linear>() == 24);

/// `CUDA_RESOURCE_DESC::res.pitch2D`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_RESOURCE_DESC_pitch2D {
    /// Device pointer (aligned to `CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT`).
    pub devPtr: CUdeviceptr,
    /// Element format.
    pub format: CUarray_format,
    /// Channels per element.
    pub numChannels: c_uint,
    /// Width in elements.
    pub width: usize,
    /// Height in elements.
    pub height: usize,
    /// Bytes from one row to the next (a multiple of `CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT`).
    pub pitchInBytes: usize,
}
const _: () = assert!(size_of::<CUDA_RESOURCE_DESC_pitch2D>() == 40);

/// `CUDA_RESOURCE_DESC::res`: the union, 128 bytes (`int reserved[32]`), pointer-aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUDA_RESOURCE_DESC_res {
    /// For `CU_RESOURCE_TYPE_ARRAY`.
    pub array: CUDA_RESOURCE_DESC_array,
    /// For `CU_RESOURCE_TYPE_MIPMAPPED_ARRAY`.
    pub mipmap: CUDA_RESOURCE_DESC_mipmap,
    /// For `CU_RESOURCE_TYPE_LINEAR`.
    pub linear: CUDA_RESOURCE_DESC_linear,
    /// For `CU_RESOURCE_TYPE_PITCH2D`.
    pub pitch2D: CUDA_RESOURCE_DESC_pitch2D,
    /// The union's size.
    pub reserved: [c_int; 32],
}
const _: () = assert!(size_of::<CUDA_RESOURCE_DESC_res>() == 128);
const _: () = assert!(align_of::<CUDA_RESOURCE_DESC_res>() == 8);

impl core::fmt::Debug for CUDA_RESOURCE_DESC_res {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Which member is live depends on `resType`, outside the union.
        f.write_str("CUDA_RESOURCE_DESC_res { .. }")
    }
}

/// `CUDA_RESOURCE_DESC` (`_v1`): the resource a texture or surface object reads.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_RESOURCE_DESC {
    /// Which member of `res` is live.
    pub resType: CUresourcetype,
    /// The resource.
    pub res: CUDA_RESOURCE_DESC_res,
    /// Flags, zero.
    pub flags: c_uint,
}
const _: () = assert!(size_of::<CUDA_RESOURCE_DESC>() == 144);
const _: () = assert!(align_of::<CUDA_RESOURCE_DESC>() == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_RESOURCE_DESC, res) == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_RESOURCE_DESC, flags) == 136);

/// `CUaddress_mode`: how a coordinate outside the texture is resolved.
pub type CUaddress_mode = c_int;
/// `CU_TR_ADDRESS_MODE_WRAP`: repeat (normalized coordinates only).
pub const CU_TR_ADDRESS_MODE_WRAP: CUaddress_mode = 0;
/// `CU_TR_ADDRESS_MODE_CLAMP`: the edge texel.
pub const CU_TR_ADDRESS_MODE_CLAMP: CUaddress_mode = 1;
/// `CU_TR_ADDRESS_MODE_MIRROR`: repeat mirrored (normalized coordinates only).
pub const CU_TR_ADDRESS_MODE_MIRROR: CUaddress_mode = 2;
/// `CU_TR_ADDRESS_MODE_BORDER`: the border colour.
pub const CU_TR_ADDRESS_MODE_BORDER: CUaddress_mode = 3;

/// `CUfilter_mode`: texel filtering.
pub type CUfilter_mode = c_int;
/// `CU_TR_FILTER_MODE_POINT`: the nearest texel.
pub const CU_TR_FILTER_MODE_POINT: CUfilter_mode = 0;
/// `CU_TR_FILTER_MODE_LINEAR`: linear interpolation.
pub const CU_TR_FILTER_MODE_LINEAR: CUfilter_mode = 1;

/// `CUDA_TEXTURE_DESC` (`_v1`): how a texture object samples.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUDA_TEXTURE_DESC {
    /// `CUaddress_mode` per dimension.
    pub addressMode: [CUaddress_mode; 3],
    /// `CUfilter_mode`.
    pub filterMode: CUfilter_mode,
    /// `CU_TRSF_*` flags.
    pub flags: c_uint,
    /// Maximum anisotropy.
    pub maxAnisotropy: c_uint,
    /// Mipmap filter mode.
    pub mipmapFilterMode: CUfilter_mode,
    /// Mipmap level bias.
    pub mipmapLevelBias: f32,
    /// Minimum mipmap level clamp.
    pub minMipmapLevelClamp: f32,
    /// Maximum mipmap level clamp.
    pub maxMipmapLevelClamp: f32,
    /// Border color.
    pub borderColor: [f32; 4],
    /// Reserved, zero.
    pub reserved: [c_int; 12],
}
const _: () = assert!(size_of::<CUDA_TEXTURE_DESC>() == 104);
const _: () = assert!(align_of::<CUDA_TEXTURE_DESC>() == 4);
const _: () = assert!(core::mem::offset_of!(CUDA_TEXTURE_DESC, borderColor) == 40);

/// `CU_TRSF_READ_AS_INTEGER`: integer texels are read as integers, not normalized floats.
pub const CU_TRSF_READ_AS_INTEGER: c_uint = 0x01;
/// `CU_TRSF_NORMALIZED_COORDINATES`: texture coordinates in [0, 1).
pub const CU_TRSF_NORMALIZED_COORDINATES: c_uint = 0x02;
/// `CU_TRSF_SRGB`: sRGB-to-linear conversion on reads.
pub const CU_TRSF_SRGB: c_uint = 0x10;
/// `CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION`: no reduced-precision trilinear filtering.
pub const CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION: c_uint = 0x20;
/// `CU_TRSF_SEAMLESS_CUBEMAP`: seamless cube map filtering.
pub const CU_TRSF_SEAMLESS_CUBEMAP: c_uint = 0x40;

/// `CUresourceViewFormat`: how a resource view reinterprets its resource's texels.
pub type CUresourceViewFormat = c_int;
/// `CU_RES_VIEW_FORMAT_NONE`: no reinterpretation.
pub const CU_RES_VIEW_FORMAT_NONE: CUresourceViewFormat = 0x00;
/// 1 channel, unsigned 8-bit.
pub const CU_RES_VIEW_FORMAT_UINT_1X8: CUresourceViewFormat = 0x01;
/// 2 channels, unsigned 8-bit.
pub const CU_RES_VIEW_FORMAT_UINT_2X8: CUresourceViewFormat = 0x02;
/// 4 channels, unsigned 8-bit.
pub const CU_RES_VIEW_FORMAT_UINT_4X8: CUresourceViewFormat = 0x03;
/// 1 channel, signed 8-bit.
pub const CU_RES_VIEW_FORMAT_SINT_1X8: CUresourceViewFormat = 0x04;
/// 2 channels, signed 8-bit.
pub const CU_RES_VIEW_FORMAT_SINT_2X8: CUresourceViewFormat = 0x05;
/// 4 channels, signed 8-bit.
pub const CU_RES_VIEW_FORMAT_SINT_4X8: CUresourceViewFormat = 0x06;
/// 1 channel, unsigned 16-bit.
pub const CU_RES_VIEW_FORMAT_UINT_1X16: CUresourceViewFormat = 0x07;
/// 2 channels, unsigned 16-bit.
pub const CU_RES_VIEW_FORMAT_UINT_2X16: CUresourceViewFormat = 0x08;
/// 4 channels, unsigned 16-bit.
pub const CU_RES_VIEW_FORMAT_UINT_4X16: CUresourceViewFormat = 0x09;
/// 1 channel, signed 16-bit.
pub const CU_RES_VIEW_FORMAT_SINT_1X16: CUresourceViewFormat = 0x0a;
/// 2 channels, signed 16-bit.
pub const CU_RES_VIEW_FORMAT_SINT_2X16: CUresourceViewFormat = 0x0b;
/// 4 channels, signed 16-bit.
pub const CU_RES_VIEW_FORMAT_SINT_4X16: CUresourceViewFormat = 0x0c;
/// 1 channel, unsigned 32-bit.
pub const CU_RES_VIEW_FORMAT_UINT_1X32: CUresourceViewFormat = 0x0d;
/// 2 channels, unsigned 32-bit.
pub const CU_RES_VIEW_FORMAT_UINT_2X32: CUresourceViewFormat = 0x0e;
/// 4 channels, unsigned 32-bit.
pub const CU_RES_VIEW_FORMAT_UINT_4X32: CUresourceViewFormat = 0x0f;
/// 1 channel, signed 32-bit.
pub const CU_RES_VIEW_FORMAT_SINT_1X32: CUresourceViewFormat = 0x10;
/// 2 channels, signed 32-bit.
pub const CU_RES_VIEW_FORMAT_SINT_2X32: CUresourceViewFormat = 0x11;
/// 4 channels, signed 32-bit.
pub const CU_RES_VIEW_FORMAT_SINT_4X32: CUresourceViewFormat = 0x12;
/// 1 channel, 16-bit float.
pub const CU_RES_VIEW_FORMAT_FLOAT_1X16: CUresourceViewFormat = 0x13;
/// 2 channels, 16-bit float.
pub const CU_RES_VIEW_FORMAT_FLOAT_2X16: CUresourceViewFormat = 0x14;
/// 4 channels, 16-bit float.
pub const CU_RES_VIEW_FORMAT_FLOAT_4X16: CUresourceViewFormat = 0x15;
/// 1 channel, 32-bit float.
pub const CU_RES_VIEW_FORMAT_FLOAT_1X32: CUresourceViewFormat = 0x16;
/// 2 channels, 32-bit float.
pub const CU_RES_VIEW_FORMAT_FLOAT_2X32: CUresourceViewFormat = 0x17;
/// 4 channels, 32-bit float.
pub const CU_RES_VIEW_FORMAT_FLOAT_4X32: CUresourceViewFormat = 0x18;
/// Block compressed 1.
pub const CU_RES_VIEW_FORMAT_UNSIGNED_BC1: CUresourceViewFormat = 0x19;
/// Block compressed 2.
pub const CU_RES_VIEW_FORMAT_UNSIGNED_BC2: CUresourceViewFormat = 0x1a;
/// Block compressed 3.
pub const CU_RES_VIEW_FORMAT_UNSIGNED_BC3: CUresourceViewFormat = 0x1b;
/// Block compressed 4, unsigned.
pub const CU_RES_VIEW_FORMAT_UNSIGNED_BC4: CUresourceViewFormat = 0x1c;
/// Block compressed 4, signed.
pub const CU_RES_VIEW_FORMAT_SIGNED_BC4: CUresourceViewFormat = 0x1d;
/// Block compressed 5, unsigned.
pub const CU_RES_VIEW_FORMAT_UNSIGNED_BC5: CUresourceViewFormat = 0x1e;
/// Block compressed 5, signed.
pub const CU_RES_VIEW_FORMAT_SIGNED_BC5: CUresourceViewFormat = 0x1f;
/// Block compressed 6, unsigned half-float.
pub const CU_RES_VIEW_FORMAT_UNSIGNED_BC6H: CUresourceViewFormat = 0x20;
/// Block compressed 6, signed half-float.
pub const CU_RES_VIEW_FORMAT_SIGNED_BC6H: CUresourceViewFormat = 0x21;
/// Block compressed 7.
pub const CU_RES_VIEW_FORMAT_UNSIGNED_BC7: CUresourceViewFormat = 0x22;

/// `CUDA_RESOURCE_VIEW_DESC` (`_v1`): a view of an array or mipmapped array for a texture.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_RESOURCE_VIEW_DESC {
    /// How the texels are read.
    pub format: CUresourceViewFormat,
    /// Width of the view.
    pub width: usize,
    /// Height of the view.
    pub height: usize,
    /// Depth of the view.
    pub depth: usize,
    /// First (most detailed) mipmap level.
    pub firstMipmapLevel: c_uint,
    /// Last mipmap level.
    pub lastMipmapLevel: c_uint,
    /// First layer (layered arrays).
    pub firstLayer: c_uint,
    /// Last layer (layered arrays).
    pub lastLayer: c_uint,
    /// Reserved, zero.
    pub reserved: [c_uint; 16],
}
const _: () = assert!(size_of::<CUDA_RESOURCE_VIEW_DESC>() == 112);
const _: () = assert!(align_of::<CUDA_RESOURCE_VIEW_DESC>() == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_RESOURCE_VIEW_DESC, firstMipmapLevel) == 32);

/// `CUtexObject`: a texture object.
pub type CUtexObject = c_ulonglong;
/// `CUsurfObject`: a surface object.
pub type CUsurfObject = c_ulonglong;

/// `CUipcMemHandle` (`_v1`): an interprocess handle to device memory (64 opaque bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CUipcMemHandle {
    /// The handle's bytes.
    pub reserved: [c_char; 64],
}
const _: () = assert!(size_of::<CUipcMemHandle>() == 64);

/// `CUipcEventHandle` (`_v1`): an interprocess handle to an event (64 opaque bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CUipcEventHandle {
    /// The handle's bytes.
    pub reserved: [c_char; 64],
}
const _: () = assert!(size_of::<CUipcEventHandle>() == 64);

/// `CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS`: enable peer access lazily when opening.
pub const CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS: c_uint = 0x1;

/// `cuMemHostRegister` flag: the registration is portable between contexts.
pub const CU_MEMHOSTREGISTER_PORTABLE: c_uint = 0x01;
/// `cuMemHostRegister` flag: map the memory into the device's address space.
pub const CU_MEMHOSTREGISTER_DEVICEMAP: c_uint = 0x02;

c_enum! {
    /// `CUevent_flags`.
    CUevent_flags {
        /// Default event flag.
        CU_EVENT_DEFAULT = 0x0;
        /// The event uses blocking synchronization.
        CU_EVENT_BLOCKING_SYNC = 0x1;
        /// The event does not record timing data.
        CU_EVENT_DISABLE_TIMING = 0x2;
        /// The event is suitable for interprocess use (requires `CU_EVENT_DISABLE_TIMING`).
        CU_EVENT_INTERPROCESS = 0x4;
    }
}

c_enum! {
    /// `CUlimit`: context limits.
    CUlimit {
        /// GPU thread stack size.
        CU_LIMIT_STACK_SIZE = 0x00;
        /// GPU printf FIFO size.
        CU_LIMIT_PRINTF_FIFO_SIZE = 0x01;
        /// GPU malloc heap size.
        CU_LIMIT_MALLOC_HEAP_SIZE = 0x02;
        /// GPU device runtime launch synchronize depth.
        CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 0x03;
        /// GPU device runtime pending launch count.
        CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 0x04;
        /// L2 cache fetch granularity.
        CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 0x05;
        /// Persisting L2 cache size.
        CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06;
    }
}

c_enum! {
    /// `CUsharedconfig`: shared memory bank size configurations (ignored by devices since
    /// compute capability 5.0, which have fixed 4-byte banks).
    CUsharedconfig {
        /// The device default.
        CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE = 0;
        /// Four-byte banks.
        CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE = 1;
        /// Eight-byte banks.
        CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE = 2;
    }
}

c_enum! {
    /// `CUgraphMem_attribute`: the figures of a device's graph-memory pool, the memory that
    /// graphs' allocation nodes take.
    CUgraphMem_attribute {
        /// Bytes allocated by graphs and not yet freed (read only).
        CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT = 0;
        /// The high watermark of the used bytes since the last reset (reset by setting 0).
        CU_GRAPH_MEM_ATTR_USED_MEM_HIGH = 1;
        /// Bytes reserved for graphs, used or not (read only).
        CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT = 2;
        /// The high watermark of the reserved bytes since the last reset (reset by setting 0).
        CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH = 3;
    }
}

c_enum! {
    /// `CUexecAffinityType`: kinds of execution affinity.
    CUexecAffinityType {
        /// The number of SMs a context may use.
        CU_EXEC_AFFINITY_TYPE_SM_COUNT = 0;
    }
}

/// `CUexecAffinityParam` (`_v1`): an execution affinity; for `SM_COUNT`, `param` is the count.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUexecAffinityParam {
    /// The kind of affinity.
    pub type_: CUexecAffinityType,
    /// The union's one member today: `smCount.val`.
    pub param: c_uint,
}
const _: () = assert!(size_of::<CUexecAffinityParam>() == 8);

/// `CUctxCreateParams` (CUDA 12.5): parameters of `cuCtxCreate_v4`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUctxCreateParams {
    /// Execution affinities, or null.
    pub execAffinityParams: *mut CUexecAffinityParam,
    /// Their number.
    pub numExecAffinityParams: c_int,
    /// CUDA-in-graphics parameters (`CUctxCigParam*`), or null.
    pub cigParams: *mut core::ffi::c_void,
}
const _: () = assert!(size_of::<CUctxCreateParams>() == 24);

c_enum! {
    /// `CUfunc_cache`: cache configurations.
    CUfunc_cache {
        /// No preference for shared memory or L1.
        CU_FUNC_CACHE_PREFER_NONE = 0x00;
        /// Prefer larger shared memory and smaller L1 cache.
        CU_FUNC_CACHE_PREFER_SHARED = 0x01;
        /// Prefer larger L1 cache and smaller shared memory.
        CU_FUNC_CACHE_PREFER_L1 = 0x02;
        /// Prefer equal sized L1 cache and shared memory.
        CU_FUNC_CACHE_PREFER_EQUAL = 0x03;
    }
}

c_enum! {
    /// `CUfunction_attribute`: attributes of a kernel function.
    CUfunction_attribute {
        /// Maximum threads per block for this function.
        CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
        /// Statically allocated shared memory, in bytes.
        CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
        /// User-allocated constant memory, in bytes.
        CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2;
        /// Local memory per thread, in bytes.
        CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3;
        /// Registers per thread.
        CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
        /// PTX virtual architecture version the function was compiled for.
        CU_FUNC_ATTRIBUTE_PTX_VERSION = 5;
        /// Binary architecture version the function was compiled for.
        CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6;
        /// Whether the function was compiled with `-Xptxas --dlcm=ca`.
        CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7;
        /// Maximum dynamic shared memory the function may be launched with, in bytes.
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
        /// Preferred shared memory carveout, in percent.
        CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9;
        /// Whether the kernel must be launched with a cluster size (compile-time cluster dims).
        CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10;
        /// The required cluster width (compile-time), in blocks.
        CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11;
        /// The required cluster height (compile-time), in blocks.
        CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12;
        /// The required cluster depth (compile-time), in blocks.
        CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13;
        /// Whether the kernel may be launched with a non-portable cluster size.
        CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14;
        /// The preferred block scheduling policy of clusters.
        CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15;
    }
}

c_enum! {
    /// `CUlaunchAttributeID`: attributes of `cuLaunchKernelEx`.
    CUlaunchAttributeID {
        /// Ignored.
        CU_LAUNCH_ATTRIBUTE_IGNORE = 0;
        /// An L2 access policy window.
        CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1;
        /// A cooperative launch (`int`, nonzero).
        CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2;
        /// The synchronization policy.
        CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY = 3;
        /// Thread-block cluster dimensions (`x`, `y`, `z` as `unsigned int`).
        CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;
        /// The cluster scheduling policy preference.
        CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5;
        /// Programmatic stream serialization allowed (`int`, nonzero).
        CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;
        /// A programmatic event.
        CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT = 7;
        /// The launch's priority (`int`).
        CU_LAUNCH_ATTRIBUTE_PRIORITY = 8;
    }
}

/// `CUlaunchAttribute`: an attribute id and its value (`CUlaunchAttributeValue`, a 64-byte
/// union; custack writes its first words).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUlaunchAttribute {
    /// Which attribute.
    pub id: CUlaunchAttributeID,
    /// Padding to 8 bytes, as in `cuda.h`.
    pub pad: [u8; 4],
    /// The value: the union's bytes, 8-byte aligned.
    pub value: [u64; 8],
}
const _: () = assert!(size_of::<CUlaunchAttribute>() == 72 && align_of::<CUlaunchAttribute>() == 8);

/// `CUlaunchConfig`: the configuration of `cuLaunchKernelEx`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUlaunchConfig {
    /// Grid width in blocks.
    pub gridDimX: c_uint,
    /// Grid height in blocks.
    pub gridDimY: c_uint,
    /// Grid depth in blocks.
    pub gridDimZ: c_uint,
    /// Block width in threads.
    pub blockDimX: c_uint,
    /// Block height in threads.
    pub blockDimY: c_uint,
    /// Block depth in threads.
    pub blockDimZ: c_uint,
    /// Dynamic shared memory per block, in bytes.
    pub sharedMemBytes: c_uint,
    /// The stream.
    pub hStream: CUstream,
    /// The attributes, or null.
    pub attrs: *mut CUlaunchAttribute,
    /// How many.
    pub numAttrs: c_uint,
}
const _: () = assert!(size_of::<CUlaunchConfig>() == 56 && align_of::<CUlaunchConfig>() == 8);

c_enum! {
    /// `CUjit_option`: options for the JIT compiler (`cuModuleLoadDataEx`).
    CUjit_option {
        /// Max registers per thread (`unsigned int`).
        CU_JIT_MAX_REGISTERS = 0;
        /// Threads per block (`unsigned int`).
        CU_JIT_THREADS_PER_BLOCK = 1;
        /// Wall time spent compiling, in milliseconds (`float`, output).
        CU_JIT_WALL_TIME = 2;
        /// Buffer for informational log messages (`char *`).
        CU_JIT_INFO_LOG_BUFFER = 3;
        /// Size of the info log buffer in bytes (`unsigned int`, in/out).
        CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
        /// Buffer for error log messages (`char *`).
        CU_JIT_ERROR_LOG_BUFFER = 5;
        /// Size of the error log buffer in bytes (`unsigned int`, in/out).
        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
        /// Optimization level 0..=4 (`unsigned int`).
        CU_JIT_OPTIMIZATION_LEVEL = 7;
        /// Target from the current context (no value).
        CU_JIT_TARGET_FROM_CUCONTEXT = 8;
        /// Target architecture (`CUjit_target`, e.g. 90 for compute 9.0).
        CU_JIT_TARGET = 9;
        /// Fallback strategy when no exact binary is found (`CUjit_fallback`).
        CU_JIT_FALLBACK_STRATEGY = 10;
        /// Generate debug information (`int`).
        CU_JIT_GENERATE_DEBUG_INFO = 11;
        /// Verbose log output (`int` as a pointer-sized value).
        CU_JIT_LOG_VERBOSE = 12;
        /// Generate line number information (`int`).
        CU_JIT_GENERATE_LINE_INFO = 13;
    }
}

c_enum! {
    /// `CUjitInputType`: kinds of input to the linker.
    CUjitInputType {
        /// Compiled device code (cubin).
        CU_JIT_INPUT_CUBIN = 0;
        /// PTX source.
        CU_JIT_INPUT_PTX = 1;
        /// A fatbin bundle.
        CU_JIT_INPUT_FATBINARY = 2;
        /// A host object with embedded device code.
        CU_JIT_INPUT_OBJECT = 3;
        /// An archive of host objects with embedded device code.
        CU_JIT_INPUT_LIBRARY = 4;
    }
}

/// `CUlibraryOption`: options of `cuLibraryLoadData` (none used by custack).
pub type CUlibraryOption = c_int;

/// `CUjit_fallback`: prefer compiling PTX when no exact binary matches.
pub const CU_PREFER_PTX: c_uint = 0;
/// `CUjit_fallback`: prefer a compatible binary when no exact binary matches.
pub const CU_PREFER_BINARY: c_uint = 1;

/// `cuMemHostAlloc` flag: memory is portable between CUDA contexts.
pub const CU_MEMHOSTALLOC_PORTABLE: c_uint = 0x01;
/// `cuMemHostAlloc` flag: memory is mapped into the CUDA address space.
pub const CU_MEMHOSTALLOC_DEVICEMAP: c_uint = 0x02;
/// `cuMemHostAlloc` flag: memory is allocated as write-combined.
pub const CU_MEMHOSTALLOC_WRITECOMBINED: c_uint = 0x04;

/// `CU_LAUNCH_PARAM_END`, terminating the `extra` array of `cuLaunchKernel`.
pub const CU_LAUNCH_PARAM_END: *mut core::ffi::c_void = core::ptr::null_mut();

// @@DEVICE_ATTRIBUTES@@ (the full `CUdevice_attribute` list follows)

c_enum! {
    /// `CUdevice_attribute`: device properties for `cuDeviceGetAttribute`, as CUDA 13.0's `cuda.h`
    /// lists them (the deprecated aliases included).
    ///
    /// A driver older than an attribute returns `CUDA_ERROR_INVALID_VALUE` for it.
    CUdevice_attribute {
        /// Maximum number of threads per block.
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
        /// Maximum x-dimension of a block.
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2;
        /// Maximum y-dimension of a block.
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3;
        /// Maximum z-dimension of a block.
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4;
        /// Maximum x-dimension of a grid.
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
        /// Maximum y-dimension of a grid.
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
        /// Maximum z-dimension of a grid.
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
        /// Maximum shared memory available per block, in bytes.
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
        /// Deprecated alias of `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK` (8).
        CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK = 8;
        /// Memory available on the device for `__constant__` variables, in bytes.
        CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9;
        /// Warp size in threads.
        CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
        /// Maximum pitch allowed by memory copies, in bytes.
        CU_DEVICE_ATTRIBUTE_MAX_PITCH = 11;
        /// Maximum number of 32-bit registers available per block.
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12;
        /// Deprecated alias of `CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK` (12).
        CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK = 12;
        /// Typical clock frequency, in kilohertz.
        CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13;
        /// Alignment requirement for textures.
        CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT = 14;
        /// Whether the device can copy memory and run a kernel concurrently. Deprecated in
        /// `cuda.h`: use `CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT`.
        CU_DEVICE_ATTRIBUTE_GPU_OVERLAP = 15;
        /// Number of multiprocessors on the device.
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
        /// Whether kernels have a run-time limit (a display watchdog).
        CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17;
        /// Whether the device is integrated with host memory.
        CU_DEVICE_ATTRIBUTE_INTEGRATED = 18;
        /// Whether the device can map host memory into the CUDA address space.
        CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19;
        /// Compute mode (a `CUcomputemode` value).
        CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20;
        /// Maximum 1D texture width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH = 21;
        /// Maximum 2D texture width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH = 22;
        /// Maximum 2D texture height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT = 23;
        /// Maximum 3D texture width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH = 24;
        /// Maximum 3D texture height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT = 25;
        /// Maximum 3D texture depth.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH = 26;
        /// Maximum 2D layered texture width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH = 27;
        /// Deprecated alias of `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH` (27).
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_WIDTH = 27;
        /// Maximum 2D layered texture height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT = 28;
        /// Deprecated alias of `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT` (28).
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_HEIGHT = 28;
        /// Maximum layers in a 2D layered texture.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS = 29;
        /// Deprecated alias of `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS` (29).
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES = 29;
        /// Alignment requirement for surfaces.
        CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT = 30;
        /// Whether the device can run several kernels concurrently.
        CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31;
        /// Whether ECC support is enabled on the device.
        CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32;
        /// PCI bus ID of the device.
        CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33;
        /// PCI device ID of the device.
        CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34;
        /// Whether the device uses the TCC driver model.
        CU_DEVICE_ATTRIBUTE_TCC_DRIVER = 35;
        /// Peak memory clock frequency, in kilohertz.
        CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36;
        /// Global memory bus width, in bits.
        CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37;
        /// Size of the L2 cache, in bytes.
        CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
        /// Maximum resident threads per multiprocessor.
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39;
        /// Number of asynchronous copy engines.
        CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40;
        /// Whether the device shares a unified address space with the host.
        CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41;
        /// Maximum 1D layered texture width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH = 42;
        /// Maximum layers in a 1D layered texture.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS = 43;
        /// Whether 2D texture gather is supported. Deprecated in `cuda.h`: do not use.
        CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER = 44;
        /// Maximum 2D texture width if `CUDA_ARRAY3D_TEXTURE_GATHER` is set.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH = 45;
        /// Maximum 2D texture height if `CUDA_ARRAY3D_TEXTURE_GATHER` is set.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT = 46;
        /// Alternate maximum 3D texture width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE = 47;
        /// Alternate maximum 3D texture height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE = 48;
        /// Alternate maximum 3D texture depth.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE = 49;
        /// PCI domain ID of the device.
        CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50;
        /// Pitch alignment requirement for textures.
        CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT = 51;
        /// Maximum cubemap texture width and height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH = 52;
        /// Maximum cubemap layered texture width and height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH = 53;
        /// Maximum layers in a cubemap layered texture.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS = 54;
        /// Maximum 1D surface width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH = 55;
        /// Maximum 2D surface width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH = 56;
        /// Maximum 2D surface height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT = 57;
        /// Maximum 3D surface width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH = 58;
        /// Maximum 3D surface height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT = 59;
        /// Maximum 3D surface depth.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH = 60;
        /// Maximum 1D layered surface width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH = 61;
        /// Maximum layers in a 1D layered surface.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS = 62;
        /// Maximum 2D layered surface width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH = 63;
        /// Maximum 2D layered surface height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT = 64;
        /// Maximum layers in a 2D layered surface.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS = 65;
        /// Maximum cubemap surface width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH = 66;
        /// Maximum cubemap layered surface width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH = 67;
        /// Maximum layers in a cubemap layered surface.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS = 68;
        /// Maximum 1D linear texture width. Deprecated in `cuda.h`: use
        /// `cuDeviceGetTexture1DLinearMaxWidth`.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH = 69;
        /// Maximum 2D linear texture width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH = 70;
        /// Maximum 2D linear texture height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT = 71;
        /// Maximum 2D linear texture pitch, in bytes.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH = 72;
        /// Maximum mipmapped 2D texture width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH = 73;
        /// Maximum mipmapped 2D texture height.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT = 74;
        /// Major compute capability version number.
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
        /// Minor compute capability version number.
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
        /// Maximum mipmapped 1D texture width.
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH = 77;
        /// Whether the device supports stream priorities.
        CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED = 78;
        /// Whether the device can cache globals in L1.
        CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED = 79;
        /// Whether the device can cache locals in L1.
        CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED = 80;
        /// Maximum shared memory available per multiprocessor, in bytes.
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81;
        /// Maximum number of 32-bit registers available per multiprocessor.
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82;
        /// Whether the device can allocate managed memory on this system.
        CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83;
        /// Whether the device is on a multi-GPU board.
        CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD = 84;
        /// Unique ID of a group of devices on the same multi-GPU board.
        CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID = 85;
        /// Whether the link between the device and the host supports all native atomic operations.
        CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED = 86;
        /// Ratio of single- to double-precision performance (in floating-point operations per
        /// second).
        CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87;
        /// Whether the device can coherently access pageable memory without registering it.
        CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88;
        /// Whether the device can coherently access managed memory concurrently with the CPU.
        CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89;
        /// Whether the device supports compute preemption.
        CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED = 90;
        /// Whether the device can access registered host memory at the same virtual address as the
        /// CPU.
        CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91;
        /// Whether `cuStreamBatchMemOp` and related v1 stream memory-operation APIs are supported.
        /// Deprecated in `cuda.h`.
        CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 = 92;
        /// Whether 64-bit operations are supported by the v1 stream memory-operation APIs.
        /// Deprecated in `cuda.h`.
        CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1 = 93;
        /// Whether `CU_STREAM_WAIT_VALUE_NOR` is supported by the v1 stream memory-operation APIs.
        /// Deprecated in `cuda.h`.
        CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1 = 94;
        /// Whether the device supports `cuLaunchCooperativeKernel`.
        CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95;
        /// Whether the device supports `cuLaunchCooperativeKernelMultiDevice`. Deprecated in
        /// `cuda.h`, as that function is.
        CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH = 96;
        /// Maximum opt-in shared memory per block, in bytes.
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
        /// Whether `CU_STREAM_WAIT_VALUE_FLUSH` and `CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES` are
        /// supported.
        CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES = 98;
        /// Whether the device supports host memory registration (`cuMemHostRegister`).
        CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED = 99;
        /// Whether the device accesses pageable memory through the host's page tables.
        CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100;
        /// Whether the host can access managed memory on the device directly, without migration.
        CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = 101;
        /// Deprecated alias of `CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED` (102).
        CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED = 102;
        /// Whether the device supports the virtual memory management APIs (`cuMemAddressReserve`,
        /// `cuMemCreate`, `cuMemMap`, ...).
        CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102;
        /// Whether memory from `cuMemCreate` can be exported to a POSIX file descriptor.
        CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103;
        /// Whether memory from `cuMemCreate` can be exported to a Win32 NT handle.
        CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED = 104;
        /// Whether memory from `cuMemCreate` can be exported to a Win32 KMT handle.
        CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED = 105;
        /// Maximum number of resident blocks per multiprocessor.
        CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106;
        /// Whether the device supports compressible memory.
        CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED = 107;
        /// Maximum L2 persisting-lines capacity, in bytes.
        CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108;
        /// Maximum value of `CUaccessPolicyWindow::num_bytes`.
        CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE = 109;
        /// Whether `cuMemCreate` accepts the `GPUDirect` RDMA flag.
        CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED = 110;
        /// Shared memory the driver reserves per block, in bytes.
        CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111;
        /// Whether the device supports sparse CUDA arrays and sparse mipmapped arrays.
        CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED = 112;
        /// Whether host memory can be registered read-only to the GPU
        /// (`CU_MEMHOSTREGISTER_READ_ONLY`).
        CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED = 113;
        /// Whether external timeline semaphore interop is supported.
        CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED = 114;
        /// Whether the device supports `cuMemAllocAsync` and the `cuMemPool` family of APIs.
        CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115;
        /// Whether the device supports `GPUDirect` RDMA APIs.
        CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 116;
        /// Bit mask of `CUflushGPUDirectRDMAWritesOptions`.
        CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = 117;
        /// Scope within which `GPUDirect` RDMA writes need no flush (a
        /// `CUGPUDirectRDMAWritesOrdering` value).
        CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING = 118;
        /// Handle types supported with memory-pool-based IPC.
        CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES = 119;
        /// Whether the device supports cluster launch.
        CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120;
        /// Whether the device supports deferred mapping of CUDA arrays and mipmapped arrays.
        CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED = 121;
        /// Whether 64-bit operations are supported by `cuStreamBatchMemOp` and the related stream
        /// memory-operation APIs.
        CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 122;
        /// Whether `CU_STREAM_WAIT_VALUE_NOR` is supported by the stream memory-operation APIs.
        CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR = 123;
        /// Whether the device supports buffer sharing through `dma_buf`.
        CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124;
        /// Whether the device supports IPC events.
        CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED = 125;
        /// Number of memory synchronization domains the device supports.
        CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT = 126;
        /// Whether the device can access memory through a tensor map.
        CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED = 127;
        /// Whether memory can be exported to a fabric handle.
        CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED = 128;
        /// Whether the device supports unified function pointers.
        CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS = 129;
        /// NUMA configuration of the device (a `CUdeviceNumaConfig` value).
        CU_DEVICE_ATTRIBUTE_NUMA_CONFIG = 130;
        /// NUMA node ID of the GPU memory.
        CU_DEVICE_ATTRIBUTE_NUMA_ID = 131;
        /// Whether the device supports switch multicast and reduction operations.
        CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 132;
        /// Whether contexts created on this device are shared through MPS.
        CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 133;
        /// NUMA ID of the host node closest to the device; -1 without NUMA support.
        CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID = 134;
        /// Whether the device supports CUDA in graphics (CIG) with D3D12.
        CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED = 135;
        /// Bit mask of supported `CUmemDecompressAlgorithm`s.
        CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK = 136;
        /// Maximum length of a single decompress operation, in bytes.
        CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH = 137;
        /// Whether the device supports CUDA in graphics (CIG) with Vulkan.
        CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED = 138;
        /// The combined 16-bit PCI device ID and 16-bit PCI vendor ID.
        CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID = 139;
        /// The combined 16-bit PCI subsystem ID and 16-bit PCI subsystem vendor ID.
        CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID = 140;
        /// Whether the virtual memory management APIs support `HOST_NUMA` locations.
        CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 141;
        /// Whether `cuMemAllocAsync` and the `cuMemPool` APIs support `HOST_NUMA` locations.
        CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED = 142;
        /// Whether `HOST_NUMA` IPC between nodes of a multi-node system is supported.
        CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED = 143;
        /// Whether `cuMemAllocAsync` and the `cuMemPool` APIs support `HOST` locations.
        CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED = 144;
        /// Whether the virtual memory management APIs support `HOST` locations.
        CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 145;
        /// Whether page-locked host memory can be shared through `dma_buf`.
        CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED = 146;
        /// Whether the link between the device and the host supports only some native atomic
        /// operations.
        CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED = 147;
        /// One past the last attribute of CUDA 13.0's `cuda.h`: a sentinel, not an attribute; each
        /// CUDA release moves it.
        CU_DEVICE_ATTRIBUTE_MAX = 148;
    }
}

/// `CU_TENSOR_MAP_NUM_QWORDS`: the size of a tensor map descriptor in 64-bit words.
pub const CU_TENSOR_MAP_NUM_QWORDS: usize = 16;

/// `CUtensorMap` (`struct CUtensorMap_st`): a tensor map descriptor, opaque, written by
/// `cuTensorMapEncodeTiled` or `cuTensorMapEncodeIm2col` and passed to a kernel by value (a
/// `const __grid_constant__ CUtensorMap` parameter). `cuda.h` declares it `alignas(64)`, 16
/// `cuuint64_t`s: 128 bytes.
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CUtensorMap {
    /// The descriptor's words, as the driver wrote them.
    pub opaque: [u64; CU_TENSOR_MAP_NUM_QWORDS],
}

const _: () = assert!(size_of::<CUtensorMap>() == 128 && align_of::<CUtensorMap>() == 64);

c_enum! {
    /// `CUtensorMapDataType`: the element type of a tensor map.
    CUtensorMapDataType {
        /// 1 byte.
        CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
        /// 2 bytes.
        CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1;
        /// 4 bytes.
        CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2;
        /// 4 bytes.
        CU_TENSOR_MAP_DATA_TYPE_INT32 = 3;
        /// 8 bytes.
        CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4;
        /// 8 bytes.
        CU_TENSOR_MAP_DATA_TYPE_INT64 = 5;
        /// 2 bytes.
        CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
        /// 4 bytes.
        CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7;
        /// 8 bytes.
        CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8;
        /// 2 bytes.
        CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;
        /// 4 bytes.
        CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ = 10;
        /// 4 bytes.
        CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 = 11;
        /// 4 bytes.
        CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ = 12;
        /// 16 packed 4-bit values aligned as 8 bytes (CUDA 12.8).
        CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B = 13;
        /// 16 packed 4-bit values aligned as 16 bytes (CUDA 12.8).
        CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B = 14;
        /// 16 packed 6-bit values aligned as 16 bytes (CUDA 12.8).
        CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B = 15;
    }
}

c_enum! {
    /// `CUtensorMapInterleave`: the interleave layout of a tensor map.
    CUtensorMapInterleave {
        /// No interleave.
        CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
        /// 16-byte interleave (NC/8HWC8 for 2-byte elements).
        CU_TENSOR_MAP_INTERLEAVE_16B = 1;
        /// 32-byte interleave (NC/16HWC16).
        CU_TENSOR_MAP_INTERLEAVE_32B = 2;
    }
}

c_enum! {
    /// `CUtensorMapSwizzle`: the bank swizzle of a box in shared memory.
    CUtensorMapSwizzle {
        /// No swizzle.
        CU_TENSOR_MAP_SWIZZLE_NONE = 0;
        /// 32-byte swizzle.
        CU_TENSOR_MAP_SWIZZLE_32B = 1;
        /// 64-byte swizzle.
        CU_TENSOR_MAP_SWIZZLE_64B = 2;
        /// 128-byte swizzle.
        CU_TENSOR_MAP_SWIZZLE_128B = 3;
        /// 128-byte swizzle of 32-byte atoms (CUDA 12.8).
        CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B = 4;
        /// 128-byte swizzle of 32-byte atoms, every 8 bytes flipped (CUDA 12.8).
        CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B = 5;
        /// 128-byte swizzle of 64-byte atoms (CUDA 12.8).
        CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B = 6;
    }
}

c_enum! {
    /// `CUtensorMapL2promotion`: how much L2 fetches around each access.
    CUtensorMapL2promotion {
        /// No promotion.
        CU_TENSOR_MAP_L2_PROMOTION_NONE = 0;
        /// 64 bytes.
        CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1;
        /// 128 bytes.
        CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2;
        /// 256 bytes.
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3;
    }
}

c_enum! {
    /// `CUtensorMapFloatOOBfill`: what an element outside the tensor reads as.
    CUtensorMapFloatOOBfill {
        /// Zero.
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0;
        /// A NaN that an FMA treats as zero (floating-point types only).
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1;
    }
}
// External resource interoperability's types (cuda.h, in "Data types used by CUDA driver").

/// `CUexternalMemoryHandleType`: the kind of handle `cuImportExternalMemory` imports.
pub type CUexternalMemoryHandleType = c_int;
/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD`: an opaque POSIX file descriptor (Vulkan's
/// `VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT`).
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD: CUexternalMemoryHandleType = 1;
/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32`: an opaque shared NT handle.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32: CUexternalMemoryHandleType = 2;
/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT`: an opaque, globally shared handle.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT: CUexternalMemoryHandleType = 3;
/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP`: a D3D12 heap.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP: CUexternalMemoryHandleType = 4;
/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE`: a D3D12 committed resource.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE: CUexternalMemoryHandleType = 5;
/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE`: a shared NT handle to a D3D11 resource.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE: CUexternalMemoryHandleType = 6;
/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE_KMT`: a global handle to a D3D11 resource.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE_KMT: CUexternalMemoryHandleType = 7;
/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF`: an `NvSciBuf` object.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF: CUexternalMemoryHandleType = 8;
/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD`: a file descriptor of a Linux `dma_buf` (flags
/// must be zero; the driver documents it for Tegra platforms and refuses it elsewhere).
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD: CUexternalMemoryHandleType = 9;

/// `CUDA_EXTERNAL_MEMORY_DEDICATED`: the imported memory is a dedicated allocation.
pub const CUDA_EXTERNAL_MEMORY_DEDICATED: c_uint = 0x1;

/// `CUDA_EXTERNAL_MEMORY_HANDLE_DESC::handle::win32`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_EXTERNAL_HANDLE_win32 {
    /// The NT or KMT handle.
    pub handle: *mut core::ffi::c_void,
    /// The name of the shared object (a wide string), or null.
    pub name: *const core::ffi::c_void,
}

/// `CUDA_EXTERNAL_MEMORY_HANDLE_DESC::handle` (and the semaphore descriptor's): one member is
/// live, chosen by the descriptor's `type`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUDA_EXTERNAL_HANDLE {
    /// A file descriptor (the `*_FD` types).
    pub fd: c_int,
    /// A Windows handle and its name.
    pub win32: CUDA_EXTERNAL_HANDLE_win32,
    /// An `NvSciBuf` or `NvSciSync` object.
    pub nvSciObject: *const core::ffi::c_void,
}
const _: () = assert!(size_of::<CUDA_EXTERNAL_HANDLE>() == 16);
const _: () = assert!(align_of::<CUDA_EXTERNAL_HANDLE>() == 8);

/// `CUDA_EXTERNAL_MEMORY_HANDLE_DESC` (`_v1`): what `cuImportExternalMemory` imports.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_MEMORY_HANDLE_DESC {
    /// `CUexternalMemoryHandleType`.
    pub type_: CUexternalMemoryHandleType,
    /// The handle, by `type_`.
    pub handle: CUDA_EXTERNAL_HANDLE,
    /// The memory's size in bytes.
    pub size: c_ulonglong,
    /// `CUDA_EXTERNAL_MEMORY_DEDICATED` or 0.
    pub flags: c_uint,
    /// Reserved, zero.
    pub reserved: [c_uint; 16],
}
const _: () = assert!(size_of::<CUDA_EXTERNAL_MEMORY_HANDLE_DESC>() == 104);
const _: () = assert!(align_of::<CUDA_EXTERNAL_MEMORY_HANDLE_DESC>() == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, handle) == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, size) == 24);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, flags) == 32);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, reserved) == 36);

/// `CUDA_EXTERNAL_MEMORY_BUFFER_DESC` (`_v1`): the range of imported memory
/// `cuExternalMemoryGetMappedBuffer` maps.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_EXTERNAL_MEMORY_BUFFER_DESC {
    /// Offset into the memory, in bytes.
    pub offset: c_ulonglong,
    /// Size of the buffer, in bytes.
    pub size: c_ulonglong,
    /// Flags, zero.
    pub flags: c_uint,
    /// Reserved, zero.
    pub reserved: [c_uint; 16],
}
const _: () = assert!(size_of::<CUDA_EXTERNAL_MEMORY_BUFFER_DESC>() == 88);
const _: () = assert!(align_of::<CUDA_EXTERNAL_MEMORY_BUFFER_DESC>() == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, flags) == 16);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, reserved) == 20);

/// `CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC` (`_v1`): the mipmapped array
/// `cuExternalMemoryGetMappedMipmappedArray` maps.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC {
    /// Offset into the memory where the base level starts, in bytes.
    pub offset: c_ulonglong,
    /// The base level's format, dimensions and flags.
    pub arrayDesc: CUDA_ARRAY3D_DESCRIPTOR,
    /// The number of mip levels.
    pub numLevels: c_uint,
    /// Reserved, zero.
    pub reserved: [c_uint; 16],
}
const _: () = assert!(size_of::<CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC>() == 120);
const _: () = assert!(align_of::<CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC>() == 8);
const _: () =
    assert!(core::mem::offset_of!(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC, arrayDesc) == 8);
const _: () =
    assert!(core::mem::offset_of!(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC, numLevels) == 48);
const _: () =
    assert!(core::mem::offset_of!(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC, reserved) == 52);

/// `CUexternalSemaphoreHandleType`: the kind of handle `cuImportExternalSemaphore` imports.
pub type CUexternalSemaphoreHandleType = c_int;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD`: an opaque POSIX file descriptor of a binary
/// semaphore.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD: CUexternalSemaphoreHandleType = 1;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32`: an opaque shared NT handle.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32: CUexternalSemaphoreHandleType = 2;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32_KMT`: an opaque, globally shared handle.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32_KMT: CUexternalSemaphoreHandleType = 3;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D12_FENCE`: a shared NT handle to a D3D12 fence.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D12_FENCE: CUexternalSemaphoreHandleType = 4;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_FENCE`: a shared NT handle to a D3D11 fence.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_FENCE: CUexternalSemaphoreHandleType = 5;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC`: an `NvSciSync` object.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC: CUexternalSemaphoreHandleType = 6;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_KEYED_MUTEX`: a D3D11 keyed mutex (NT handle).
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_KEYED_MUTEX: CUexternalSemaphoreHandleType = 7;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_KEYED_MUTEX_KMT`: a D3D11 keyed mutex (global).
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_KEYED_MUTEX_KMT: CUexternalSemaphoreHandleType =
    8;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD`: an opaque POSIX file descriptor
/// of a timeline semaphore (Vulkan's `VK_SEMAPHORE_TYPE_TIMELINE`).
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD: CUexternalSemaphoreHandleType =
    9;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_WIN32`: a timeline semaphore's NT handle.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_WIN32:
    CUexternalSemaphoreHandleType = 10;

/// `CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC` (`_v1`): what `cuImportExternalSemaphore` imports.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC {
    /// `CUexternalSemaphoreHandleType`.
    pub type_: CUexternalSemaphoreHandleType,
    /// The handle, by `type_`.
    pub handle: CUDA_EXTERNAL_HANDLE,
    /// Flags, zero.
    pub flags: c_uint,
    /// Reserved, zero.
    pub reserved: [c_uint; 16],
}
const _: () = assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC>() == 96);
const _: () = assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC>() == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC, handle) == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC, flags) == 24);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC, reserved) == 28);

/// `params.fence` of the signal and wait parameters: the value a fence or timeline semaphore is
/// set to, or waited for.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUDA_EXTERNAL_SEMAPHORE_fence {
    /// The value.
    pub value: c_ulonglong,
}

/// `params.nvSciSync` of the signal and wait parameters.
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUDA_EXTERNAL_SEMAPHORE_nvSciSync {
    /// The `NvSciSyncFence`.
    pub fence: *mut core::ffi::c_void,
    /// Reserved.
    pub reserved: c_ulonglong,
}

/// `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS::params.keyedMutex`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUDA_EXTERNAL_SEMAPHORE_SIGNAL_keyedMutex {
    /// The key to release the mutex with.
    pub key: c_ulonglong,
}

/// `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS::params`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params {
    /// The fence or timeline value to signal.
    pub fence: CUDA_EXTERNAL_SEMAPHORE_fence,
    /// An `NvSciSync` fence.
    pub nvSciSync: CUDA_EXTERNAL_SEMAPHORE_nvSciSync,
    /// A keyed mutex's key.
    pub keyedMutex: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_keyedMutex,
    /// Reserved, zero.
    pub reserved: [c_uint; 12],
}

/// `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS` (`_v1`): one semaphore's signal.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS {
    /// What to signal.
    pub params: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params,
    /// Flags (`CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC`), zero.
    pub flags: c_uint,
    /// Reserved, zero.
    pub reserved: [c_uint; 16],
}
const _: () = assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS>() == 144);
const _: () = assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS>() == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, flags) == 72);

/// `CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS::params.keyedMutex`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CUDA_EXTERNAL_SEMAPHORE_WAIT_keyedMutex {
    /// The key to acquire the mutex with.
    pub key: c_ulonglong,
    /// Timeout in milliseconds for the acquire.
    pub timeoutMs: c_uint,
}

/// `CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS::params`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params {
    /// The fence or timeline value to wait for.
    pub fence: CUDA_EXTERNAL_SEMAPHORE_fence,
    /// An `NvSciSync` fence.
    pub nvSciSync: CUDA_EXTERNAL_SEMAPHORE_nvSciSync,
    /// A keyed mutex's key and timeout.
    pub keyedMutex: CUDA_EXTERNAL_SEMAPHORE_WAIT_keyedMutex,
    /// Reserved, zero.
    pub reserved: [c_uint; 10],
}

/// `CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS` (`_v1`): one semaphore's wait.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS {
    /// What to wait for.
    pub params: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params,
    /// Flags (`CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC`), zero.
    pub flags: c_uint,
    /// Reserved, zero.
    pub reserved: [c_uint; 16],
}
const _: () = assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS>() == 144);
const _: () = assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS>() == 8);
const _: () = assert!(core::mem::offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS, flags) == 72);
const _: () =
    assert!(core::mem::offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params, keyedMutex) == 16);
