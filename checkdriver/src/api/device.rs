//! Models `cuda.h` "Device Management" (`group__CUDA__DEVICE`): one device, an H100 as the double
//! describes it (compute capability 9.0, 132 SMs, memory pools), and its graph memory attributes
//! (as `ffi/device.rs` declares them).

use super::common::{out, out_str};
use super::green::SM_COUNT;
use super::types::{
    CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, CUdevice, Handle,
};
use crate::handles::handle;
use core::ffi::{c_char, c_int};
use core::sync::atomic::{AtomicI32, Ordering::Relaxed};

entry_points! {
    fn cuDeviceGet(dev: *mut CUdevice, ordinal: c_int) {
        if !device_exists(ordinal) { return CUDA_ERROR_INVALID_VALUE; }
        out(dev, ordinal);
        CUDA_SUCCESS
    }
    fn cuDeviceGetCount(n: *mut c_int) { out(n, DEVICES.load(Relaxed)); CUDA_SUCCESS }
    fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) {
        out_str(name, len, c"custack null driver");
        CUDA_SUCCESS
    }
    fn cuDeviceGetUuid(uuid: *mut [u8; 16], dev: CUdevice) { out(uuid, [0x5a; 16]); CUDA_SUCCESS }
    fn cuDeviceGetUuid_v2(uuid: *mut [u8; 16], dev: CUdevice) { out(uuid, [0x5a; 16]); CUDA_SUCCESS }
    fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) { out(bytes, 80 << 30); CUDA_SUCCESS }
    // The H100's answers (`attribute_value`); an attribute this driver does not know is
    // refused, as NVIDIA documents older drivers refusing a newer attribute.
    fn cuDeviceGetAttribute(value: *mut c_int, attribute: c_int, dev: CUdevice) {
        if !device_exists(dev) {
            return CUDA_ERROR_INVALID_DEVICE;
        }
        match attribute_value(attribute) {
            Some(answer) => {
                out(value, answer);
                CUDA_SUCCESS
            }
            None => CUDA_ERROR_INVALID_VALUE,
        }
    }
    fn cuDeviceGetPCIBusId(bus: *mut c_char, len: c_int, dev: CUdevice) {
        out_str(bus, len, c"0000:00:00.0");
        CUDA_SUCCESS
    }
    fn cuDeviceGetDefaultMemPool(pool: *mut Handle, dev: CUdevice) { out(pool, handle()); CUDA_SUCCESS }
    // The graph-memory pool: empty (no graph allocation node is modelled), its two high
    // watermarks reset by setting 0 and nothing else set, as the driver documents.
    fn cuDeviceGetGraphMemAttribute(dev: CUdevice, attr: c_int, value: *mut u64) {
        if !(0..=3).contains(&attr) { return CUDA_ERROR_INVALID_VALUE; }
        out(value, 0u64);
        CUDA_SUCCESS
    }
    fn cuDeviceSetGraphMemAttribute(dev: CUdevice, attr: c_int, value: *mut u64) {
        // SAFETY: the caller passes a `cuuint64_t` to read.
        let zero = !value.is_null() && unsafe { value.read() } == 0;
        if (attr == 1 || attr == 3) && zero { CUDA_SUCCESS } else { CUDA_ERROR_INVALID_VALUE }
    }
    fn cuDeviceGraphMemTrim(dev: CUdevice) { CUDA_SUCCESS }
    fn cuDeviceGetMemPool(pool: *mut Handle, dev: CUdevice) { out(pool, handle()); CUDA_SUCCESS }
    fn cuDeviceGetExecAffinitySupport(v: *mut c_int, kind: c_int, dev: CUdevice) { out(v, 0); CUDA_SUCCESS }
}

/// How many devices the double has: one, as the differential run's machine (a second, the same
/// as the first, only in the double's own tests, for the peer-access model between devices).
pub(crate) static DEVICES: AtomicI32 = AtomicI32::new(1);

/// Whether `dev` is one of the double's devices.
pub(crate) fn device_exists(dev: CUdevice) -> bool {
    (0..DEVICES.load(Relaxed)).contains(&dev)
}

