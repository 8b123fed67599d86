//! Models `cuda.h` "Driver Entry Point Access" (`group__CUDA__DRIVER__ENTRY__POINT`):
//! `cuGetProcAddress` answers from the table of every group's entry points (`api/mod.rs`), finds an
//! entry point newer than 12.2 only from its version on (`NEWER`), and finds the double's own
//! extensions (`extensions.rs`), which a real driver does not have.

use super::common::out;
use super::init::REPORTED_VERSION;
use super::lookup;
use super::types::{CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_FOUND, CUDA_SUCCESS, CUresult};
use crate::extensions::{
    custackCheckdriverCalls, custackCheckdriverLeftBehind, custackCheckdriverSetDriverVersion,
};
use crate::standin::custackCheckdriverSetStandIn;
use crate::trace;
use crate::trace::{custackCheckdriverFailCall, custackCheckdriverFailNext};
use core::ffi::{CStr, c_char, c_int, c_void};
use core::ptr::null_mut;
use core::sync::atomic::Ordering::Relaxed;

entry_points! {
    fn cuGetProcAddress(symbol: *const c_char, pfn: *mut *mut c_void, version: c_int, flags: u64) {
        trace::proc_address(symbol, version, null_mut(), |s| get_proc_address(symbol, pfn, version, s))
    }
    fn cuGetProcAddress_v2(
        symbol: *const c_char,
        pfn: *mut *mut c_void,
        version: c_int,
        flags: u64,
        status: *mut c_int,
    ) {
        trace::proc_address(symbol, version, status, |s| get_proc_address(symbol, pfn, version, s))
    }
    // The driver's private tables, which NVIDIA's own libraries ask for by UUID (NVRTC 13 does
    // in `nvrtcCompileProgram` once it has loaded libcuda and `cuInit` succeeded): the double has
    // none, so every id is not found and the table is null. NVRTC 13 then compiles without
    // them; with no `cuGetExportTable` at all it reads a table it never got and crashes.
    fn cuGetExportTable(table: *mut *const c_void, id: *const c_void) {
        out(table, core::ptr::null());
        CUDA_ERROR_NOT_FOUND
    }
}

/// The entry points newer than the 12.2 baseline, with the CUDA version that introduced each:
/// `cuGetProcAddress` finds one only when the reported driver version and the version asked
/// for are both at least that (as a real driver answers `CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND`
/// or `CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT`).
const NEWER: &[(&[u8], c_int)] = &[
    (b"cuGraphConditionalHandleCreate", 12030),
    (b"cuStreamBeginCaptureToGraph", 12030),
    (b"cuFuncGetName", 12030),
    (b"cuFuncLoad", 12040),
    (b"cuFuncGetParamInfo", 12040),
    (b"cuModuleGetFunctionCount", 12040),
    (b"cuModuleEnumerateFunctions", 12040),
    (b"cuDeviceGetDevResource", 12040),
    (b"cuCtxGetDevResource", 12040),
    (b"cuDevSmResourceSplitByCount", 12040),
    (b"cuDevResourceGenerateDesc", 12040),
    (b"cuGreenCtxCreate", 12040),
    (b"cuGreenCtxDestroy", 12040),
    (b"cuCtxFromGreenCtx", 12040),
    (b"cuGreenCtxStreamCreate", 12050),
    (b"cuCtxCreate_v4", 12050),
    (b"cuCtxRecordEvent", 12050),
    (b"cuCtxWaitEvent", 12050),
    (b"cuMemcpyBatchAsync", 12080),
    (b"cuMemcpy3DBatchAsync", 12080),
    (b"cuLogsRegisterCallback", 12090),
    (b"cuMemPrefetchBatchAsync", 13000),
    (b"cuMemDiscardBatchAsync", 13000),
    (b"cuMemDiscardAndPrefetchBatchAsync", 13000),
    (b"cuFuncGetParamCount", 13020),
];

