//! Mirrors cuda.h "Stream Management" (group__CUDA__STREAM).

use super::types::{
    CUevent, CUgraph, CUresult, CUstream, CUstreamCaptureMode, CUstreamCaptureStatus,
};
use core::ffi::{c_int, c_uint, c_void};

/// `CUstreamCallback`: called once by the driver after the stream's earlier work, with its
/// status (an error after a device fault).
pub type CUstreamCallback =
    Option<unsafe extern "C" fn(hStream: CUstream, status: CUresult, userData: *mut c_void)>;

link_or_stub! {
    libcuda;
    /// Create a stream.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamCreate(phStream: *mut CUstream, Flags: c_uint) -> CUresult;
    /// Create a stream with the given priority.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamCreateWithPriority(
        phStream: *mut CUstream,
        flags: c_uint,
        priority: c_int,
    ) -> CUresult;
    /// Query the priority of a given stream.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamGetPriority(hStream: CUstream, priority: *mut c_int) -> CUresult;
    /// Query the flags of a given stream.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamGetFlags(hStream: CUstream, flags: *mut c_uint) -> CUresult;
    /// Make a compute stream wait on an event.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamWaitEvent(hStream: CUstream, hEvent: CUevent, Flags: c_uint) -> CUresult;
    /// Determine status of a compute stream.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamQuery(hStream: CUstream) -> CUresult;
    /// Adds a callback to be called on the host after the stream's earlier work, exactly once,
    /// with an error status after a device fault (unlike `cuLaunchHostFunc`, whose function is
    /// not called then). Not allowed during stream capture.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamAddCallback(
        hStream: CUstream,
        callback: CUstreamCallback,
        userData: *mut c_void,
        flags: c_uint,
    ) -> CUresult;
    /// Wait until a stream's tasks are completed.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamSynchronize(hStream: CUstream) -> CUresult;
    /// Destroys a stream (`cuStreamDestroy` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamDestroy_v2(hStream: CUstream) -> CUresult;
    /// Begins graph capture on a stream (`cuStreamBeginCapture` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamBeginCapture_v2(hStream: CUstream, mode: CUstreamCaptureMode) -> CUresult;
    /// Ends capture on a stream, returning the captured graph.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamEndCapture(hStream: CUstream, phGraph: *mut CUgraph) -> CUresult;
    /// Returns a stream's capture status.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamIsCapturing(
        hStream: CUstream,
        captureStatus: *mut CUstreamCaptureStatus,
    ) -> CUresult;
    /// Returns a stream's capture status, and while it is capturing the capture's id, the
    /// graph being captured and the nodes the stream's next captured work will depend on
    /// (`cuStreamGetCaptureInfo` maps here; the form both drivers 535 and 580 export).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn cuStreamGetCaptureInfo_v2(
        hStream: CUstream,
        captureStatus_out: *mut CUstreamCaptureStatus,
        id_out: *mut u64,
        graph_out: *mut CUgraph,
        dependencies_out: *mut *const super::types::CUgraphNode,
        numDependencies_out: *mut usize,
    ) -> CUresult;
}
