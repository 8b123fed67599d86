//! cuBLASLt's stand-in for the checking driver: a `libcublasLt.so.12` (cuBLASLt 12's soname; the
//! scripts also name it `libcublasLt.so.13`) that a program loads instead of cuBLASLt, with the
//! checking `libcuda.so.1` ahead of the real ones on `LD_LIBRARY_PATH`.
//!
//! It keeps no state. Its handle and descriptors are the double's
//! (`checkdriver/src/library_handles.rs`, which reads `cublasLt` as a library of its own, not
//! cuBLAS), which it asks through the double's extensions, found with `dlsym` in the process's
//! global scope: `cublasLtCreate` makes a handle in the current context, `cublasLtDestroy`
//! destroys it (once, with no work that may still run on the stream its last matmul was given).
//! A matrix layout, matmul descriptor or matmul preference (`cublasLtMatrixLayoutCreate`,
//! `cublasLtMatmulDescCreate`, `cublasLtMatmulPreferenceCreate`) is made and destroyed by the
//! double too, as a host object of no context: destroyed once, or reported as a leak. The
//! double counts each entry point as a driver call of that name, so its schedules fail them too:
//! the stand-in then answers `CUBLAS_STATUS_ALLOC_FAILED` for the driver's out-of-memory and
//! `CUBLAS_STATUS_INTERNAL_ERROR` for any other failure.
//!
//! Defined here (the rest written by `../common/build.rs`):
//! - each `…SetAttribute` asks the double that its descriptor is live and cuBLASLt's, and
//!   answers success: the attribute is not recorded;
//! - `cublasLtMatmulAlgoGetHeuristic` checks the handle (live, of the current context) and its
//!   five descriptors and preference, and answers one result: an opaque algorithm (the stand-in's
//!   own mark, [`ALGORITHM`], in its first word), [`WORKSPACE`] bytes, `CUBLAS_STATUS_SUCCESS`;
//! - `cublasLtMatmul` checks the handle and the stream it is given (live, of the current
//!   context, as a set-stream is: the stream is recorded as the handle's, for its destroy), then
//!   its descriptor and four layouts, then that the algorithm is the heuristic's, and computes
//!   nothing: `CUBLAS_STATUS_NOT_SUPPORTED`, so a program sees a typed error, never a crash;
//! - `cublasLtGetVersion` answers 0 (the stand-in is no cuBLASLt version).
//!
//! It models no more: types, shapes, transposes, epilogues, alignments and the preference's
//! workspace limit are accepted as given; the workspace is not the size a real algorithm asks,
//! nor checked against the double's record of device memory. Without the double in the process
//! (a real `libcuda.so.1`), every call answers `CUBLAS_STATUS_NOT_INITIALIZED`.
//!
//! The code is `../common/standin.rs` and `../common/descriptors.rs`, shared with the other
//! stand-ins.

#![allow(
    non_snake_case,
    unused_variables,
    clippy::too_many_arguments,
    reason = "cuBLASLt's C names and signatures, most of whose arguments a stand-in ignores"
)]

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

/// The workspace the heuristic's one algorithm needs, in bytes.
pub const WORKSPACE: c_int = 64;
/// The first word of the one algorithm the heuristic answers (the rest are 0).
pub const ALGORITHM: u64 = 0x5354_414e_442d_494e; // "STAND-IN"

include!("../../common/standin.rs");
include!("../../common/descriptors.rs");
include!(concat!(env!("OUT_DIR"), "/entry_points.rs"));

/// `cublasLtGetVersion`: 0, the stand-in is no cuBLASLt version.
#[unsafe(no_mangle)]
pub extern "C" fn cublasLtGetVersion() -> usize {
    0
}

/// `cublasLtMatrixLayoutSetAttribute`: a live layout; the attribute is not modelled.
#[unsafe(no_mangle)]
pub extern "C" fn cublasLtMatrixLayoutSetAttribute(
    matLayout: Handle,
    attr: c_int,
    buf: *const c_void,
    sizeInBytes: usize,
) -> c_int {
    let name = cname!(cublasLtMatrixLayoutSetAttribute);
    use_descriptors(name, core::ptr::null_mut(), &[matLayout], || SUCCESS)
}

/// `cublasLtMatmulDescSetAttribute`: a live matmul descriptor; the attribute is not modelled.
#[unsafe(no_mangle)]
pub extern "C" fn cublasLtMatmulDescSetAttribute(
    matmulDesc: Handle,
    attr: c_int,
    buf: *const c_void,
    sizeInBytes: usize,
) -> c_int {
    let name = cname!(cublasLtMatmulDescSetAttribute);
    use_descriptors(name, core::ptr::null_mut(), &[matmulDesc], || SUCCESS)
}

