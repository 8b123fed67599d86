//! Mirrors cuda.h "Graph Management" (group__CUDA__GRAPH).

use super::types::{
    CUgraph, CUgraphExec, CUgraphExecUpdateResultInfo, CUgraphNode, CUresult, CUstream,
};
use core::ffi::c_ulonglong;

link_or_stub! {
    libcuda;
    /// Destroys a graph.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphDestroy(hGraph: CUgraph) -> CUresult;
    /// Returns a graph's nodes (`numNodes` in: capacity of `nodes`, or 0 with null `nodes` to
    /// count; out: the count).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphGetNodes(
        hGraph: CUgraph,
        nodes: *mut CUgraphNode,
        numNodes: *mut usize,
    ) -> CUresult;
    /// Creates an executable graph from a graph (`cuGraphInstantiate` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphInstantiateWithFlags(
        phGraphExec: *mut CUgraphExec,
        hGraph: CUgraph,
        flags: c_ulonglong,
    ) -> CUresult;
    /// Launches an executable graph in a stream.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphLaunch(hGraphExec: CUgraphExec, hStream: CUstream) -> CUresult;
    /// Uploads an executable graph to the device in a stream without running it; later
    /// launches of it are ordered after the upload.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphUpload(hGraphExec: CUgraphExec, hStream: CUstream) -> CUresult;
    /// Destroys an executable graph.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecDestroy(hGraphExec: CUgraphExec) -> CUresult;
    /// Updates an executable graph with the parameters of a graph of the same topology
    /// (`cuGraphExecUpdate` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    pub fn cuGraphExecUpdate_v2(
        hGraphExec: CUgraphExec,
        hGraph: CUgraph,
        resultInfo: *mut CUgraphExecUpdateResultInfo,
    ) -> CUresult;
}
