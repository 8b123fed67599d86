//! The handles of the CUDA libraries, for their stand-ins (`checkdriver/standins/`: a
//! `libcusolver.so.12` of the double's that a program loads instead of cuSOLVER under the
//! checking driver). A stand-in keeps no state of its own: each of its entry points asks the
//! double, through the four extensions below, found with `dlsym` in the process's global scope
//! (where the program's `libcuda.so.1`, the double, is); a real driver has none of them.
//!
//! Each is a driver call as far as the schedules go, named after the library's entry point
//! (`cusolverDnCreate`, ...): counted, failed by `NULLDRIVER_FAIL_AT` and the sticky, repeat and
//! lost schedules (the stand-in then answers the library's status for that failure), and traced.
//! In checking mode the double tracks each handle as a [`Kind::LibraryHandle`] of the context
//! current at its creation, and reports as violations: a handle used or destroyed after its
//! destruction, or while another context is current, or one handed to another library's call; a
//! stream given to set-stream that is not live or not of the current context; a handle
//! destroyed while the stream it was last given (not the default stream, whose work the double's
//! record does not tell apart by context) may still run work (work the library may have enqueued
//! there: the program must wait for it first). A handle alive when its context is
//! destroyed is an orphan, one alive at exit a leak, as every handle. A descriptor (any other
//! create or destroy: `cusparseCreateDnVec`, `cusparseDestroySpMat`) is a host object of no
//! context: destroyed once, never after, or a leak at exit; where a computation takes it, it is
//! not checked, but a call that takes it without a handle (cuDNN's descriptor sets and its
//! output-shape and algorithm queries) asks `LibraryDescriptorUse`: it must be live, and its
//! library's.

use crate::api::types::{CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, CUresult};
use crate::check::{self, Kind};
use crate::handles::handle;
use crate::mode::violation;
use core::ffi::{CStr, c_char, c_int};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Per live or destroyed handle: its library's prefix (`cusolverDn`, ...) and the stream it was
/// last given (0: the default stream).
static HANDLES: Mutex<Option<HashMap<usize, (String, usize)>>> = Mutex::new(None);

/// Entry point names, made `'static` once each (the schedules keep the name of the failed call).
static NAMES: Mutex<Option<HashMap<String, &'static str>>> = Mutex::new(None);

/// The call's name, `'static`; `None` for a null or non-UTF-8 one.
///
/// # Safety
///
/// `call` is null or a NUL-terminated string.
unsafe fn name(call: *const c_char) -> Option<&'static str> {
    if call.is_null() {
        return None;
    }
    // SAFETY: the caller's promise.
    let text = unsafe { CStr::from_ptr(call) }.to_str().ok()?;
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    let names = names.get_or_insert_with(HashMap::new);
    Some(
        names
            .entry(text.to_owned())
            .or_insert_with(|| Box::leak(text.to_owned().into_boxed_str())),
    )
}

/// The library an entry point belongs to: its name up to the first capital after the prefix's
/// own (`cusolverDnCreate` → `cusolverDn`, `cusparseSetStream` → `cusparse`, `cublasLtCreate`
/// → `cublasLt`).
fn library_of(call: &str) -> &str {
    let lower = call
        .find(|c: char| c.is_ascii_uppercase())
        .unwrap_or(call.len());
    // `cusolverDn`, `cusolverSp`: cuSOLVER's API's two letters belong to the prefix (not
    // cuSPARSE's `cusparseSpMV`).
    let solver = &call[..lower] == "cusolver"
        && (call[lower..].starts_with("Dn") || call[lower..].starts_with("Sp"));
    // `cublasLt`: cuBLASLt, a library of its own (its handle is not cuBLAS's).
    let lt = &call[..lower] == "cublas" && call[lower..].starts_with("Lt");
    if solver || lt {
        &call[..lower + 2]
    } else {
        &call[..lower]
    }
}

/// What `call` makes or destroys: the library's handle (`cusolverDnCreate`, `cusparseDestroy`,
/// `cublasCreate_v2`: the library's name and `Create` or `Destroy`), or a descriptor (any other
/// create or destroy: `cusparseCreateDnVec`, `cusparseDestroySpMat`).
fn kind_of(call: &str) -> Kind {
    // NCCL has no descriptors: each of its creates makes a communicator (`ncclCommInitRankConfig`,
    // `ncclCommSplit`), each destroy or abort ends one.
    if library_of(call) == "nccl" {
        return Kind::LibraryHandle;
    }
    let rest = call
        .strip_prefix(library_of(call))
        .unwrap_or(call)
        .trim_end_matches("_v2");
    if rest == "Create" || rest == "Destroy" {
        Kind::LibraryHandle
    } else {
        Kind::LibraryDescriptor
    }
}

