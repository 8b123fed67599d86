//! Mirrors cuda.h "Initialization" (group__CUDA__INITIALIZE) and "Version Management"
//! (group__CUDA__VERSION).

use super::types::CUresult;
use core::ffi::{c_int, c_uint};

link_or_stub! {
    libcuda;
    /// Initialize the CUDA driver API.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__INITIALIZE.html>
    pub fn cuInit(Flags: c_uint) -> CUresult;
    /// Returns the latest CUDA version supported by the driver.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VERSION.html>
    pub fn cuDriverGetVersion(driverVersion: *mut c_int) -> CUresult;
}