/// `cublasLtMatmulPreferenceSetAttribute`: a live preference; the attribute is not modelled.
#[unsafe(no_mangle)]
pub extern "C" fn cublasLtMatmulPreferenceSetAttribute(
    pref: Handle,
    attr: c_int,
    buf: *const c_void,
    sizeInBytes: usize,
) -> c_int {
    let name = cname!(cublasLtMatmulPreferenceSetAttribute);
    use_descriptors(name, core::ptr::null_mut(), &[pref], || SUCCESS)
}

/// `cublasLtMatmulHeuristicResult_t`, as cuBLASLt 12 and 13 lay it out (custack's
/// `ffi/cublaslt.rs` asserts the same offsets).
#[repr(C)]
struct HeuristicResult {
    algo: [u64; 8],
    workspace_size: usize,
    state: c_int,
    waves_count: f32,
    reserved: [c_int; 4],
}

/// `cublasLtMatmulAlgoGetHeuristic`: one result, the algorithm [`ALGORITHM`] with
/// [`WORKSPACE`] bytes, once the handle, the descriptor, the layouts and the preference are
/// accepted.
///
/// # Safety
///
/// `returnAlgoCount` is null or valid for a write of a `c_int`; `heuristicResultsArray` null or
/// valid for writes of `requestedAlgoCount` results.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatmulAlgoGetHeuristic(
    lightHandle: Handle,
    operationDesc: Handle,
    Adesc: Handle,
    Bdesc: Handle,
    Cdesc: Handle,
    Ddesc: Handle,
    preference: Handle,
    requestedAlgoCount: c_int,
    heuristicResultsArray: *mut c_void,
    returnAlgoCount: *mut c_int,
) -> c_int {
    let name = cname!(cublasLtMatmulAlgoGetHeuristic);
    let descriptors = [operationDesc, Adesc, Bdesc, Cdesc, Ddesc, preference];
    use_descriptors(name, lightHandle, &descriptors, || {
        if heuristicResultsArray.is_null() || returnAlgoCount.is_null() || requestedAlgoCount < 1 {
            return INVALID_VALUE;
        }
        let mut algo = [0; 8];
        algo[0] = ALGORITHM;
        let result = HeuristicResult {
            algo,
            workspace_size: WORKSPACE as usize,
            state: SUCCESS,
            waves_count: 1.0,
            reserved: [0; 4],
        };
        let results = heuristicResultsArray.cast::<HeuristicResult>();
        // SAFETY: non-null (checked) and valid for at least one result, `requestedAlgoCount`
        // being at least 1 (the caller's promise).
        unsafe { results.write(result) };
        // SAFETY: the count through its non-null (checked) out-pointer (the caller's promise).
        unsafe { returnAlgoCount.write(1) };
        SUCCESS
    })
}

/// `cublasLtMatmul`: checks the handle and gives it `stream` (as a set-stream: live, of the
/// current context), then the descriptor and layouts (live, cuBLASLt's), then that `algo` is
/// the heuristic's ([`ALGORITHM`]; `CUBLAS_STATUS_INVALID_VALUE` otherwise), and computes
/// nothing: `CUBLAS_STATUS_NOT_SUPPORTED`.
///
/// # Safety
///
/// `algo` is null or valid for a read of a `cublasLtMatmulAlgo_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatmul(
    lightHandle: Handle,
    computeDesc: Handle,
    alpha: *const c_void,
    A: *const c_void,
    Adesc: Handle,
    B: *const c_void,
    Bdesc: Handle,
    beta: *const c_void,
    C: *const c_void,
    Cdesc: Handle,
    D: *mut c_void,
    Ddesc: Handle,
    algo: *const c_void,
    workspace: *mut c_void,
    workspaceSizeInBytes: usize,
    stream: Handle,
) -> c_int {
    let name = cname!(cublasLtMatmul);
    match set_stream(name, lightHandle, stream) {
        SUCCESS => {}
        refused => return refused,
    }
    use_descriptors(
        name,
        lightHandle,
        &[computeDesc, Adesc, Bdesc, Cdesc, Ddesc],
        || {
            // SAFETY: non-null (checked first), valid for the read (the caller's promise).
            if algo.is_null() || unsafe { algo.cast::<u64>().read() } != ALGORITHM {
                return INVALID_VALUE;
            }
            NOT_SUPPORTED
        },
    )
}