/// Counts the call and applies the schedules: `Some(code)` when it is failed, then traced.
fn scheduled(call: &'static str) -> Option<CUresult> {
    let failed = check::fault(call);
    if let Some(code) = failed {
        crate::trace::record(call, code);
    }
    failed
}

/// Checks that `h` is a live handle of `call`'s library, of the current context.
fn check_handle(call: &'static str, h: usize) {
    check::used(Kind::LibraryHandle, h, call);
    check_library(call, h);
}

/// Checks that `h`, if the double made it, is a handle of `call`'s library.
fn check_library(call: &'static str, h: usize) {
    let handles = HANDLES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((library, _)) = handles.as_ref().and_then(|m| m.get(&h))
        && library != library_of(call)
        && crate::api::common::checking()
    {
        violation(&format!("{call}: handle {h:#x} is a {library} handle"));
    }
}

/// The double's extension for the libraries' stand-ins: the library call `call` (e.g.
/// `cusolverDnCreate`) makes a handle of the current context, written to `out`; any other
/// create (`cusparseCreateDnVec`) a descriptor, of no context. Counted and
/// failed as a driver call named `call`: returns its error code then, and writes nothing.
///
/// # Safety
///
/// `call` is a NUL-terminated string; `out` is null or valid for a write of a `u64`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverLibraryCreate(
    call: *const c_char,
    out: *mut u64,
) -> CUresult {
    // SAFETY: the caller's promise.
    let Some(call) = (unsafe { name(call) }) else {
        return CUDA_ERROR_INVALID_VALUE;
    };
    if let Some(code) = scheduled(call) {
        return code;
    }
    let h = handle() as usize;
    check::created(kind_of(call), h, 0);
    HANDLES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(h, (library_of(call).to_owned(), 0));
    // SAFETY: `out` is null or valid for the write (the caller's promise).
    unsafe { crate::api::common::out(out, h as u64) };
    crate::trace::record(call, CUDA_SUCCESS);
    CUDA_SUCCESS
}

/// The double's extension for the libraries' stand-ins: `call` (e.g. `cusolverDnSetStream`)
/// gives handle `h` the stream `stream` (0: the default stream), which must be live and of the
/// current context, as the handle must. Counted and failed as a driver call named `call`.
///
/// # Safety
///
/// `call` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverLibrarySetStream(
    call: *const c_char,
    h: u64,
    stream: u64,
) -> CUresult {
    // SAFETY: the caller's promise (a null name is refused).
    let Some(call) = (unsafe { name(call) }) else {
        return CUDA_ERROR_INVALID_VALUE;
    };
    if let Some(code) = scheduled(call) {
        return code;
    }
    check_handle(call, h as usize);
    check::used(Kind::Stream, stream as usize, call);
    if let Some((_, s)) = HANDLES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .get_mut(&(h as usize))
    {
        *s = stream as usize;
    }
    crate::trace::record(call, CUDA_SUCCESS);
    CUDA_SUCCESS
}

/// The double's extension for the libraries' stand-ins: `call`, any other entry point that
/// takes handle `h` (a workspace query, a computation the stand-in does not model): the handle
/// must be live and of the current context. Counted and failed as a driver call named `call`.
///
/// # Safety
///
/// `call` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverLibraryUse(call: *const c_char, h: u64) -> CUresult {
    // SAFETY: the caller's promise (a null name is refused).
    let Some(call) = (unsafe { name(call) }) else {
        return CUDA_ERROR_INVALID_VALUE;
    };
    if let Some(code) = scheduled(call) {
        return code;
    }
    check_handle(call, h as usize);
    crate::trace::record(call, CUDA_SUCCESS);
    CUDA_SUCCESS
}

