//! Mirrors cuda.h "Library Management" (group__CUDA__LIBRARY): context-independent loading.

use super::types::{CUfunction, CUjit_option, CUkernel, CUlibrary, CUlibraryOption, CUresult};
use core::ffi::{c_char, c_uint, c_void};

link_or_stub! {
    libcuda;
    /// Loads a library (PTX, cubin or fatbin) into every context, lazily.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LIBRARY.html>
    pub fn cuLibraryLoadData(
        library: *mut CUlibrary,
        code: *const c_void,
        jitOptions: *mut CUjit_option,
        jitOptionsValues: *mut *mut c_void,
        numJitOptions: c_uint,
        libraryOptions: *mut CUlibraryOption,
        libraryOptionValues: *mut *mut c_void,
        numLibraryOptions: c_uint,
    ) -> CUresult;
    /// Unloads a library.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LIBRARY.html>
    pub fn cuLibraryUnload(library: CUlibrary) -> CUresult;
    /// Returns a kernel handle by name.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LIBRARY.html>
    pub fn cuLibraryGetKernel(
        pKernel: *mut CUkernel,
        library: CUlibrary,
        name: *const c_char,
    ) -> CUresult;
    /// Returns the function of a kernel for the current context.
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LIBRARY.html>
    pub fn cuKernelGetFunction(pFunc: *mut CUfunction, kernel: CUkernel) -> CUresult;
}
