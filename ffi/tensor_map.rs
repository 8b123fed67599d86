//! Mirrors cuda.h "Tensor Map Object Managment" (group__CUDA__TENSOR__MEMORY): the two encode
//! calls that both driver 535 and 580 export. Their types are in `types.rs`.

use super::types::{
    CUresult, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use core::ffi::{c_int, c_void};

link_or_stub! {
    libcuda;
    /// Creates a tensor map descriptor of a tiled memory region (compute capability 9.0).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html>
    pub fn cuTensorMapEncodeTiled(
        tensorMap: *mut CUtensorMap,
        tensorDataType: CUtensorMapDataType,
        tensorRank: u32,
        globalAddress: *mut c_void,
        globalDim: *const u64,
        globalStrides: *const u64,
        boxDim: *const u32,
        elementStrides: *const u32,
        interleave: CUtensorMapInterleave,
        swizzle: CUtensorMapSwizzle,
        l2Promotion: CUtensorMapL2promotion,
        oobFill: CUtensorMapFloatOOBfill,
    ) -> CUresult;
    /// Creates a tensor map descriptor of an im2col memory region (compute capability 9.0).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html>
    pub fn cuTensorMapEncodeIm2col(
        tensorMap: *mut CUtensorMap,
        tensorDataType: CUtensorMapDataType,
        tensorRank: u32,
        globalAddress: *mut c_void,
        globalDim: *const u64,
        globalStrides: *const u64,
        pixelBoxLowerCorner: *const c_int,
        pixelBoxUpperCorner: *const c_int,
        channelsPerPixel: u32,
        pixelsPerColumn: u32,
        elementStrides: *const u32,
        interleave: CUtensorMapInterleave,
        swizzle: CUtensorMapSwizzle,
        l2Promotion: CUtensorMapL2promotion,
        oobFill: CUtensorMapFloatOOBfill,
    ) -> CUresult;
}
