//! Models `cuda.h` "Context Management" (`group__CUDA__CTX`): contexts made and destroyed, the
//! calling thread's context stack (`stack.rs`), and the context-wide events of 12.5
//! (`cuCtxRecordEvent`, `cuCtxWaitEvent`).

use super::common::out;
use super::init::REPORTED_VERSION;
use super::types::{
    CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, CUDA_SUCCESS, CUdevice,
    CUresult, Handle,
};
use crate::check::{self, Kind};
use crate::handles::handle;
use crate::load::hang_exit;
use crate::stack::{CtxStack, with_stack};
use core::ffi::{c_int, c_uint, c_ulonglong, c_void};
use core::sync::atomic::Ordering::Relaxed;

entry_points! {
    fn cuCtxCreate_v2(ctx: *mut Handle, flags: c_uint, dev: CUdevice) { create_context(ctx) }
    fn cuCtxCreate_v3(ctx: *mut Handle, params: *mut c_void, n: c_int, flags: c_uint, dev: CUdevice) {
        create_context(ctx)
    }
    fn cuCtxCreate_v4(ctx: *mut Handle, params: *mut c_void, flags: c_uint, dev: CUdevice) {
        create_context(ctx)
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
    fn cuCtxGetDevice(dev: *mut CUdevice) { out(dev, 0); CUDA_SUCCESS }
    fn cuCtxSynchronize() {
        if check::context_hung() {
            hang_exit("cuCtxSynchronize".to_owned());
        }
        check::context_synchronized();
        CUDA_SUCCESS
    }
    fn cuCtxGetApiVersion(ctx: Handle, v: *mut c_uint) {
        out(v, REPORTED_VERSION.load(Relaxed) as c_uint);
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
    fn cuCtxGetExecAffinity(param: *mut [c_int; 2], kind: c_int) { out(param, [0, 132]); CUDA_SUCCESS }
    fn cuCtxGetSharedMemConfig(config: *mut c_int) { out(config, 0); CUDA_SUCCESS }
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

/// A new context, recorded, written to `ctx` and pushed on the calling thread's stack
/// (`cuCtxCreate`).
///
/// # Safety
///
/// `ctx` is null or valid for a write of a handle.
unsafe fn create_context(ctx: *mut Handle) -> CUresult {
    let new = handle();
    check::created(Kind::Context, new as usize, 0);
    // SAFETY: `ctx` is null or valid for the write (this function's contract).
    unsafe { out(ctx, new) };
    // Like the driver: the new context is pushed on the calling thread.
    with_stack(|s| s.push(new))
}
