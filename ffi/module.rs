//! Mirrors cuda.h "Module Management" (group__CUDA__MODULE).

use super::types::{
    CUdeviceptr, CUfunction, CUjit_option, CUjitInputType, CUlinkState, CUmodule, CUresult,
};
use core::ffi::{c_char, c_uint, c_void};

link_or_stub! {
    libcuda;
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
    /// Creates a pending JIT linker invocation (`cuLinkCreate` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuLinkCreate_v2(
        numOptions: c_uint,
        options: *mut CUjit_option,
        optionValues: *mut *mut c_void,
        stateOut: *mut CUlinkState,
    ) -> CUresult;
    /// Adds an input to a pending linker invocation (`cuLinkAddData` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuLinkAddData_v2(
        state: CUlinkState,
        type_: CUjitInputType,
        data: *mut c_void,
        size: usize,
        name: *const c_char,
        numOptions: c_uint,
        options: *mut CUjit_option,
        optionValues: *mut *mut c_void,
    ) -> CUresult;
    /// Adds a file input to a pending linker invocation (`cuLinkAddFile` maps here).
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuLinkAddFile_v2(
        state: CUlinkState,
        type_: CUjitInputType,
        path: *const c_char,
        numOptions: c_uint,
        options: *mut CUjit_option,
        optionValues: *mut *mut c_void,
    ) -> CUresult;
    /// Completes a pending linker invocation; the image belongs to the linker state.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuLinkComplete(
        state: CUlinkState,
        cubinOut: *mut *mut c_void,
        sizeOut: *mut usize,
    ) -> CUresult;
    /// Destroys state for a JIT linker invocation.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    pub fn cuLinkDestroy(state: CUlinkState) -> CUresult;
}
