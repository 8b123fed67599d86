//! Models `cuda.h` "Library Management" (`group__CUDA__LIBRARY`): context-independent libraries,
//! their kernels, and each kernel's function in the current context.

use super::common::{name_of, out};
use super::types::{CUDA_ERROR_NOT_FOUND, CUDA_SUCCESS, Handle};
use crate::check::{self, Kind};
use crate::handles::handle;
use crate::standin;
use core::ffi::{c_char, c_int, c_uint, c_void};

entry_points! {
    fn cuLibraryLoadData(
        lib: *mut Handle,
        code: *const c_void,
        jit_options: *mut c_int,
        jit_values: *mut *mut c_void,
        n_jit: c_uint,
        lib_options: *mut c_int,
        lib_values: *mut *mut c_void,
        n_lib: c_uint,
    ) {
        let h = handle();
        check::created(Kind::Library, h as usize, 0);
        check::module_loaded(h as usize, code);
        out(lib, h);
        CUDA_SUCCESS
    }
    fn cuLibraryUnload(lib: Handle) releases(Kind::Library, lib as usize) {
        check::unloading(lib as usize, "cuLibraryUnload");
        let _ = check::destroyed(Kind::Library, lib as usize, "cuLibraryUnload");
        CUDA_SUCCESS
    }
    fn cuLibraryGetKernel(kernel: *mut Handle, lib: Handle, name: *const c_char) {
        check::used(Kind::Library, lib as usize, "cuLibraryGetKernel");
        let params = match check::entry(lib as usize, &name_of(name)) {
            check::Lookup::Missing => return CUDA_ERROR_NOT_FOUND,
            check::Lookup::Found(p) => Some(p),
            check::Lookup::Unknown => None,
        };
        let h = handle();
        check::created(Kind::LibraryKernel, h as usize, lib as usize);
        standin::named(h as usize, &name_of(name));
        if let Some(p) = params {
            check::function_params(h as usize, p);
        }
        out(kernel, h);
        CUDA_SUCCESS
    }
    // The kernel's function in the current context: lives until the library is unloaded.
    fn cuKernelGetFunction(f: *mut Handle, kernel: Handle) {
        check::used(Kind::LibraryKernel, kernel as usize, "cuKernelGetFunction");
        let h = handle();
        check::function_of_kernel(h as usize, kernel as usize);
        standin::same_name(h as usize, kernel as usize);
        out(f, h);
        CUDA_SUCCESS
    }
}
