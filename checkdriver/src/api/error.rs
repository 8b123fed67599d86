//! Models `cuda.h` "Error Handling" (`group__CUDA__ERROR`) and "Error Log Management"
//! (`group__CUDA__LOGS`): the names and descriptions of the codes the double returns, and a log
//! callback that is registered and never called (the double logs nothing).

use super::common::out;
use super::types::{CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, CUresult, Handle};
use crate::handles::handle;
use core::ffi::{CStr, c_char, c_int, c_void};

entry_points! {
    fn cuGetErrorName(code: CUresult, s: *mut *const c_char) { error_text(code, s, true) }
    fn cuGetErrorString(code: CUresult, s: *mut *const c_char) { error_text(code, s, false) }
    // The error log (12.9): registered; the double logs nothing.
    fn cuLogsRegisterCallback(
        callback: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut c_char, usize)>,
        data: *mut c_void,
        registered: *mut Handle,
    ) {
        if callback.is_none() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        out(registered, handle());
        CUDA_SUCCESS
    }
}

/// The name (`name`) or the description of `code`, written to `s` (null and
/// `CUDA_ERROR_INVALID_VALUE` for a code the double does not return).
///
/// # Safety
///
/// `s` is null or valid for a write of a pointer.
unsafe fn error_text(code: CUresult, s: *mut *const c_char, name: bool) -> CUresult {
    let text: Option<(&CStr, &CStr)> = match code {
        0 => Some((c"CUDA_SUCCESS", c"no error")),
        1 => Some((c"CUDA_ERROR_INVALID_VALUE", c"invalid argument")),
        2 => Some((c"CUDA_ERROR_OUT_OF_MEMORY", c"out of memory")),
        3 => Some((c"CUDA_ERROR_NOT_INITIALIZED", c"initialization error")),
        201 => Some((c"CUDA_ERROR_INVALID_CONTEXT", c"invalid device context")),
        209 => Some((
            c"CUDA_ERROR_NO_BINARY_FOR_GPU",
            c"no kernel image is available for execution on the device",
        )),
        500 => Some((c"CUDA_ERROR_NOT_FOUND", c"named symbol not found")),
        _ => None,
    };
    if let Some((n, d)) = text {
        // SAFETY: `s` is null or valid for the write (this function's contract).
        unsafe { out(s, if name { n.as_ptr() } else { d.as_ptr() }) };
        CUDA_SUCCESS
    } else {
        // SAFETY: as above.
        unsafe { out(s, core::ptr::null()) };
        CUDA_ERROR_INVALID_VALUE
    }
}
