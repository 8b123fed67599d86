//! Mirrors cuda.h "Primary Context Management" (group__CUDA__PRIMARY__CTX).

use super::types::{CUcontext, CUdevice, CUresult};
use core::ffi::{c_int, c_uint};

link_or_stub! {
    libcuda;
    /// Retain the primary context on the GPU.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    pub fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: CUdevice) -> CUresult;
    /// Release the primary context on the GPU (`cuDevicePrimaryCtxRelease` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    pub fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult;
    /// Set flags for the primary context (`cuDevicePrimaryCtxSetFlags` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    pub fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) -> CUresult;
    /// Get the state of the primary context.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    pub fn cuDevicePrimaryCtxGetState(
        dev: CUdevice,
        flags: *mut c_uint,
        active: *mut c_int,
    ) -> CUresult;
    /// Destroy all allocations and reset all state on the primary context
    /// (`cuDevicePrimaryCtxReset` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    pub fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult;
}
