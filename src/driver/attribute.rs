//! Device attributes: [`DeviceAttribute`], one variant per attribute of CUDA 13.0's
//! `CUdevice_attribute` (deprecated ones left out), for `cuDeviceGetAttribute`.

use crate::ffi;

/// Generates [`DeviceAttribute`], its mapping to the raw value, its C name and
/// [`DeviceAttribute::ALL`] from one table of `Variant = CU_DEVICE_ATTRIBUTE_NAME;` rows, so that
/// no attribute is written twice (the value comes from the `ffi` constant of that name).
macro_rules! device_attributes {
    ($( $(#[$doc:meta])* $variant:ident = $c:ident; )*) => {
        /// A device property to query with `cuDeviceGetAttribute`.
        ///
        /// One variant for each attribute of CUDA 13.0's `CUdevice_attribute`, except those
        /// `cuda.h` marks deprecated (the aliases `SHARED_MEMORY_PER_BLOCK`,
        /// `REGISTERS_PER_BLOCK`, `MAXIMUM_TEXTURE2D_ARRAY_*`,
        /// `VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED`, and `GPU_OVERLAP`, `CAN_TEX2D_GATHER`,
        /// `MAXIMUM_TEXTURE1D_LINEAR_WIDTH`, the three `*_V1` stream memory-operation attributes and
        /// `COOPERATIVE_MULTI_DEVICE_LAUNCH`); their raw values stay available as
        /// `ffi::CUdevice_attribute` constants.
        ///
        /// Attributes newer than the installed driver are listed too: for those the driver
        /// returns `CUDA_ERROR_INVALID_VALUE` ([`ErrorKind::InvalidValue`](crate::ErrorKind)),
        /// which the query passes on. Driver 535 (CUDA 12.2), for example, knows none of the
        /// attributes added in CUDA 12.3 and later.
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[doc(alias = "CUdevice_attribute")]
        pub enum DeviceAttribute {
            $(
                $(#[$doc])*
                ///
                #[doc = concat!("`", stringify!($c), "`.")]
                $variant,
            )*
        }

        impl DeviceAttribute {
            /// Every attribute, in the order of `cuda.h` (increasing raw value).
            pub const ALL: &[Self] = &[ $( Self::$variant, )* ];

            /// The raw `CUdevice_attribute` to pass to `cuDeviceGetAttribute`.
            pub fn raw(self) -> ffi::CUdevice_attribute {
                match self {
                    $( Self::$variant => ffi::CUdevice_attribute::$c, )*
                }
            }

            /// The C name, e.g. `"CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK"`.
            pub fn name(self) -> &'static str {
                match self {
                    $( Self::$variant => stringify!($c), )*
                }
            }
        }
    };
}

device_attributes! {
    /// Maximum number of threads per block.
    MaxThreadsPerBlock = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
    /// Maximum x-dimension of a block.
    MaxBlockDimX = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X;
    /// Maximum y-dimension of a block.
    MaxBlockDimY = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y;
    /// Maximum z-dimension of a block.
    MaxBlockDimZ = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z;
    /// Maximum x-dimension of a grid.
    MaxGridDimX = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X;
    /// Maximum y-dimension of a grid.
    MaxGridDimY = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y;
    /// Maximum z-dimension of a grid.
    MaxGridDimZ = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z;
    /// Maximum shared memory available per block, in bytes.
    MaxSharedMemoryPerBlock = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK;
    /// Memory available on the device for `__constant__` variables, in bytes.
    TotalConstantMemory = CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY;
    /// Warp size in threads.
    WarpSize = CU_DEVICE_ATTRIBUTE_WARP_SIZE;
    /// Maximum pitch allowed by memory copies, in bytes.
    MaxPitch = CU_DEVICE_ATTRIBUTE_MAX_PITCH;
    /// Maximum number of 32-bit registers available per block.
    MaxRegistersPerBlock = CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK;
    /// Typical clock frequency, in kilohertz.
    ClockRate = CU_DEVICE_ATTRIBUTE_CLOCK_RATE;
    /// Alignment requirement for textures.
    TextureAlignment = CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT;
    /// Number of multiprocessors on the device.
    MultiprocessorCount = CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
    /// Whether kernels have a run-time limit (a display watchdog).
    KernelExecTimeout = CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT;
    /// Whether the device is integrated with host memory.
    Integrated = CU_DEVICE_ATTRIBUTE_INTEGRATED;
    /// Whether the device can map host memory into the CUDA address space.
    CanMapHostMemory = CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY;
    /// Compute mode (a `CUcomputemode` value).
    ComputeMode = CU_DEVICE_ATTRIBUTE_COMPUTE_MODE;
    /// Maximum 1D texture width.
    MaximumTexture1dWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH;
    /// Maximum 2D texture width.
    MaximumTexture2dWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH;
    /// Maximum 2D texture height.
    MaximumTexture2dHeight = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT;
    /// Maximum 3D texture width.
    MaximumTexture3dWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH;
    /// Maximum 3D texture height.
    MaximumTexture3dHeight = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT;
    /// Maximum 3D texture depth.
    MaximumTexture3dDepth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH;
    /// Maximum 2D layered texture width.
    MaximumTexture2dLayeredWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH;
    /// Maximum 2D layered texture height.
    MaximumTexture2dLayeredHeight = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT;
    /// Maximum layers in a 2D layered texture.
    MaximumTexture2dLayeredLayers = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS;
    /// Alignment requirement for surfaces.
    SurfaceAlignment = CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT;
    /// Whether the device can run several kernels concurrently.
    ConcurrentKernels = CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS;
    /// Whether ECC support is enabled on the device.
    EccEnabled = CU_DEVICE_ATTRIBUTE_ECC_ENABLED;
    /// PCI bus ID of the device.
    PciBusId = CU_DEVICE_ATTRIBUTE_PCI_BUS_ID;
    /// PCI device ID of the device.
    PciDeviceId = CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID;
    /// Whether the device uses the TCC driver model.
    TccDriver = CU_DEVICE_ATTRIBUTE_TCC_DRIVER;
    /// Peak memory clock frequency, in kilohertz.
    MemoryClockRate = CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE;
    /// Global memory bus width, in bits.
    GlobalMemoryBusWidth = CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH;
    /// Size of the L2 cache, in bytes.
    L2CacheSize = CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE;
    /// Maximum resident threads per multiprocessor.
    MaxThreadsPerMultiprocessor = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR;
    /// Number of asynchronous copy engines.
    AsyncEngineCount = CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT;
    /// Whether the device shares a unified address space with the host.
    UnifiedAddressing = CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING;
    /// Maximum 1D layered texture width.
    MaximumTexture1dLayeredWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH;
    /// Maximum layers in a 1D layered texture.
    MaximumTexture1dLayeredLayers = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS;
    /// Maximum 2D texture width if `CUDA_ARRAY3D_TEXTURE_GATHER` is set.
    MaximumTexture2dGatherWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH;
    /// Maximum 2D texture height if `CUDA_ARRAY3D_TEXTURE_GATHER` is set.
    MaximumTexture2dGatherHeight = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT;
    /// Alternate maximum 3D texture width.
    MaximumTexture3dWidthAlternate = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE;
    /// Alternate maximum 3D texture height.
    MaximumTexture3dHeightAlternate = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE;
    /// Alternate maximum 3D texture depth.
    MaximumTexture3dDepthAlternate = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE;
    /// PCI domain ID of the device.
    PciDomainId = CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID;
    /// Pitch alignment requirement for textures.
    TexturePitchAlignment = CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT;
    /// Maximum cubemap texture width and height.
    MaximumTexturecubemapWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH;
    /// Maximum cubemap layered texture width and height.
    MaximumTexturecubemapLayeredWidth =
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH;
    /// Maximum layers in a cubemap layered texture.
    MaximumTexturecubemapLayeredLayers =
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS;
    /// Maximum 1D surface width.
    MaximumSurface1dWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH;
    /// Maximum 2D surface width.
    MaximumSurface2dWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH;
    /// Maximum 2D surface height.
    MaximumSurface2dHeight = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT;
    /// Maximum 3D surface width.
    MaximumSurface3dWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH;
    /// Maximum 3D surface height.
    MaximumSurface3dHeight = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT;
    /// Maximum 3D surface depth.
    MaximumSurface3dDepth = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH;
    /// Maximum 1D layered surface width.
    MaximumSurface1dLayeredWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH;
    /// Maximum layers in a 1D layered surface.
    MaximumSurface1dLayeredLayers = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS;
    /// Maximum 2D layered surface width.
    MaximumSurface2dLayeredWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH;
    /// Maximum 2D layered surface height.
    MaximumSurface2dLayeredHeight = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT;
    /// Maximum layers in a 2D layered surface.
    MaximumSurface2dLayeredLayers = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS;
    /// Maximum cubemap surface width.
    MaximumSurfacecubemapWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH;
    /// Maximum cubemap layered surface width.
    MaximumSurfacecubemapLayeredWidth =
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH;
    /// Maximum layers in a cubemap layered surface.
    MaximumSurfacecubemapLayeredLayers =
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS;
    /// Maximum 2D linear texture width.
    MaximumTexture2dLinearWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH;
    /// Maximum 2D linear texture height.
    MaximumTexture2dLinearHeight = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT;
    /// Maximum 2D linear texture pitch, in bytes.
    MaximumTexture2dLinearPitch = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH;
    /// Maximum mipmapped 2D texture width.
    MaximumTexture2dMipmappedWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH;
    /// Maximum mipmapped 2D texture height.
    MaximumTexture2dMipmappedHeight = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT;
    /// Major compute capability version number.
    ComputeCapabilityMajor = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
    /// Minor compute capability version number.
    ComputeCapabilityMinor = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
    /// Maximum mipmapped 1D texture width.
    MaximumTexture1dMipmappedWidth = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH;
    /// Whether the device supports stream priorities.
    StreamPrioritiesSupported = CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED;
    /// Whether the device can cache globals in L1.
    GlobalL1CacheSupported = CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED;
    /// Whether the device can cache locals in L1.
    LocalL1CacheSupported = CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED;
    /// Maximum shared memory available per multiprocessor, in bytes.
    MaxSharedMemoryPerMultiprocessor = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR;
    /// Maximum number of 32-bit registers available per multiprocessor.
    MaxRegistersPerMultiprocessor = CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR;
    /// Whether the device can allocate managed memory on this system.
    ManagedMemory = CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY;
    /// Whether the device is on a multi-GPU board.
    MultiGpuBoard = CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD;
    /// Unique ID of a group of devices on the same multi-GPU board.
    MultiGpuBoardGroupId = CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID;
    /// Whether the link between the device and the host supports all native atomic operations.
    HostNativeAtomicSupported = CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED;
    /// Ratio of single- to double-precision performance (in floating-point operations per second).
    SingleToDoublePrecisionPerfRatio =
        CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO;
    /// Whether the device can coherently access pageable memory without registering it.
    PageableMemoryAccess = CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS;
    /// Whether the device can coherently access managed memory concurrently with the CPU.
    ConcurrentManagedAccess = CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS;
    /// Whether the device supports compute preemption.
    ComputePreemptionSupported = CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED;
    /// Whether the device can access registered host memory at the same virtual address as the CPU.
    CanUseHostPointerForRegisteredMem =
        CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM;
    /// Whether the device supports `cuLaunchCooperativeKernel`.
    CooperativeLaunch = CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH;
    /// Maximum opt-in shared memory per block, in bytes.
    MaxSharedMemoryPerBlockOptin = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
    /// Whether `CU_STREAM_WAIT_VALUE_FLUSH` and `CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES` are
    /// supported.
    CanFlushRemoteWrites = CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES;
    /// Whether the device supports host memory registration (`cuMemHostRegister`).
    HostRegisterSupported = CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED;
    /// Whether the device accesses pageable memory through the host's page tables.
    PageableMemoryAccessUsesHostPageTables =
        CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES;
    /// Whether the host can access managed memory on the device directly, without migration.
    DirectManagedMemAccessFromHost = CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST;
    /// Whether the device supports the virtual memory management APIs (`cuMemAddressReserve`,
    /// `cuMemCreate`, `cuMemMap`, ...).
    VirtualMemoryManagementSupported = CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED;
    /// Whether memory from `cuMemCreate` can be exported to a POSIX file descriptor.
    HandleTypePosixFileDescriptorSupported =
        CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED;
    /// Whether memory from `cuMemCreate` can be exported to a Win32 NT handle.
    HandleTypeWin32HandleSupported = CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED;
    /// Whether memory from `cuMemCreate` can be exported to a Win32 KMT handle.
    HandleTypeWin32KmtHandleSupported =
        CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED;
    /// Maximum number of resident blocks per multiprocessor.
    MaxBlocksPerMultiprocessor = CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR;
    /// Whether the device supports compressible memory.
    GenericCompressionSupported = CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED;
    /// Maximum L2 persisting-lines capacity, in bytes.
    MaxPersistingL2CacheSize = CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE;
    /// Maximum value of `CUaccessPolicyWindow::num_bytes`.
    MaxAccessPolicyWindowSize = CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE;
    /// Whether `cuMemCreate` accepts the `GPUDirect` RDMA flag.
    GpuDirectRdmaWithCudaVmmSupported =
        CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED;
    /// Shared memory the driver reserves per block, in bytes.
    ReservedSharedMemoryPerBlock = CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK;
    /// Whether the device supports sparse CUDA arrays and sparse mipmapped arrays.
    SparseCudaArraySupported = CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED;
    /// Whether host memory can be registered read-only to the GPU (`CU_MEMHOSTREGISTER_READ_ONLY`).
    ReadOnlyHostRegisterSupported = CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED;
    /// Whether external timeline semaphore interop is supported.
    TimelineSemaphoreInteropSupported =
        CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED;
    /// Whether the device supports `cuMemAllocAsync` and the `cuMemPool` family of APIs.
    MemoryPoolsSupported = CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED;
    /// Whether the device supports `GPUDirect` RDMA APIs.
    GpuDirectRdmaSupported = CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED;
    /// Bit mask of `CUflushGPUDirectRDMAWritesOptions`.
    GpuDirectRdmaFlushWritesOptions = CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS;
    /// Scope within which `GPUDirect` RDMA writes need no flush (a `CUGPUDirectRDMAWritesOrdering`
    /// value).
    GpuDirectRdmaWritesOrdering = CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING;
    /// Handle types supported with memory-pool-based IPC.
    MempoolSupportedHandleTypes = CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES;
    /// Whether the device supports cluster launch.
    ClusterLaunch = CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH;
    /// Whether the device supports deferred mapping of CUDA arrays and mipmapped arrays.
    DeferredMappingCudaArraySupported =
        CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED;
    /// Whether 64-bit operations are supported by `cuStreamBatchMemOp` and the related stream
    /// memory-operation APIs.
    CanUse64BitStreamMemOps = CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS;
    /// Whether `CU_STREAM_WAIT_VALUE_NOR` is supported by the stream memory-operation APIs.
    CanUseStreamWaitValueNor = CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR;
    /// Whether the device supports buffer sharing through `dma_buf`.
    DmaBufSupported = CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED;
    /// Whether the device supports IPC events.
    IpcEventSupported = CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED;
    /// Number of memory synchronization domains the device supports.
    MemSyncDomainCount = CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT;
    /// Whether the device can access memory through a tensor map.
    TensorMapAccessSupported = CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED;
    /// Whether memory can be exported to a fabric handle.
    HandleTypeFabricSupported = CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED;
    /// Whether the device supports unified function pointers.
    UnifiedFunctionPointers = CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS;
    /// NUMA configuration of the device (a `CUdeviceNumaConfig` value).
    NumaConfig = CU_DEVICE_ATTRIBUTE_NUMA_CONFIG;
    /// NUMA node ID of the GPU memory.
    NumaId = CU_DEVICE_ATTRIBUTE_NUMA_ID;
    /// Whether the device supports switch multicast and reduction operations.
    MulticastSupported = CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED;
    /// Whether contexts created on this device are shared through MPS.
    MpsEnabled = CU_DEVICE_ATTRIBUTE_MPS_ENABLED;
    /// NUMA ID of the host node closest to the device; -1 without NUMA support.
    HostNumaId = CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID;
    /// Whether the device supports CUDA in graphics (CIG) with D3D12.
    D3d12CigSupported = CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED;
    /// Bit mask of supported `CUmemDecompressAlgorithm`s.
    MemDecompressAlgorithmMask = CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK;
    /// Maximum length of a single decompress operation, in bytes.
    MemDecompressMaximumLength = CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH;
    /// Whether the device supports CUDA in graphics (CIG) with Vulkan.
    VulkanCigSupported = CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED;
    /// The combined 16-bit PCI device ID and 16-bit PCI vendor ID.
    GpuPciDeviceId = CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID;
    /// The combined 16-bit PCI subsystem ID and 16-bit PCI subsystem vendor ID.
    GpuPciSubsystemId = CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID;
    /// Whether the virtual memory management APIs support `HOST_NUMA` locations.
    HostNumaVirtualMemoryManagementSupported =
        CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED;
    /// Whether `cuMemAllocAsync` and the `cuMemPool` APIs support `HOST_NUMA` locations.
    HostNumaMemoryPoolsSupported = CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED;
    /// Whether `HOST_NUMA` IPC between nodes of a multi-node system is supported.
    HostNumaMultinodeIpcSupported = CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED;
    /// Whether `cuMemAllocAsync` and the `cuMemPool` APIs support `HOST` locations.
    HostMemoryPoolsSupported = CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED;
    /// Whether the virtual memory management APIs support `HOST` locations.
    HostVirtualMemoryManagementSupported =
        CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED;
    /// Whether page-locked host memory can be shared through `dma_buf`.
    HostAllocDmaBufSupported = CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED;
    /// Whether the link between the device and the host supports only some native atomic
    /// operations.
    OnlyPartialHostNativeAtomicSupported =
        CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED;
}

#[cfg(test)]
mod tests {
    use super::*;
    use ffi::CUdevice_attribute as Raw;
    use std::collections::HashSet;

    #[test]
    fn all_lists_each_raw_value_once() {
        let values: HashSet<i32> = DeviceAttribute::ALL.iter().map(|a| a.raw().0).collect();
        assert_eq!(values.len(), DeviceAttribute::ALL.len());
        // 1..=147 in CUDA 13.0, less the seven deprecated attributes with a value of their own.
        assert_eq!(DeviceAttribute::ALL.len(), 147 - 7);
        let deprecated = [15, 44, 69, 92, 93, 94, 96];
        for v in 1..=147 {
            assert_eq!(values.contains(&v), !deprecated.contains(&v), "value {v}");
        }
    }

    #[test]
    fn all_is_in_raw_value_order() {
        assert!(
            DeviceAttribute::ALL
                .windows(2)
                .all(|w| w[0].raw().0 < w[1].raw().0)
        );
    }

    #[test]
    fn names_match_the_ffi_constants() {
        let names: HashSet<&str> = DeviceAttribute::ALL.iter().map(|a| a.name()).collect();
        assert_eq!(names.len(), DeviceAttribute::ALL.len());
        for &a in DeviceAttribute::ALL {
            // The variant is the C name without the prefix, in UpperCamelCase.
            let rest = a.name().strip_prefix("CU_DEVICE_ATTRIBUTE_").unwrap();
            let camel: String = rest
                .split('_')
                .map(|w| w[..1].to_string() + &w[1..].to_ascii_lowercase())
                .collect();
            assert_eq!(format!("{a:?}"), camel);
        }
        let spot = [
            (
                DeviceAttribute::MaxThreadsPerBlock,
                Raw::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                1,
            ),
            (
                DeviceAttribute::WarpSize,
                Raw::CU_DEVICE_ATTRIBUTE_WARP_SIZE,
                10,
            ),
            (
                DeviceAttribute::MultiprocessorCount,
                Raw::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                16,
            ),
            (
                DeviceAttribute::ComputeCapabilityMajor,
                Raw::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                75,
            ),
            (
                DeviceAttribute::ComputeCapabilityMinor,
                Raw::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                76,
            ),
            (
                DeviceAttribute::VirtualMemoryManagementSupported,
                Raw::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                102,
            ),
            (
                DeviceAttribute::HostNumaId,
                Raw::CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID,
                134,
            ),
            (
                DeviceAttribute::OnlyPartialHostNativeAtomicSupported,
                Raw::CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED,
                147,
            ),
        ];
        for (a, raw, v) in spot {
            assert_eq!(a.raw(), raw);
            assert_eq!(raw.0, v);
        }
        assert_eq!(
            ffi::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX.0,
            DeviceAttribute::ALL.last().unwrap().raw().0 + 1
        );
    }
}