/// The double's extension for the libraries' stand-ins: `call`, an entry point that takes the
/// `count` descriptors at `descriptors` (cuDNN's `cudnnSetTensor4dDescriptorEx`,
/// `cudnnGetConvolution2dForwardOutputDim`, `cudnnGetConvolutionForwardAlgorithm_v7`, ...) and
/// handle `h` (0: none). Each descriptor must be one the double made for `call`'s library and
/// not yet destroyed, in any context (a descriptor is of none); the handle, as for
/// `LibraryUse`. Counted and failed as one driver call named `call`.
///
/// # Safety
///
/// `call` is a NUL-terminated string; `descriptors` is valid for reads of `count` `u64`s (or
/// `count` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverLibraryDescriptorUse(
    call: *const c_char,
    h: u64,
    descriptors: *const u64,
    count: usize,
) -> CUresult {
    // SAFETY: the caller's promise (a null name is refused).
    let Some(call) = (unsafe { name(call) }) else {
        return CUDA_ERROR_INVALID_VALUE;
    };
    if count > 0 && descriptors.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if let Some(code) = scheduled(call) {
        return code;
    }
    if h != 0 {
        check_handle(call, h as usize);
    }
    let descriptors = if count == 0 {
        &[][..]
    } else {
        // SAFETY: non-null (checked), valid for `count` reads (the caller's promise).
        unsafe { core::slice::from_raw_parts(descriptors, count) }
    };
    for &d in descriptors {
        check::used(Kind::LibraryDescriptor, d as usize, call);
        check_library(call, d as usize);
    }
    crate::trace::record(call, CUDA_SUCCESS);
    CUDA_SUCCESS
}

/// The double's extension for the libraries' stand-ins: `call` (e.g. `cusolverDnDestroy`)
/// destroys handle `h`, which must be live and of the current context, and whose stream must
/// have no work that may still run; any other destroy (`cusparseDestroyDnVec`) a descriptor,
/// which must be live. Counted and failed as a driver call named `call` (a failed
/// destroy destroys nothing: the handle stays live).
///
/// # Safety
///
/// `call` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverLibraryDestroy(call: *const c_char, h: u64) -> CUresult {
    // SAFETY: the caller's promise (a null name is refused).
    let Some(call) = (unsafe { name(call) }) else {
        return CUDA_ERROR_INVALID_VALUE;
    };
    if let Some(code) = scheduled(call) {
        return code;
    }
    let h = h as usize;
    let stream = HANDLES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|m| m.get(&h))
        .map(|(library, stream)| (library.clone(), *stream));
    check_library(call, h);
    if check::destroyed(kind_of(call), h, call)
        && let Some((_, stream)) = stream
        // The default stream's work is not told apart by context in the double's record: only
        // a stream the handle was given is checked.
        && stream != 0
        && check::has_pending(stream)
    {
        violation(&format!(
            "{call}: handle {h:#x} destroyed while work on its stream {stream:#x} may still run \
             (work the library may have enqueued there)"
        ));
    }
    crate::trace::record(call, CUDA_SUCCESS);
    CUDA_SUCCESS
}

/// The double's extension for the libraries' stand-ins: `call` (NCCL's `ncclAllReduce`, ...),
/// which takes handle `h` (live, of the current context; 0: none) and enqueues work on `stream`
/// (live, of the current context, recorded as the handle's for its destroy) that uses the
/// device memory at each of the `count` addresses at `addresses` (each checked as a use, then
/// pending on `stream` until the program sees the stream's work complete: freeing it before
/// is a violation). The work is an enqueue as far as `NULLDRIVER_HANG_AT` goes; with `block`
/// other than 0 it is held back (`check::library_block`: the stream's work does not complete)
/// until `custackCheckdriverLibraryRelease`. Counted and failed as a driver call named `call`
/// (a failed call enqueues nothing).
///
/// # Safety
///
/// `call` is a NUL-terminated string; `addresses` is valid for reads of `count` `u64`s (or
/// `count` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverLibraryEnqueue(
    call: *const c_char,
    h: u64,
    stream: u64,
    addresses: *const u64,
    count: usize,
    block: c_int,
) -> CUresult {
    // SAFETY: the caller's promise (a null name is refused).
    let Some(call) = (unsafe { name(call) }) else {
        return CUDA_ERROR_INVALID_VALUE;
    };
    if count > 0 && addresses.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if let Some(code) = scheduled(call) {
        return code;
    }
    if h != 0 {
        check_handle(call, h as usize);
    }
    let stream = stream as usize;
    check::used(Kind::Stream, stream, call);
    if let Some((_, s)) = HANDLES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .get_mut(&(h as usize))
    {
        *s = stream;
    }
    check::enqueue(stream);
    if block != 0 {
        check::library_block(stream);
    }
    let addresses = if count == 0 {
        &[][..]
    } else {
        // SAFETY: non-null (checked), valid for `count` reads (the caller's promise).
        unsafe { core::slice::from_raw_parts(addresses, count) }
    };
    for &a in addresses {
        check::used_address(a, call);
        check::enqueued(stream, Kind::DeviceMemory, a as usize);
    }
    crate::trace::record(call, CUDA_SUCCESS);
    CUDA_SUCCESS
}

