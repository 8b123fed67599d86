//! Mirrors cuda.h "Memory Management" (group__CUDA__MEM) and the stream-ordered allocator
//! (group__CUDA__MALLOC__ASYNC).

use super::types::{
    CUDA_MEMCPY2D, CUDA_MEMCPY3D, CUcontext, CUdevice, CUdeviceptr, CUevent, CUipcEventHandle,
    CUipcMemHandle, CUmem_advise, CUmem_range_attribute, CUmemAccessDesc,
    CUmemAllocationHandleType, CUmemAllocationProp, CUmemGenericAllocationHandle,
    CUmemPool_attribute, CUmemPoolProps, CUmemoryPool, CUpointer_attribute, CUresult, CUstream,
};
use core::ffi::{c_int, c_uchar, c_uint, c_ulonglong, c_ushort, c_void};

link_or_stub! {
    libcuda;
    /// Gets free and total memory (`cuMemGetInfo` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult;
    /// Allocates device memory (`cuMemAlloc` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) -> CUresult;
    /// Frees device memory (`cuMemFree` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    /// Gets the base address and size of the allocation that contains `dptr`
    /// (`cuMemGetAddressRange` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemGetAddressRange_v2(
        pbase: *mut CUdeviceptr,
        psize: *mut usize,
        dptr: CUdeviceptr,
    ) -> CUresult;
    /// Allocates page-locked host memory.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: usize, Flags: c_uint) -> CUresult;
    /// Frees page-locked host memory.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    /// Copies memory from host to device (`cuMemcpyHtoD` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpyHtoD_v2(
        dstDevice: CUdeviceptr,
        srcHost: *const c_void,
        ByteCount: usize,
    ) -> CUresult;
    /// Copies memory from device to host (`cuMemcpyDtoH` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpyDtoH_v2(
        dstHost: *mut c_void,
        srcDevice: CUdeviceptr,
        ByteCount: usize,
    ) -> CUresult;
    /// Copies memory from device to device (`cuMemcpyDtoD` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpyDtoD_v2(
        dstDevice: CUdeviceptr,
        srcDevice: CUdeviceptr,
        ByteCount: usize,
    ) -> CUresult;
    /// Copies memory from host to device asynchronously (`cuMemcpyHtoDAsync` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpyHtoDAsync_v2(
        dstDevice: CUdeviceptr,
        srcHost: *const c_void,
        ByteCount: usize,
        hStream: CUstream,
    ) -> CUresult;
    /// Copies memory from device to host asynchronously (`cuMemcpyDtoHAsync` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpyDtoHAsync_v2(
        dstHost: *mut c_void,
        srcDevice: CUdeviceptr,
        ByteCount: usize,
        hStream: CUstream,
    ) -> CUresult;
    /// Copies memory from device to device asynchronously (`cuMemcpyDtoDAsync` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpyDtoDAsync_v2(
        dstDevice: CUdeviceptr,
        srcDevice: CUdeviceptr,
        ByteCount: usize,
        hStream: CUstream,
    ) -> CUresult;
    /// Initializes device memory, 8-bit values (`cuMemsetD8` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemsetD8_v2(dstDevice: CUdeviceptr, uc: c_uchar, N: usize) -> CUresult;
    /// Initializes device memory, 16-bit values (`cuMemsetD16` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemsetD16_v2(dstDevice: CUdeviceptr, us: c_ushort, N: usize) -> CUresult;
    /// Initializes device memory, 32-bit values (`cuMemsetD32` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemsetD32_v2(dstDevice: CUdeviceptr, ui: c_uint, N: usize) -> CUresult;
    /// Sets device memory, 8-bit values, asynchronously.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemsetD8Async(
        dstDevice: CUdeviceptr,
        uc: c_uchar,
        N: usize,
        hStream: CUstream,
    ) -> CUresult;
    /// Sets device memory, 16-bit values, asynchronously.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemsetD16Async(
        dstDevice: CUdeviceptr,
        us: c_ushort,
        N: usize,
        hStream: CUstream,
    ) -> CUresult;
    /// Sets device memory, 32-bit values, asynchronously.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemsetD32Async(
        dstDevice: CUdeviceptr,
        ui: c_uint,
        N: usize,
        hStream: CUstream,
    ) -> CUresult;
    /// Allocates memory with stream ordered semantics.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    pub fn cuMemAllocAsync(dptr: *mut CUdeviceptr, bytesize: usize, hStream: CUstream) -> CUresult;
    /// Frees memory with stream ordered semantics.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    pub fn cuMemFreeAsync(dptr: CUdeviceptr, hStream: CUstream) -> CUresult;
    /// Registers an existing host memory range for use by CUDA (`cuMemHostRegister` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemHostRegister_v2(p: *mut c_void, bytesize: usize, Flags: c_uint) -> CUresult;
    /// Unregisters a memory range that was registered with `cuMemHostRegister`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemHostUnregister(p: *mut c_void) -> CUresult;
    /// Passes back the device pointer of mapped pinned memory (`cuMemHostGetDevicePointer` maps
    /// here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemHostGetDevicePointer_v2(
        pdptr: *mut CUdeviceptr,
        p: *mut c_void,
        Flags: c_uint,
    ) -> CUresult;
    /// Returns information about a pointer (several attributes at once).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    pub fn cuPointerGetAttributes(
        numAttributes: c_uint,
        attributes: *mut CUpointer_attribute,
        data: *mut *mut c_void,
        ptr: CUdeviceptr,
    ) -> CUresult;
    /// Allocates memory that will be automatically managed by the Unified Memory system.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemAllocManaged(dptr: *mut CUdeviceptr, bytesize: usize, flags: c_uint) -> CUresult;
    /// Prefetches managed memory to a device (or the host, `CU_DEVICE_CPU`), in stream order.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    pub fn cuMemPrefetchAsync(
        devPtr: CUdeviceptr,
        count: usize,
        dstDevice: CUdevice,
        hStream: CUstream,
    ) -> CUresult;
    /// Advises about the usage of managed memory.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    pub fn cuMemAdvise(
        devPtr: CUdeviceptr,
        count: usize,
        advice: CUmem_advise,
        device: CUdevice,
    ) -> CUresult;
    /// Queries an attribute of a range of managed memory.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    pub fn cuMemRangeGetAttribute(
        data: *mut c_void,
        dataSize: usize,
        attribute: CUmem_range_attribute,
        devPtr: CUdeviceptr,
        count: usize,
    ) -> CUresult;
    /// Creates a memory pool.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    pub fn cuMemPoolCreate(pool: *mut CUmemoryPool, poolProps: *const CUmemPoolProps) -> CUresult;
    /// Destroys a memory pool (its memory is released once every allocation is freed).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    pub fn cuMemPoolDestroy(pool: CUmemoryPool) -> CUresult;
    /// Tries to release memory back to the OS, keeping at least `minBytesToKeep` reserved.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    pub fn cuMemPoolTrimTo(pool: CUmemoryPool, minBytesToKeep: usize) -> CUresult;
    /// Sets an attribute of a memory pool.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    pub fn cuMemPoolSetAttribute(
        pool: CUmemoryPool,
        attr: CUmemPool_attribute,
        value: *mut c_void,
    ) -> CUresult;
    /// Gets an attribute of a memory pool.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    pub fn cuMemPoolGetAttribute(
        pool: CUmemoryPool,
        attr: CUmemPool_attribute,
        value: *mut c_void,
    ) -> CUresult;
    /// Allocates from a pool, in stream order.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    pub fn cuMemAllocFromPoolAsync(
        dptr: *mut CUdeviceptr,
        bytesize: usize,
        pool: CUmemoryPool,
        hStream: CUstream,
    ) -> CUresult;
    /// Allocates pitched device memory (`cuMemAllocPitch` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemAllocPitch_v2(
        dptr: *mut CUdeviceptr,
        pPitch: *mut usize,
        WidthInBytes: usize,
        Height: usize,
        ElementSizeBytes: c_uint,
    ) -> CUresult;
    /// Copies memory for 2D arrays (`cuMemcpy2D` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpy2D_v2(pCopy: *const CUDA_MEMCPY2D) -> CUresult;
    /// Copies memory for 2D arrays, in stream order (`cuMemcpy2DAsync` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpy2DAsync_v2(pCopy: *const CUDA_MEMCPY2D, hStream: CUstream) -> CUresult;
    /// Copies memory for 3D arrays (`cuMemcpy3D` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpy3D_v2(pCopy: *const CUDA_MEMCPY3D) -> CUresult;
    /// Copies memory for 3D arrays, in stream order (`cuMemcpy3DAsync` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpy3DAsync_v2(pCopy: *const CUDA_MEMCPY3D, hStream: CUstream) -> CUresult;
    /// Reserves a virtual address range.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemAddressReserve(
        ptr: *mut CUdeviceptr,
        size: usize,
        alignment: usize,
        addr: CUdeviceptr,
        flags: c_ulonglong,
    ) -> CUresult;
    /// Frees a virtual address range reserved by `cuMemAddressReserve`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) -> CUresult;
    /// Creates a physical memory allocation.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemCreate(
        handle: *mut CUmemGenericAllocationHandle,
        size: usize,
        prop: *const CUmemAllocationProp,
        flags: c_ulonglong,
    ) -> CUresult;
    /// Releases a physical allocation (its memory is freed once it is unmapped everywhere).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemRelease(handle: CUmemGenericAllocationHandle) -> CUresult;
    /// Maps a physical allocation into a reserved virtual address range.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemMap(
        ptr: CUdeviceptr,
        size: usize,
        offset: usize,
        handle: CUmemGenericAllocationHandle,
        flags: c_ulonglong,
    ) -> CUresult;
    /// Unmaps a range.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemUnmap(ptr: CUdeviceptr, size: usize) -> CUresult;
    /// Sets the access rights of a mapped range.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemSetAccess(
        ptr: CUdeviceptr,
        size: usize,
        desc: *const CUmemAccessDesc,
        count: usize,
    ) -> CUresult;
    /// The granularity physical allocations and mappings must respect.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemGetAllocationGranularity(
        granularity: *mut usize,
        prop: *const CUmemAllocationProp,
        option: c_int,
    ) -> CUresult;
    /// Exports an allocation of `cuMemCreate` (made with `handleType` in its
    /// `requestedHandleTypes`) to an OS handle written at `shareableHandle`: an `int` file
    /// descriptor the caller closes, or a `CUmemFabricHandle`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemExportToShareableHandle(
        shareableHandle: *mut c_void,
        handle: CUmemGenericAllocationHandle,
        handleType: CUmemAllocationHandleType,
        flags: c_ulonglong,
    ) -> CUresult;
    /// Imports an allocation from an OS handle (a file descriptor passed as the pointer's
    /// value, or a pointer to a `CUmemFabricHandle`): a new handle, released with `cuMemRelease`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemImportFromShareableHandle(
        handle: *mut CUmemGenericAllocationHandle,
        osHandle: *mut c_void,
        shHandleType: CUmemAllocationHandleType,
    ) -> CUresult;
    /// The properties an allocation was created with (where it lives, what it exports to).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    pub fn cuMemGetAllocationPropertiesFromHandle(
        prop: *mut CUmemAllocationProp,
        handle: CUmemGenericAllocationHandle,
    ) -> CUresult;
    /// Gets an interprocess handle for an event created with `CU_EVENT_INTERPROCESS` and
    /// `CU_EVENT_DISABLE_TIMING`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuIpcGetEventHandle(pHandle: *mut CUipcEventHandle, event: CUevent) -> CUresult;
    /// Opens an interprocess event handle exported from another process: an event of the
    /// current context that behaves as created with `CU_EVENT_DISABLE_TIMING`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuIpcOpenEventHandle(phEvent: *mut CUevent, handle: CUipcEventHandle) -> CUresult;
    /// Gets an interprocess memory handle for an existing device allocation.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuIpcGetMemHandle(pHandle: *mut CUipcMemHandle, dptr: CUdeviceptr) -> CUresult;
    /// Opens an interprocess memory handle exported from another process (`cuIpcOpenMemHandle`
    /// maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuIpcOpenMemHandle_v2(
        pdptr: *mut CUdeviceptr,
        handle: CUipcMemHandle,
        Flags: c_uint,
    ) -> CUresult;
    /// Closes memory mapped with `cuIpcOpenMemHandle`.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuIpcCloseMemHandle(dptr: CUdeviceptr) -> CUresult;
    /// Copies device memory between two contexts.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpyPeer(
        dstDevice: CUdeviceptr,
        dstContext: CUcontext,
        srcDevice: CUdeviceptr,
        srcContext: CUcontext,
        ByteCount: usize,
    ) -> CUresult;
    /// Copies device memory between two contexts, in stream order.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMemcpyPeerAsync(
        dstDevice: CUdeviceptr,
        dstContext: CUcontext,
        srcDevice: CUdeviceptr,
        srcContext: CUcontext,
        ByteCount: usize,
        hStream: CUstream,
    ) -> CUresult;
}
