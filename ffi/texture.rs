//! Mirrors cuda.h "Texture Object Management" (group__CUDA__TEXOBJECT), "Surface Object
//! Management" (group__CUDA__SURFOBJECT), and the array calls of "Memory Management".

use super::types::{
    CUDA_ARRAY3D_DESCRIPTOR, CUDA_RESOURCE_DESC, CUDA_RESOURCE_VIEW_DESC, CUDA_TEXTURE_DESC,
    CUarray, CUmipmappedArray, CUresult, CUsurfObject, CUtexObject,
};
use core::ffi::c_uint;

link_or_stub! {
    libcuda;
    /// Creates a 1D, 2D or 3D CUDA array (`cuArray3DCreate` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuArray3DCreate_v2(
        pHandle: *mut CUarray,
        pAllocateArray: *const CUDA_ARRAY3D_DESCRIPTOR,
    ) -> CUresult;
    /// Destroys a CUDA array.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuArrayDestroy(hArray: CUarray) -> CUresult;
    /// Creates a mipmapped CUDA array of `numMipmapLevels` levels.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMipmappedArrayCreate(
        pHandle: *mut CUmipmappedArray,
        pMipmappedArrayDesc: *const CUDA_ARRAY3D_DESCRIPTOR,
        numMipmapLevels: c_uint,
    ) -> CUresult;
    /// The CUDA array of one level of a mipmapped array (owned by the mipmapped array).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMipmappedArrayGetLevel(
        pLevelArray: *mut CUarray,
        hMipmappedArray: CUmipmappedArray,
        level: c_uint,
    ) -> CUresult;
    /// Destroys a mipmapped CUDA array.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    pub fn cuMipmappedArrayDestroy(hMipmappedArray: CUmipmappedArray) -> CUresult;
    /// Creates a texture object.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TEXOBJECT.html>
    pub fn cuTexObjectCreate(
        pTexObject: *mut CUtexObject,
        pResDesc: *const CUDA_RESOURCE_DESC,
        pTexDesc: *const CUDA_TEXTURE_DESC,
        pResViewDesc: *const CUDA_RESOURCE_VIEW_DESC,
    ) -> CUresult;
    /// Destroys a texture object.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TEXOBJECT.html>
    pub fn cuTexObjectDestroy(texObject: CUtexObject) -> CUresult;
    /// Creates a surface object.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__SURFOBJECT.html>
    pub fn cuSurfObjectCreate(
        pSurfObject: *mut CUsurfObject,
        pResDesc: *const CUDA_RESOURCE_DESC,
    ) -> CUresult;
    /// Destroys a surface object.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__SURFOBJECT.html>
    pub fn cuSurfObjectDestroy(surfObject: CUsurfObject) -> CUresult;
}