/// The double's extension for the libraries' stand-ins: what `custackCheckdriverLibraryEnqueue`
/// held back on `stream` is released (NCCL's group completed, or its communicator was aborted):
/// pending as any other work from now on. Not a driver call: neither counted nor failed (NCCL's
/// abort, which releases, is counted on its own).
#[unsafe(no_mangle)]
pub extern "C" fn custackCheckdriverLibraryRelease(stream: u64) -> CUresult {
    check::library_release(stream as usize);
    CUDA_SUCCESS
}

/// The double's extension for the libraries' stand-ins: `call` (NCCL's `ncclCommAbort`) ends
/// handle `h`, which must be live and of the current context, whatever work of it may still run
/// (an abort is made for that: the program waits for the work afterwards). Counted and failed
/// as a driver call named `call`; a failed abort still ends the handle (NCCL's abort frees the
/// communicator whatever it answers: the status reports what went wrong on the way).
///
/// # Safety
///
/// `call` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverLibraryAbort(call: *const c_char, h: u64) -> CUresult {
    // SAFETY: the caller's promise (a null name is refused).
    let Some(call) = (unsafe { name(call) }) else {
        return CUDA_ERROR_INVALID_VALUE;
    };
    let failed = scheduled(call);
    check_library(call, h as usize);
    let _ = check::destroyed(Kind::LibraryHandle, h as usize, call);
    if let Some(code) = failed {
        return code;
    }
    crate::trace::record(call, CUDA_SUCCESS);
    CUDA_SUCCESS
}

/// The double's extension for the libraries' stand-ins: `call`, an entry point that needs no
/// current context (NCCL's `ncclGetUniqueId`, its group calls, its queries of a
/// communicator): handle `h` (0: none) must be live and `call`'s library's, in any context.
/// Counted and failed as a driver call named `call`.
///
/// # Safety
///
/// `call` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverLibraryCall(call: *const c_char, h: u64) -> CUresult {
    // SAFETY: the caller's promise (a null name is refused).
    let Some(call) = (unsafe { name(call) }) else {
        return CUDA_ERROR_INVALID_VALUE;
    };
    if let Some(code) = scheduled(call) {
        return code;
    }
    if h != 0 {
        check::used_from_any_context(Kind::LibraryHandle, h as usize, call);
        check_library(call, h as usize);
    }
    crate::trace::record(call, CUDA_SUCCESS);
    CUDA_SUCCESS
}

#[cfg(test)]
mod tests {
    use super::library_of;

    #[test]
    fn entry_points_name_their_library() {
        assert_eq!(library_of("cusolverDnCreate"), "cusolverDn");
        assert_eq!(library_of("cusolverDnSgetrf_bufferSize"), "cusolverDn");
        assert_eq!(library_of("cusparseSetStream"), "cusparse");
        assert_eq!(library_of("cusparseSpMV_bufferSize"), "cusparse");
        assert_eq!(library_of("cudnnDestroy"), "cudnn");
        assert_eq!(library_of("cublasCreate_v2"), "cublas");
        assert_eq!(library_of("cublasLtCreate"), "cublasLt");
        assert_eq!(library_of("cublasLtMatrixLayoutDestroy"), "cublasLt");
        assert_eq!(library_of("ncclCommInitRankConfig"), "nccl");
        assert_eq!(library_of("ncclAllReduce"), "nccl");
    }

    #[test]
    fn creates_and_destroys_name_a_handle_or_a_descriptor() {
        use super::{Kind, kind_of};
        for handle in [
            "cusolverDnCreate",
            "cusparseDestroy",
            "cudnnCreate",
            "cublasCreate_v2",
            "cublasLtCreate",
            "cublasLtDestroy",
            "ncclCommInitRankConfig",
            "ncclCommSplit",
            "ncclCommDestroy",
            "ncclCommAbort",
        ] {
            assert_eq!(kind_of(handle), Kind::LibraryHandle, "{handle}");
        }
        for descriptor in [
            "cusparseCreateDnVec",
            "cusparseDestroySpMat",
            "cudnnCreateTensorDescriptor",
            "cublasLtMatmulDescCreate",
            "cublasLtMatrixLayoutDestroy",
        ] {
            assert_eq!(kind_of(descriptor), Kind::LibraryDescriptor, "{descriptor}");
        }
    }
}
