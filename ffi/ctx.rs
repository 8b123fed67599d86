//! Mirrors cuda.h "Context Management" (group__CUDA__CTX).

use super::types::{
    CUcontext, CUdevice, CUexecAffinityParam, CUexecAffinityType, CUfunc_cache, CUlimit, CUresult,
    CUsharedconfig,
};
use core::ffi::{c_int, c_uint, c_ulonglong};

link_or_stub! {
    libcuda;
    /// Create a CUDA context (`cuCtxCreate` maps here in the CUDA 12 headers).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxCreate_v2(pctx: *mut CUcontext, flags: c_uint, dev: CUdevice) -> CUresult;
    /// Destroy a CUDA context (`cuCtxDestroy` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxDestroy_v2(ctx: CUcontext) -> CUresult;
    /// Pushes a context on the current CPU thread (`cuCtxPushCurrent` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxPushCurrent_v2(ctx: CUcontext) -> CUresult;
    /// Pops the current CUDA context from the current CPU thread (`cuCtxPopCurrent` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxPopCurrent_v2(pctx: *mut CUcontext) -> CUresult;
    /// Returns the CUDA context bound to the calling CPU thread.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult;
    /// Returns the device ID for the current context.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxGetDevice(device: *mut CUdevice) -> CUresult;
    /// Block for the current context's tasks to complete.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxSynchronize() -> CUresult;
    /// Gets the context's API version.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxGetApiVersion(ctx: CUcontext, version: *mut c_uint) -> CUresult;
    /// Returns the flags for the current context.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult;
    /// Returns the unique Id associated with the context supplied.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxGetId(ctx: CUcontext, ctxId: *mut c_ulonglong) -> CUresult;
    /// Returns resource limits.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxGetLimit(pvalue: *mut usize, limit: CUlimit) -> CUresult;
    /// Set resource limits.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxSetLimit(limit: CUlimit, value: usize) -> CUresult;
    /// Returns the preferred cache configuration for the current context.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxGetCacheConfig(pconfig: *mut CUfunc_cache) -> CUresult;
    /// Sets the preferred cache configuration for the current context.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxSetCacheConfig(config: CUfunc_cache) -> CUresult;
    /// Returns numerical values that correspond to the least and greatest stream priorities.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxGetStreamPriorityRange(
        leastPriority: *mut c_int,
        greatestPriority: *mut c_int,
    ) -> CUresult;
    /// Returns the current shared memory configuration for the current context (deprecated
    /// in CUDA 12, still exported).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxGetSharedMemConfig(pConfig: *mut CUsharedconfig) -> CUresult;
    /// Sets the shared memory configuration for the current context (deprecated in CUDA 12).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxSetSharedMemConfig(config: CUsharedconfig) -> CUresult;
    /// Returns the execution affinity setting for the current context.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxGetExecAffinity(
        pExecAffinity: *mut CUexecAffinityParam,
        type_: CUexecAffinityType,
    ) -> CUresult;
    /// Resets all persisting lines in cache to normal status.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    pub fn cuCtxResetPersistingL2Cache() -> CUresult;
    /// Enables direct access to memory allocations in a peer context.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html>
    pub fn cuCtxEnablePeerAccess(peerContext: CUcontext, Flags: c_uint) -> CUresult;
    /// Disables direct access to memory allocations in a peer context.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html>
    pub fn cuCtxDisablePeerAccess(peerContext: CUcontext) -> CUresult;
}
