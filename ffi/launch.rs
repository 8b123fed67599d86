//! Mirrors cuda.h "Execution Control" (group__CUDA__EXEC).

use super::types::{
    CUfunc_cache, CUfunction, CUfunction_attribute, CUlaunchConfig, CUresult, CUstream,
};

/// `CUhostFn`: a host function enqueued on a stream.
pub type CUhostFn = Option<unsafe extern "C" fn(userData: *mut c_void)>;
use core::ffi::{c_int, c_uint, c_void};

link_or_stub! {
    libcuda;
    /// Returns information about a function.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    pub fn cuFuncGetAttribute(
        pi: *mut c_int,
        attrib: CUfunction_attribute,
        hfunc: CUfunction,
    ) -> CUresult;
    /// Sets information about a function.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    pub fn cuFuncSetAttribute(
        hfunc: CUfunction,
        attrib: CUfunction_attribute,
        value: c_int,
    ) -> CUresult;
    /// Sets the preferred cache configuration for a device function.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    pub fn cuFuncSetCacheConfig(hfunc: CUfunction, config: CUfunc_cache) -> CUresult;
    /// Launches a CUDA function.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    pub fn cuLaunchKernel(
        f: CUfunction,
        gridDimX: c_uint,
        gridDimY: c_uint,
        gridDimZ: c_uint,
        blockDimX: c_uint,
        blockDimY: c_uint,
        blockDimZ: c_uint,
        sharedMemBytes: c_uint,
        hStream: CUstream,
        kernelParams: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> CUresult;
    /// Launches a CUDA function with launch-time configuration and attributes.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    pub fn cuLaunchKernelEx(
        config: *const CUlaunchConfig,
        f: CUfunction,
        kernelParams: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> CUresult;
    /// Launches a CUDA function where thread blocks can cooperate and synchronize as they run.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    pub fn cuLaunchCooperativeKernel(
        f: CUfunction,
        gridDimX: c_uint,
        gridDimY: c_uint,
        gridDimZ: c_uint,
        blockDimX: c_uint,
        blockDimY: c_uint,
        blockDimZ: c_uint,
        sharedMemBytes: c_uint,
        hStream: CUstream,
        kernelParams: *mut *mut c_void,
    ) -> CUresult;
    /// Enqueues a host function call in a stream.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    pub fn cuLaunchHostFunc(hStream: CUstream, fn_: CUhostFn, userData: *mut c_void) -> CUresult;
}
