//! Mirrors cuda.h "Event Management" (group__CUDA__EVENT).

use super::types::{CUevent, CUresult, CUstream};
use core::ffi::c_uint;

link_or_stub! {
    libcuda;
    /// Creates an event.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    pub fn cuEventCreate(phEvent: *mut CUevent, Flags: c_uint) -> CUresult;
    /// Records an event.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    pub fn cuEventRecord(hEvent: CUevent, hStream: CUstream) -> CUresult;
    /// Queries an event's status.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    pub fn cuEventQuery(hEvent: CUevent) -> CUresult;
    /// Waits for an event to complete.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    pub fn cuEventSynchronize(hEvent: CUevent) -> CUresult;
    /// Destroys an event (`cuEventDestroy` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    pub fn cuEventDestroy_v2(hEvent: CUevent) -> CUresult;
    /// Computes the elapsed time between two events, in milliseconds. (The `_v2` of CUDA 12.8+
    /// is not exported by driver 535, so the original symbol is bound.)
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    pub fn cuEventElapsedTime(pMilliseconds: *mut f32, hStart: CUevent, hEnd: CUevent) -> CUresult;
}
