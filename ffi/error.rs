//! Mirrors cuda.h "Error Handling" (group__CUDA__ERROR).

use super::types::CUresult;
use core::ffi::c_char;

link_or_stub! {
    libcuda;
    /// Gets the string representation of an error code enum name.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__ERROR.html>
    pub fn cuGetErrorName(error: CUresult, pStr: *mut *const c_char) -> CUresult;
    /// Gets the string description of an error code.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__ERROR.html>
    pub fn cuGetErrorString(error: CUresult, pStr: *mut *const c_char) -> CUresult;
}
