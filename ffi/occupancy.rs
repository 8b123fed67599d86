//! Mirrors cuda.h "Occupancy" (group__CUDA__OCCUPANCY).

use super::types::{CUfunction, CUresult};
use core::ffi::c_int;

/// `CUoccupancyB2DSize`: dynamic shared memory a block of the given size needs.
pub type CUoccupancyB2DSize = Option<unsafe extern "C" fn(blockSize: c_int) -> usize>;

link_or_stub! {
    libcuda;
    /// Returns occupancy of a function: active blocks per multiprocessor.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__OCCUPANCY.html>
    pub fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
        numBlocks: *mut c_int,
        func: CUfunction,
        blockSize: c_int,
        dynamicSMemSize: usize,
    ) -> CUresult;
    /// Suggests a launch configuration with reasonable occupancy.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__OCCUPANCY.html>
    pub fn cuOccupancyMaxPotentialBlockSize(
        minGridSize: *mut c_int,
        blockSize: *mut c_int,
        func: CUfunction,
        blockSizeToDynamicSMemSize: CUoccupancyB2DSize,
        dynamicSMemSize: usize,
        blockSizeLimit: c_int,
    ) -> CUresult;
    /// Returns dynamic shared memory available per block when launching `numBlocks` blocks
    /// on an SM.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__OCCUPANCY.html>
    pub fn cuOccupancyAvailableDynamicSMemPerBlock(
        dynamicSmemSize: *mut usize,
        func: CUfunction,
        numBlocks: c_int,
        blockSize: c_int,
    ) -> CUresult;
}
