//! cuSOLVER's stand-in for the checking driver: a `libcusolver.so.12` (scripts/check-driver.sh
//! also names it `libcusolver.so.11`, cuSOLVER 11's soname) that a program loads instead of
//! cuSOLVER, with the checking `libcuda.so.1` ahead of the real ones on `LD_LIBRARY_PATH`.
//!
//! It keeps no state. Its handles are the double's (`checkdriver/src/library_handles.rs`), which
//! it asks through the double's extensions, found with `dlsym` in the process's global scope:
//! `cusolverDnCreate` makes one in the current context, `cusolverDnSetStream` gives it a stream
//! (live, of the current context), `cusolverDnDestroy` destroys it (once, with no work that may
//! still run on its stream), and every other call that takes a handle checks it (live, of the
//! current context). The double counts each as a driver call of that name, so its schedules fail
//! them too: the stand-in then answers `CUSOLVER_STATUS_ALLOC_FAILED` for the driver's
//! out-of-memory and `CUSOLVER_STATUS_INTERNAL_ERROR` for any other failure.
//!
//! Nothing is computed: the workspace queries (`*_bufferSize`) answer [`WORKSPACE`] elements, so
//! that a program can make its plans; every other entry point answers
//! `CUSOLVER_STATUS_NOT_SUPPORTED` and writes nothing (the version queries too: the stand-in is
//! no cuSOLVER version), so a program sees a typed error, never a crash. Without the double in
//! the process (a real `libcuda.so.1`), every call answers `CUSOLVER_STATUS_NOT_INITIALIZED`.
//!
//! The entry points are those custack declares (`ffi/cusolver.rs`), written by
//! `../common/build.rs`; the code is `../common/standin.rs`, shared with cuSPARSE's stand-in.

#![allow(
    non_snake_case,
    unused_variables,
    clippy::too_many_arguments,
    reason = "cuSOLVER's C names and signatures, most of whose arguments a stand-in ignores"
)]

/// `CUSOLVER_STATUS_SUCCESS`.
const SUCCESS: c_int = 0;
/// `CUSOLVER_STATUS_NOT_INITIALIZED`: no checking driver in the process.
const NOT_INITIALIZED: c_int = 1;
/// `CUSOLVER_STATUS_ALLOC_FAILED`.
const ALLOC_FAILED: c_int = 2;
/// `CUSOLVER_STATUS_INVALID_VALUE`.
const INVALID_VALUE: c_int = 3;
/// `CUSOLVER_STATUS_INTERNAL_ERROR`.
const INTERNAL_ERROR: c_int = 7;
/// `CUSOLVER_STATUS_NOT_SUPPORTED`.
const NOT_SUPPORTED: c_int = 9;

/// The workspace every `*_bufferSize` query answers, in elements.
pub const WORKSPACE: c_int = 8;
/// What an error-string query answers (cuSOLVER has none custack declares).
#[allow(
    dead_code,
    reason = "the common code's, for the libraries that have one"
)]
const ERROR_STRING: &core::ffi::CStr = c"cuSOLVER's stand-in (the checking driver)";

include!("../../common/standin.rs");
include!(concat!(env!("OUT_DIR"), "/entry_points.rs"));
