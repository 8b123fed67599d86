//! Models `cuda.h` "Context Management" (`group__CUDA__CTX`): contexts made and destroyed, the
//! calling thread's context stack (`stack.rs`), and the context-wide events of 12.5
//! (`cuCtxRecordEvent`, `cuCtxWaitEvent`).

use super::common::{out, read_field};
use super::device::device_exists;
use super::types::{
    CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
    CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, CUDA_SUCCESS, CUdevice, CUresult, Handle,
};
use crate::check::{self, Kind};
use crate::handles::handle;
use crate::load::hang_exit;
use crate::stack::{CtxStack, with_stack};
use core::ffi::{c_int, c_uint, c_ulonglong, c_void};

entry_points! {
    fn cuCtxCreate_v2(ctx: *mut Handle, flags: c_uint, dev: CUdevice) { create_context(ctx, dev) }
    // An execution affinity is refused, as on a device without MPS
    // (`cuDeviceGetExecAffinitySupport` answers 0): `CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY`.
    fn cuCtxCreate_v3(ctx: *mut Handle, params: *mut c_void, n: c_int, flags: c_uint, dev: CUdevice) {
        if !params.is_null() && n > 0 {
            return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
        }
        create_context(ctx, dev)
    }
    // `CUctxCreateParams`: the affinity parameters' array (a pointer) and their count (an `int`
    // at offset 8), then the CIG parameters.
    fn cuCtxCreate_v4(ctx: *mut Handle, params: *mut c_void, flags: c_uint, dev: CUdevice) {
        if !params.is_null()
            && !read_field::<*const c_void>(params, 0).is_null()
            && read_field::<c_int>(params, 8) > 0
        {
            return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
        }
        create_context(ctx, dev)
    }
    fn cuCtxDestroy_v2(ctx: Handle) {
        if !check::context_destroyed(ctx as usize) {
            return CUDA_ERROR_INVALID_CONTEXT;
        }
        with_stack(|s| if s.top() == ctx { s.pop(); });
        CUDA_SUCCESS
    }
    fn cuCtxPushCurrent_v2(ctx: Handle) {
        if ctx.is_null() { return CUDA_ERROR_INVALID_CONTEXT; }
        check::context_made_current(ctx as usize, "cuCtxPushCurrent");
        with_stack(|s| s.push(ctx))
    }
    fn cuCtxPopCurrent_v2(ctx: *mut Handle) {
        if let Some(popped) = with_stack(CtxStack::pop) {
            out(ctx, popped);
            CUDA_SUCCESS
        } else {
            check::pop_empty();
            CUDA_ERROR_INVALID_CONTEXT
        }
    }
    fn cuCtxGetCurrent(ctx: *mut Handle) { out(ctx, with_stack(|s| s.top())); CUDA_SUCCESS }
    fn cuCtxSetCurrent(ctx: Handle) {
        if !ctx.is_null() {
            check::context_made_current(ctx as usize, "cuCtxSetCurrent");
        }
        with_stack(|s| {
            if ctx.is_null() {
                s.pop();
                CUDA_SUCCESS
            } else if s.len == 0 {
                s.push(ctx)
            } else {
                s.items[s.len - 1] = ctx;
                CUDA_SUCCESS
            }
        })
    }
    fn cuCtxGetDevice(dev: *mut CUdevice) { out(dev, device_of(with_stack(|s| s.top()))); CUDA_SUCCESS }
    fn cuCtxSynchronize() {
        if check::context_hung() {
            hang_exit("cuCtxSynchronize".to_owned());
        }
        check::context_synchronized();
        CUDA_SUCCESS
    }
    // The API version of the calls that made the context, not the driver's: 3020, the version of
    // `cuCtxCreate_v2` and the other `_v2` context calls (CUDA 3.2), for every context the double
    // makes (the H200 run: the double answered its reported 12020 where the driver did not).
    fn cuCtxGetApiVersion(ctx: Handle, v: *mut c_uint) {
        out(v, CONTEXT_API_VERSION);
        CUDA_SUCCESS
    }
    fn cuCtxGetFlags(flags: *mut c_uint) { out(flags, 0); CUDA_SUCCESS }
    fn cuCtxSetFlags(flags: c_uint) { CUDA_SUCCESS }
    fn cuCtxGetId(ctx: Handle, id: *mut c_ulonglong) { out(id, ctx as c_ulonglong); CUDA_SUCCESS }
    fn cuCtxGetLimit(value: *mut usize, limit: c_int) { out(value, 1024); CUDA_SUCCESS }
    fn cuCtxSetLimit(limit: c_int, value: usize) { CUDA_SUCCESS }
    fn cuCtxGetCacheConfig(config: *mut c_int) { out(config, 0); CUDA_SUCCESS }
    fn cuCtxSetCacheConfig(config: c_int) { CUDA_SUCCESS }
    fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) {
        out(least, 0);
        out(greatest, -5);
        CUDA_SUCCESS
    }
    // Driver 580 refuses the query for a green context's `CUcontext` (found by the differential
    // run on an H100, 2026-11-28: the double answered 132 SMs).
    fn cuCtxGetExecAffinity(param: *mut [c_int; 2], kind: c_int) {
        if super::green::is_green_context(with_stack(|s| s.top())) {
            return CUDA_ERROR_INVALID_CONTEXT;
        }
        out(param, [0, 132]);
        CUDA_SUCCESS
    }
    // Compute capability 9.0 has four-byte banks, fixed: `CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE`
    // whatever was set (the H200 run: the double answered the default, 0, where the driver did not).
    fn cuCtxGetSharedMemConfig(config: *mut c_int) { out(config, 1); CUDA_SUCCESS }
    fn cuCtxSetSharedMemConfig(config: c_int) { CUDA_SUCCESS }
    fn cuCtxResetPersistingL2Cache() { CUDA_SUCCESS }
    // Context-wide events: the context live, a recorded event its own; the record covers every
    // stream of the context, a wait holds back every stream of it, now and later.
    fn cuCtxRecordEvent(ctx: Handle, event: Handle) {
        if check::context_recorded(ctx as usize, event as usize) {
            CUDA_SUCCESS
        } else {
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        }
    }
    fn cuCtxWaitEvent(ctx: Handle, event: Handle) {
        if check::context_waits(ctx as usize, event as usize) {
            CUDA_SUCCESS
        } else {
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        }
    }
}