/// `cuDeviceGetAttribute`'s answer for `attribute` on the double's device, an H100 SXM (the
/// differential run's H200 answers the same for every attribute a checking program compares,
/// `queries` in `benches/checking/src/observe.rs`): the compute capability 9.0 limits of NVIDIA's
/// programming guide, 132 SMs, 50 MiB of L2, and what a Linux host without MPS, `NVLink` peers or
/// an IMEX channel reports. A capability the double does not model answers 0 (absent), so that no
/// program takes a path the double cannot check. `None` for 0 and past 144
/// (`CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED`, CUDA 13.0's last): refused with
/// `CUDA_ERROR_INVALID_VALUE`, what NVIDIA documents a driver answering for an attribute newer
/// than itself.
#[allow(
    clippy::too_many_lines,
    reason = "one line per attribute, in cuda.h's order: a table, not logic to split"
)]
pub(crate) fn attribute_value(attribute: c_int) -> Option<c_int> {
    #[allow(
        clippy::match_same_arms,
        reason = "one arm per attribute with its own answer, named, as cuda.h lists them"
    )]
    let answer = match attribute {
        1 => 1024,                                             // MAX_THREADS_PER_BLOCK
        2 | 3 => 1024,                                         // MAX_BLOCK_DIM_X, _Y
        4 => 64,                                               // MAX_BLOCK_DIM_Z
        5 => i32::MAX,                                         // MAX_GRID_DIM_X
        6 | 7 => 65535,                                        // MAX_GRID_DIM_Y, _Z
        8 => 48 << 10,                                         // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 64 << 10,                                         // TOTAL_CONSTANT_MEMORY
        10 => 32,                                              // WARP_SIZE
        11 => i32::MAX,                                        // MAX_PITCH
        12 => 64 << 10,                                        // MAX_REGISTERS_PER_BLOCK
        13 => 1_980_000,                                       // CLOCK_RATE (kHz)
        14 | 30 => 512, // TEXTURE_ALIGNMENT, SURFACE_ALIGNMENT
        15 => 1,        // GPU_OVERLAP
        16 => c_int::try_from(SM_COUNT).unwrap_or(c_int::MAX), // MULTIPROCESSOR_COUNT
        17 | 18 => 0,   // KERNEL_EXEC_TIMEOUT, INTEGRATED
        19 => 1,        // CAN_MAP_HOST_MEMORY
        20 => 0,        // COMPUTE_MODE (default)
        21 | 22 => 131_072, // MAXIMUM_TEXTURE1D_WIDTH, TEXTURE2D_WIDTH
        23 => 65536,    // MAXIMUM_TEXTURE2D_HEIGHT
        24..=26 => 16384, // MAXIMUM_TEXTURE3D_WIDTH, _HEIGHT, _DEPTH
        27 | 28 => 32768, // MAXIMUM_TEXTURE2D_LAYERED_WIDTH, _HEIGHT
        29 => 2048,     // MAXIMUM_TEXTURE2D_LAYERED_LAYERS
        31 | 32 => 1,   // CONCURRENT_KERNELS, ECC_ENABLED
        33..=35 => 0,   // PCI_BUS_ID, PCI_DEVICE_ID, TCC_DRIVER
        36 => 2_619_000, // MEMORY_CLOCK_RATE (kHz)
        37 => 5120,     // GLOBAL_MEMORY_BUS_WIDTH
        38 => 50 << 20, // L2_CACHE_SIZE
        39 => 2048,     // MAX_THREADS_PER_MULTIPROCESSOR
        40 => 3,        // ASYNC_ENGINE_COUNT
        41 => 1,        // UNIFIED_ADDRESSING
        42 => 32768,    // MAXIMUM_TEXTURE1D_LAYERED_WIDTH
        43 => 2048,     // MAXIMUM_TEXTURE1D_LAYERED_LAYERS
        44 => 1,        // CAN_TEX2D_GATHER
        45 | 46 => 32768, // MAXIMUM_TEXTURE2D_GATHER_WIDTH, _HEIGHT
        47 | 48 => 8192, // MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE, _HEIGHT_ALTERNATE
        49 => 32768,    // MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE
        50 => 0,        // PCI_DOMAIN_ID
        51 => 32,       // TEXTURE_PITCH_ALIGNMENT
        52 | 53 => 32768, // MAXIMUM_TEXTURECUBEMAP_WIDTH, _LAYERED_WIDTH
        54 => 2046,     // MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS
        55 => 32768,    // MAXIMUM_SURFACE1D_WIDTH
        56 => 131_072,  // MAXIMUM_SURFACE2D_WIDTH
        57 => 65536,    // MAXIMUM_SURFACE2D_HEIGHT
        58..=60 => 16384, // MAXIMUM_SURFACE3D_WIDTH, _HEIGHT, _DEPTH
        61 => 32768,    // MAXIMUM_SURFACE1D_LAYERED_WIDTH
        62 => 2048,     // MAXIMUM_SURFACE1D_LAYERED_LAYERS
        63 | 64 => 32768, // MAXIMUM_SURFACE2D_LAYERED_WIDTH, _HEIGHT
        65 => 2048,     // MAXIMUM_SURFACE2D_LAYERED_LAYERS
        66 | 67 => 32768, // MAXIMUM_SURFACECUBEMAP_WIDTH, _LAYERED_WIDTH
        68 => 2046,     // MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS
        69 => 1 << 28,  // MAXIMUM_TEXTURE1D_LINEAR_WIDTH
        70 => 131_072,  // MAXIMUM_TEXTURE2D_LINEAR_WIDTH
        71 => 65000,    // MAXIMUM_TEXTURE2D_LINEAR_HEIGHT
        72 => 2_097_120, // MAXIMUM_TEXTURE2D_LINEAR_PITCH
        73 | 74 => 32768, // MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH, _HEIGHT
        75 => 9,        // COMPUTE_CAPABILITY_MAJOR
        76 => 0,        // COMPUTE_CAPABILITY_MINOR
        77 => 32768,    // MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH
        78..=80 => 1,   // STREAM_PRIORITIES_SUPPORTED, GLOBAL_ and LOCAL_L1_CACHE_SUPPORTED
        81 => 228 << 10, // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        82 => 64 << 10, // MAX_REGISTERS_PER_MULTIPROCESSOR
        83 => 1,        // MANAGED_MEMORY
        84 | 85 => 0,   // MULTI_GPU_BOARD, MULTI_GPU_BOARD_GROUP_ID
        86 => 0,        // HOST_NATIVE_ATOMIC_SUPPORTED (PCIe host)
        87 => 2,        // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
        88 => 0,        // PAGEABLE_MEMORY_ACCESS
        89..=91 => 1, // CONCURRENT_MANAGED_ACCESS, COMPUTE_PREEMPTION_SUPPORTED, CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
        92..=94 => 0, // the stream memory operations' _V1 attributes (deprecated)
        95 => 1,      // COOPERATIVE_LAUNCH
        96 => 0,      // COOPERATIVE_MULTI_DEVICE_LAUNCH (deprecated)
        97 => 227 << 10, // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        98 => 0,      // CAN_FLUSH_REMOTE_WRITES
        99 => 1,      // HOST_REGISTER_SUPPORTED
        100 | 101 => 0, // PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, DIRECT_MANAGED_MEM_ACCESS_FROM_HOST
        102 | 103 => 1, // VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED
        104 | 105 => 0, // HANDLE_TYPE_WIN32_HANDLE_SUPPORTED, _WIN32_KMT_
        106 => 32,      // MAX_BLOCKS_PER_MULTIPROCESSOR
        107 => 1,       // GENERIC_COMPRESSION_SUPPORTED
        108 => 30 << 20, // MAX_PERSISTING_L2_CACHE_SIZE
        109 => 128 << 20, // MAX_ACCESS_POLICY_WINDOW_SIZE
        110 => 1,       // GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED
        111 => 1024,    // RESERVED_SHARED_MEMORY_PER_BLOCK
        112..=116 => 1, // SPARSE_CUDA_ARRAY_, READ_ONLY_HOST_REGISTER_, TIMELINE_SEMAPHORE_INTEROP_, MEMORY_POOLS_, GPU_DIRECT_RDMA_SUPPORTED
        117 => 1,       // GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS (HOST)
        118 => 0,       // GPU_DIRECT_RDMA_WRITES_ORDERING (NONE)
        119 => 1,       // MEMPOOL_SUPPORTED_HANDLE_TYPES (POSIX file descriptor)
        120..=125 => 1, // CLUSTER_LAUNCH, DEFERRED_MAPPING_CUDA_ARRAY_, 64_BIT_STREAM_MEM_OPS, STREAM_WAIT_VALUE_NOR, DMA_BUF_, IPC_EVENT_SUPPORTED
        126 => 4,       // MEM_SYNC_DOMAIN_COUNT
        127 => 1,       // TENSOR_MAP_ACCESS_SUPPORTED
        128 => 0,       // HANDLE_TYPE_FABRIC_SUPPORTED (no IMEX channel)
        129 => 1,       // UNIFIED_FUNCTION_POINTERS
        130 => 0,       // NUMA_CONFIG (none)
        131 => -1,      // NUMA_ID
        132 | 133 => 0, // MULTICAST_SUPPORTED, MPS_ENABLED
        134 => -1,      // HOST_NUMA_ID
        135..=144 => 0, // CIG, decompression, PCI ids, host NUMA and host pools: absent
        _ => return None,
    };
    Some(answer)
}
