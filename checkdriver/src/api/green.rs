//! Models `cuda.h` "Green Contexts" (`group__CUDA__GREEN__CONTEXTS`, 12.4): the device's SMs, split
//! in groups of multiples of 8; a green context over a descriptor of them; its `CUcontext`, pushed
//! and popped like any context; its streams.

use super::common::out;
use super::types::{
    CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS,
    CUdevice, Handle,
};
use crate::check::{self};
use crate::handles::handle;
use crate::inject;
use crate::stack::with_stack;
use core::ffi::{c_int, c_uint};

entry_points! {
    // Green contexts: the device's SMs, split in groups of multiples of 8; a green context over
    // a descriptor of them; its `CUcontext`, pushed and popped like any context; its streams.
    fn cuDeviceGetDevResource(dev: CUdevice, resource: *mut DevResource, kind: c_int) {
        if dev != 0 {
            return CUDA_ERROR_INVALID_DEVICE;
        }
        if kind != CU_DEV_RESOURCE_TYPE_SM || resource.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        resource.write(DevResource::sms(SM_COUNT));
        CUDA_SUCCESS
    }
    // A context's SMs: a green context's partition for the `CUcontext` that stands for it,
    // every SM of the device for any other context.
    fn cuCtxGetDevResource(ctx: Handle, resource: *mut DevResource, kind: c_int) {
        if ctx.is_null() {
            return CUDA_ERROR_INVALID_CONTEXT;
        }
        if kind != CU_DEV_RESOURCE_TYPE_SM || resource.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let sms = sms_of().get(&(ctx as usize)).copied().unwrap_or(SM_COUNT);
        resource.write(DevResource::sms(sms));
        CUDA_SUCCESS
    }
    fn cuDevSmResourceSplitByCount(
        result: *mut DevResource,
        groups: *mut c_uint,
        input: *const DevResource,
        remaining: *mut DevResource,
        flags: c_uint,
        min: c_uint,
    ) {
        if input.is_null() || groups.is_null() || (*input).kind != CU_DEV_RESOURCE_TYPE_SM {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let have = (*input).sm[0];
        let size = min.max(SM_GRANULARITY).next_multiple_of(SM_GRANULARITY);
        // With no result array: how many groups could be made.
        let made = if result.is_null() { have / size } else { (have / size).min(groups.read()) };
        if !result.is_null() {
            for i in 0..made as usize {
                result.add(i).write(DevResource::sms(size));
            }
        }
        groups.write(made);
        if !remaining.is_null() {
            remaining.write(DevResource::sms(have - made * size));
        }
        CUDA_SUCCESS
    }
    fn cuDevResourceGenerateDesc(desc: *mut Handle, resources: *mut DevResource, n: c_uint) {
        if desc.is_null() || resources.is_null() || n == 0 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let mut sms = 0;
        for i in 0..n as usize {
            let r = resources.add(i).read();
            if r.kind != CU_DEV_RESOURCE_TYPE_SM || r.sm[0] == 0 {
                return CUDA_ERROR_INVALID_VALUE;
            }
            sms += r.sm[0];
        }
        let h = handle();
        sms_of().insert(h as usize, sms);
        out(desc, h);
        CUDA_SUCCESS
    }
    fn cuGreenCtxCreate(green: *mut Handle, desc: Handle, dev: CUdevice, flags: c_uint) {
        if dev != 0 {
            return CUDA_ERROR_INVALID_DEVICE;
        }
        // The driver requires the default-stream flag.
        if desc.is_null() || flags != CU_GREEN_CTX_DEFAULT_STREAM {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let h = handle();
        // The descriptor's SMs are the green context's (`cuCtxGetDevResource` of its context).
        let sms = sms_of().get(&(desc as usize)).copied().unwrap_or(SM_COUNT);
        sms_of().insert(context_of_green(h) as usize, sms);
        green_contexts().insert(context_of_green(h) as usize);
        check::green_created(h as usize, context_of_green(h) as usize);
        inject::green_created(h as usize);
        out(green, h);
        CUDA_SUCCESS
    }
    fn cuGreenCtxDestroy(green: Handle) {
        check::green_destroyed(green as usize);
        let ctx = context_of_green(green);
        with_stack(|s| if s.top() == ctx { s.pop(); });
        CUDA_SUCCESS
    }
    fn cuCtxFromGreenCtx(ctx: *mut Handle, green: Handle) {
        if green.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let _ = check::green_used(green as usize, "cuCtxFromGreenCtx");
        out(ctx, context_of_green(green));
        CUDA_SUCCESS
    }
    fn cuGreenCtxStreamCreate(stream: *mut Handle, green: Handle, flags: c_uint, priority: c_int) {
        // The driver requires a non-blocking stream.
        if flags & CU_STREAM_NON_BLOCKING == 0 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let h = handle();
        check::green_stream_created(h as usize, green as usize);
        inject::green_stream_created(h as usize, green as usize);
        out(stream, h);
        CUDA_SUCCESS
    }
}

/// The SMs of the one device (an H100 SXM), and the granularity of a green context's
/// partition (compute capability 9.0: multiples of 8 SMs).
pub(crate) const SM_COUNT: c_uint = 132;

const SM_GRANULARITY: c_uint = 8;

pub(crate) const CU_DEV_RESOURCE_TYPE_SM: c_int = 1;

pub(crate) const CU_GREEN_CTX_DEFAULT_STREAM: c_uint = 1;

pub(crate) const CU_STREAM_NON_BLOCKING: c_uint = 1;

/// `CUdevResource`, 144 bytes in the CUDA 12.4 and 13.0 layouts: the type, then the SM counts
/// at offset 96 (`smCount`, and in 13.0 `minSmPartitionSize`, `smCoscheduledAlignment`,
/// `flags`). Written and read through the caller's pointer only.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DevResource {
    kind: c_int,
    _internal: [u8; 92],
    pub(crate) sm: [c_uint; 4],
    _rest: [u8; 32],
}

const _: () = assert!(size_of::<DevResource>() == 144);

impl DevResource {
    pub(crate) const fn sms(count: c_uint) -> Self {
        Self {
            kind: CU_DEV_RESOURCE_TYPE_SM,
            _internal: [0; 92],
            sm: [count, SM_GRANULARITY, SM_GRANULARITY, 0],
            _rest: [0; 32],
        }
    }
}

/// The SMs of each resource descriptor (`cuDevResourceGenerateDesc`) and of each green
/// context's `CUcontext` (`cuGreenCtxCreate`), by handle; handles are never reused.
fn sms_of() -> std::sync::MutexGuard<'static, std::collections::BTreeMap<usize, c_uint>> {
    static SMS: std::sync::Mutex<std::collections::BTreeMap<usize, c_uint>> =
        std::sync::Mutex::new(std::collections::BTreeMap::new());
    SMS.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether `ctx` is the `CUcontext` that stands for a green context.
pub(crate) fn is_green_context(ctx: Handle) -> bool {
    !ctx.is_null() && green_contexts().contains(&(ctx as usize))
}

/// The `CUcontext`s of green contexts made (`cuGreenCtxCreate`); handles are never reused.
fn green_contexts() -> std::sync::MutexGuard<'static, std::collections::BTreeSet<usize>> {
    static GREEN: std::sync::Mutex<std::collections::BTreeSet<usize>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    GREEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The `CUcontext` that stands for green context `green` (`cuCtxFromGreenCtx`): a handle of its
/// own, half-way to the next one (handles are 0x40 apart), so known without a record.
fn context_of_green(green: Handle) -> Handle {
    core::ptr::without_provenance_mut(green.addr() + 0x20)
}
