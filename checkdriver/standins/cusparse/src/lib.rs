//! cuSPARSE's stand-in for the checking driver: a `libcusparse.so.12` (cuSPARSE 12's soname, in
//! CUDA 12 and 13 alike) that a program loads instead of cuSPARSE, with the checking
//! `libcuda.so.1` ahead of the real ones on `LD_LIBRARY_PATH`.
//!
//! It keeps no state. Its handles and descriptors are the double's
//! (`checkdriver/src/library_handles.rs`), which it asks through the double's extensions, found
//! with `dlsym` in the process's global scope: `cusparseCreate` makes a handle in the current
//! context, `cusparseSetStream` gives it a stream (live, of the current context),
//! `cusparseDestroy` destroys it (once, with no work that may still run on its stream), and
//! every other call that takes a handle checks it (live, of the current context). A descriptor
//! (`cusparseCreateConstCsr`, `cusparseCreateDnVec`, ...) is made and destroyed
//! (`cusparseDestroySpMat`, ...) by the double too, as a host object of no context: destroyed
//! once, or reported as a leak. The double counts each as a driver call of that name, so its
//! schedules fail them too: the stand-in then answers `CUSPARSE_STATUS_ALLOC_FAILED` for the
//! driver's out-of-memory and `CUSPARSE_STATUS_INTERNAL_ERROR` for any other failure.
//!
//! Nothing is computed: the workspace queries (`*_bufferSize`) answer [`WORKSPACE`] bytes, so
//! that a program can make its plans; every other entry point answers
//! `CUSPARSE_STATUS_NOT_SUPPORTED` and writes nothing (the version query too: the stand-in is no
//! cuSPARSE version; a descriptor is not checked where a computation takes it), so a program sees
//! a typed error, never a crash; `cusparseGetErrorString` answers one string. Without the double
//! in the process (a real `libcuda.so.1`), every call answers `CUSPARSE_STATUS_NOT_INITIALIZED`.
//!
//! The entry points are those custack declares (`ffi/cusparse.rs`), written by
//! `../common/build.rs`; the code is `../common/standin.rs`, shared with cuSOLVER's stand-in.

#![allow(
    non_snake_case,
    unused_variables,
    clippy::too_many_arguments,
    reason = "cuSPARSE's C names and signatures, most of whose arguments a stand-in ignores"
)]

/// `CUSPARSE_STATUS_SUCCESS`.
const SUCCESS: c_int = 0;
/// `CUSPARSE_STATUS_NOT_INITIALIZED`: no checking driver in the process.
const NOT_INITIALIZED: c_int = 1;
/// `CUSPARSE_STATUS_ALLOC_FAILED`.
const ALLOC_FAILED: c_int = 2;
/// `CUSPARSE_STATUS_INVALID_VALUE`.
const INVALID_VALUE: c_int = 3;
/// `CUSPARSE_STATUS_INTERNAL_ERROR`.
const INTERNAL_ERROR: c_int = 7;
/// `CUSPARSE_STATUS_NOT_SUPPORTED`.
const NOT_SUPPORTED: c_int = 10;

/// The workspace every `*_bufferSize` query answers, in bytes.
pub const WORKSPACE: c_int = 64;
/// What `cusparseGetErrorString` answers, for every status.
const ERROR_STRING: &core::ffi::CStr = c"cuSPARSE's stand-in (the checking driver)";

include!("../../common/standin.rs");
include!(concat!(env!("OUT_DIR"), "/entry_points.rs"));
