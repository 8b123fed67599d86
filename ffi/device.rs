//! Mirrors cuda.h "Device Management" (group__CUDA__DEVICE).

use super::types::{
    CUdevice, CUdevice_attribute, CUexecAffinityType, CUgraphMem_attribute, CUmemoryPool, CUresult,
    CUuuid,
};
use core::ffi::{c_char, c_int, c_void};

link_or_stub! {
    libcuda;
    /// Returns a handle to a compute device.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    pub fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult;
    /// Returns the number of compute-capable devices.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    pub fn cuDeviceGetCount(count: *mut c_int) -> CUresult;
    /// Returns an identifier string for the device.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    pub fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult;
    /// Return an UUID for the device (`cuDeviceGetUuid` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    pub fn cuDeviceGetUuid_v2(uuid: *mut CUuuid, dev: CUdevice) -> CUresult;
    /// Returns the total amount of memory on the device (`cuDeviceTotalMem` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    pub fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult;
    /// Returns information about the device.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    pub fn cuDeviceGetAttribute(
        pi: *mut c_int,
        attrib: CUdevice_attribute,
        dev: CUdevice,
    ) -> CUresult;
    /// Returns a PCI Bus Id string for the device.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuDeviceGetPCIBusId(pciBusId: *mut c_char, len: c_int, dev: CUdevice) -> CUresult;
    /// Returns whether the device supports a kind of execution affinity.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    pub fn cuDeviceGetExecAffinitySupport(
        pi: *mut c_int,
        type_: CUexecAffinityType,
        dev: CUdevice,
    ) -> CUresult;
    /// Returns the default memory pool of a device.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    pub fn cuDeviceGetDefaultMemPool(pool_out: *mut CUmemoryPool, dev: CUdevice) -> CUresult;
    /// Queries a figure of the device's graph-memory pool (a `cuuint64_t` at `value`).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuDeviceGetGraphMemAttribute(
        device: CUdevice,
        attr: CUgraphMem_attribute,
        value: *mut c_void,
    ) -> CUresult;
    /// Sets a figure of the device's graph-memory pool (only a high watermark, to 0).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuDeviceSetGraphMemAttribute(
        device: CUdevice,
        attr: CUgraphMem_attribute,
        value: *mut c_void,
    ) -> CUresult;
    /// Frees the device's graph memory not in use back to the OS.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuDeviceGraphMemTrim(device: CUdevice) -> CUresult;
    /// Queries whether a device may directly access a peer device's memory.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html>
    pub fn cuDeviceCanAccessPeer(
        canAccessPeer: *mut c_int,
        dev: CUdevice,
        peerDev: CUdevice,
    ) -> CUresult;
}
