//! Mirrors cuda.h "Module Management" (group__CUDA__MODULE).

use super::{CUdeviceptr, CUfunction, CUjit_option, CUmodule, CUresult};
use core::ffi::{c_char, c_uint, c_void};

unsafe extern "C" {
    /// Load a module's data (PTX, cubin or fatbin image in memory).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult;
    /// Load a module's data with options (JIT logs, optimization level, ...).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuModuleLoadDataEx(
        module: *mut CUmodule,
        image: *const c_void,
        numOptions: c_uint,
        options: *mut CUjit_option,
        optionValues: *mut *mut c_void,
    ) -> CUresult;
    /// Load a fat binary.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuModuleLoadFatBinary(module: *mut CUmodule, fatCubin: *const c_void) -> CUresult;
    /// Unloads a module.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuModuleUnload(hmod: CUmodule) -> CUresult;
    /// Returns a function handle.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuModuleGetFunction(
        hfunc: *mut CUfunction,
        hmod: CUmodule,
        name: *const c_char,
    ) -> CUresult;
    /// Returns a global pointer from a module (`cuModuleGetGlobal` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuModuleGetGlobal_v2(
        dptr: *mut CUdeviceptr,
        bytes: *mut usize,
        hmod: CUmodule,
        name: *const c_char,
    ) -> CUresult;
}