/// The device of each context `cuCtxCreate` made (a context it does not list, the primary
/// context's or a green context's, is device 0's).
static CONTEXT_DEVICES: std::sync::Mutex<std::collections::BTreeMap<usize, CUdevice>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// The device context `ctx` belongs to.
pub(crate) fn device_of(ctx: Handle) -> CUdevice {
    CONTEXT_DEVICES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&ctx.addr())
        .copied()
        .unwrap_or(0)
}

/// What `cuCtxGetApiVersion` answers for every context: 3020, the API version of `cuCtxCreate_v2`.
const CONTEXT_API_VERSION: c_uint = 3020;

/// A new context on device `dev`, recorded, written to `ctx` and pushed on the calling thread's
/// stack (`cuCtxCreate`); `CUDA_ERROR_INVALID_DEVICE` for a device the double does not have.
///
/// # Safety
///
/// `ctx` is null or valid for a write of a handle.
unsafe fn create_context(ctx: *mut Handle, dev: CUdevice) -> CUresult {
    if !device_exists(dev) {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    let new = handle();
    check::created(Kind::Context, new as usize, 0);
    CONTEXT_DEVICES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(new.addr(), dev);
    // SAFETY: `ctx` is null or valid for the write (this function's contract).
    unsafe { out(ctx, new) };
    // Like the driver: the new context is pushed on the calling thread.
    with_stack(|s| s.push(new))
}
