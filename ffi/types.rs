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
    }
}

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
        /// Verbose log output (`int` as a pointer-sized value).
        CU_JIT_LOG_VERBOSE = 12;
    }
}

/// `cuMemHostAlloc` flag: memory is portable between CUDA contexts.
pub const CU_MEMHOSTALLOC_PORTABLE: c_uint = 0x01;
/// `cuMemHostAlloc` flag: memory is mapped into the CUDA address space.
pub const CU_MEMHOSTALLOC_DEVICEMAP: c_uint = 0x02;
/// `cuMemHostAlloc` flag: memory is allocated as write-combined.
pub const CU_MEMHOSTALLOC_WRITECOMBINED: c_uint = 0x04;

/// `CU_LAUNCH_PARAM_END`, terminating the `extra` array of `cuLaunchKernel`.
pub const CU_LAUNCH_PARAM_END: *mut core::ffi::c_void = core::ptr::null_mut();

// @@DEVICE_ATTRIBUTES@@ (the full `CUdevice_attribute` list follows)

/// `CUdevice_attribute`: device properties for `cuDeviceGetAttribute`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUdevice_attribute(pub c_int);
impl CUdevice_attribute {
    /// Maximum number of threads per block.
    pub const CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: Self = Self(1);
}