/// `cuGetProcAddress*`: the entry point `symbol` names, for the CUDA version `version`, written
/// to `pfn`, and the status (found, not found, version not sufficient) to `status`.
///
/// # Safety
///
/// `symbol` is null or a NUL-terminated string; `pfn` is null or valid for a write of a
/// pointer; `status` is null or valid for a write of a `c_int`.
unsafe fn get_proc_address(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    status: *mut c_int,
) -> CUresult {
    const FOUND: c_int = 0;
    const NOT_FOUND: c_int = 1;
    const VERSION_NOT_SUFFICIENT: c_int = 2;
    if symbol.is_null() || pfn.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: `symbol` is non-null, so NUL-terminated (this function's contract).
    let name = unsafe { CStr::from_ptr(symbol) }.to_bytes();
    // The double's own extensions (a real driver has no such symbols): custack's `StandIn`, and
    // the driver version a checking program asks the double to report.
    let extension: Option<*mut c_void> = match name {
        b"custackCheckdriverSetStandIn" => Some(custackCheckdriverSetStandIn as *mut c_void),
        b"custackCheckdriverSetDriverVersion" => {
            Some(custackCheckdriverSetDriverVersion as *mut c_void)
        }
        b"custackCheckdriverLeftBehind" => Some(custackCheckdriverLeftBehind as *mut c_void),
        b"custackCheckdriverCalls" => Some(custackCheckdriverCalls as *mut c_void),
        b"custackCheckdriverFailNext" => Some(custackCheckdriverFailNext as *mut c_void),
        b"custackCheckdriverFailCall" => Some(custackCheckdriverFailCall as *mut c_void),
        _ => None,
    };
    if let Some(f) = extension {
        // SAFETY: `pfn` is non-null, so valid for the write (this function's contract).
        unsafe { pfn.write(f) };
        // SAFETY: `status` is null or valid for the write (this function's contract).
        unsafe { out(status, FOUND) };
        return CUDA_SUCCESS;
    }
    // The ABI that `version` selects where the names differ (`cuCtxCreate` is `_v4` from
    // 12.5); otherwise the `_v2` symbol first, as the real driver does for the versions asked.
    let mut resolved: &[u8] = name;
    let mut f = null_mut();
    if name == b"cuCtxCreate" && version >= 12050 {
        resolved = b"cuCtxCreate_v4";
        f = lookup(resolved);
    }
    // `cuMemcpyBatchAsync` and `cuMemcpy3DBatchAsync` at 13.0 or later are `_v2` (no
    // `failIdx`), which the double does not have: only the 12.8 ABI (the unversioned symbol) is
    // found, asked for at 12.8 to 12.9.
    let batch_v2 =
        matches!(name, b"cuMemcpyBatchAsync" | b"cuMemcpy3DBatchAsync") && version >= 13000;
    let mut versioned = [0u8; 128];
    if f.is_null()
        && let Some(buf) = versioned.get_mut(..name.len() + 3)
    {
        buf[..name.len()].copy_from_slice(name);
        buf[name.len()..].copy_from_slice(b"_v2");
        f = lookup(buf);
    }
    if f.is_null() && !batch_v2 {
        f = lookup(name);
    }
    // An entry point newer than the baseline: only from its version on.
    let mut answer = if f.is_null() { NOT_FOUND } else { FOUND };
    if let Some(&(_, introduced)) = NEWER.iter().find(|(n, _)| *n == resolved) {
        if REPORTED_VERSION.load(Relaxed) < introduced {
            answer = NOT_FOUND;
        } else if version < introduced {
            answer = VERSION_NOT_SUFFICIENT;
        }
    }
    if answer == FOUND {
        // SAFETY: as above.
        unsafe { pfn.write(f) };
        // SAFETY: as above.
        unsafe { out(status, FOUND) };
        CUDA_SUCCESS
    } else {
        // SAFETY: as above.
        unsafe { pfn.write(null_mut()) };
        // SAFETY: as above.
        unsafe { out(status, answer) };
        CUDA_ERROR_NOT_FOUND
    }
}
