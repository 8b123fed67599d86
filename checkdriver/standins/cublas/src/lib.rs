//! cuBLAS's stand-in for the checking driver: a `libcublas.so.12` (cuBLAS 12's soname; the
//! scripts also name it `libcublas.so.13`) that a program loads instead of cuBLAS, with the
//! checking `libcuda.so.1` ahead of the real ones on `LD_LIBRARY_PATH`.
//!
//! It keeps no state. Its handles are the double's (`checkdriver/src/library_handles.rs`), which
//! it asks through the double's extensions, found with `dlsym` in the process's global scope:
//! `cublasCreate_v2` makes a handle in the current context, `cublasSetStream_v2` gives it a
//! stream (live, of the current context), `cublasDestroy_v2` destroys it (once, with no work that
//! may still run on its stream), and every other call that takes a handle checks it (live, of the
//! current context). The double counts each as a driver call of that name, so its schedules fail
//! them too: the stand-in then answers `CUBLAS_STATUS_ALLOC_FAILED` for the driver's
//! out-of-memory and `CUBLAS_STATUS_INTERNAL_ERROR` for any other failure.
//!
//! Nothing is computed: the handle's settings (`cublasSetPointerMode_v2`,
//! `cublasSetWorkspace_v2`, defined here) check the handle and answer success, so that a program
//! can configure it; every other entry point answers `CUBLAS_STATUS_NOT_SUPPORTED` and writes
//! nothing (the version queries too: the stand-in is no cuBLAS version), so a program sees a
//! typed error, never a crash; `cublasGetStatusName` and `cublasGetStatusString` answer one
//! string. The workspace given is not checked against the double's record of device memory.
//! Without the double in the process (a real `libcuda.so.1`), every call answers
//! `CUBLAS_STATUS_NOT_INITIALIZED`. cuBLASLt (`libcublasLt.so`, the feature `cublaslt`) has a
//! stand-in of its own (`../cublaslt`).
//!
//! The entry points are those custack declares (`ffi/cublas.rs`), written by
//! `../common/build.rs` but the two above; the code is `../common/standin.rs`, shared with the
//! other stand-ins.

#![allow(
    non_snake_case,
    unused_variables,
    clippy::too_many_arguments,
    reason = "cuBLAS's C names and signatures, most of whose arguments a stand-in ignores"
)]

// `long long` strides (`cublasSgemmStridedBatched`), which only cuBLAS's entry points take.
use core::ffi::c_longlong;

/// `CUBLAS_STATUS_SUCCESS`.
const SUCCESS: c_int = 0;
/// `CUBLAS_STATUS_NOT_INITIALIZED`: no checking driver in the process.
const NOT_INITIALIZED: c_int = 1;
/// `CUBLAS_STATUS_ALLOC_FAILED`.
const ALLOC_FAILED: c_int = 3;
/// `CUBLAS_STATUS_INVALID_VALUE`.
const INVALID_VALUE: c_int = 7;
/// `CUBLAS_STATUS_INTERNAL_ERROR`.
const INTERNAL_ERROR: c_int = 14;
/// `CUBLAS_STATUS_NOT_SUPPORTED`.
const NOT_SUPPORTED: c_int = 15;

/// The workspace a `*_bufferSize` query would answer (cuBLAS declares none).
pub const WORKSPACE: c_int = 64;
/// What `cublasGetStatusName` and `cublasGetStatusString` answer, for every status.
const ERROR_STRING: &core::ffi::CStr = c"cuBLAS's stand-in (the checking driver)";

include!("../../common/standin.rs");
include!(concat!(env!("OUT_DIR"), "/entry_points.rs"));

/// `cublasSetPointerMode_v2`: checks the handle; the mode is not modelled.
#[unsafe(no_mangle)]
pub extern "C" fn cublasSetPointerMode_v2(handle: Handle, mode: c_int) -> c_int {
    use_handle(cname!(cublasSetPointerMode_v2), handle, || SUCCESS)
}

/// `cublasSetWorkspace_v2`: checks the handle; the workspace is not modelled (nothing runs on
/// it).
#[unsafe(no_mangle)]
pub extern "C" fn cublasSetWorkspace_v2(
    handle: Handle,
    workspace: *mut c_void,
    workspaceSizeInBytes: usize,
) -> c_int {
    use_handle(cname!(cublasSetWorkspace_v2), handle, || SUCCESS)
}
