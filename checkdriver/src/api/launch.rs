//! Models `cuda.h` "Execution Control" (`group__CUDA__EXEC`): function attributes and parameters,
//! kernel launches (each checked against its function's parameters and run by its CPU stand-in in
//! checking mode, `standin.rs`), and host functions enqueued on a stream.

use super::common::{checking, out};
use super::module::FUNCTION_NAMES;
use super::types::{
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_SUPPORTED, CUDA_SUCCESS, CUresult, Handle,
};
use crate::check::{self, Kind};
use crate::{inject, standin, work};
use core::ffi::{c_char, c_int, c_uint, c_void};
use core::ptr::null_mut;

entry_points! {
    fn cuFuncGetAttribute(value: *mut c_int, attribute: c_int, f: Handle) {
        check::used(Kind::Function, f as usize, "cuFuncGetAttribute");
        out(value, 1024);
        CUDA_SUCCESS
    }
    fn cuFuncSetAttribute(f: Handle, attribute: c_int, value: c_int) {
        check::used(Kind::Function, f as usize, "cuFuncSetAttribute");
        CUDA_SUCCESS
    }
    fn cuFuncSetCacheConfig(f: Handle, config: c_int) { CUDA_SUCCESS }
    // The parameters of a function of a module loaded from PTX, as the PTX lays them out;
    // `CUDA_ERROR_INVALID_VALUE` one past the last (how the driver ends the list).
    fn cuFuncGetParamInfo(f: Handle, index: usize, offset: *mut usize, size: *mut usize) {
        check::used(Kind::Function, f as usize, "cuFuncGetParamInfo");
        // A module the double did not parse (a cubin, or not checking): it cannot tell.
        let Some(layout) = check::param_layout(f as usize) else {
            return CUDA_ERROR_NOT_SUPPORTED;
        };
        match layout.get(index) {
            Some(&(o, n)) => {
                out(offset, o);
                out(size, n);
                CUDA_SUCCESS
            }
            None => CUDA_ERROR_INVALID_VALUE,
        }
    }
    // How many parameters a function of a module loaded from PTX takes.
    fn cuFuncGetParamCount(f: Handle, count: *mut usize) {
        check::used(Kind::Function, f as usize, "cuFuncGetParamCount");
        let Some(layout) = check::param_layout(f as usize) else {
            return CUDA_ERROR_NOT_SUPPORTED;
        };
        out(count, layout.len());
        CUDA_SUCCESS
    }
    // Nothing is loaded lazily here: loading a live function is a no-op.
    fn cuFuncLoad(f: Handle) {
        check::used(Kind::Function, f as usize, "cuFuncLoad");
        CUDA_SUCCESS
    }
    fn cuFuncGetName(name: *mut *const c_char, f: Handle) {
        check::used(Kind::Function, f as usize, "cuFuncGetName");
        let found = FUNCTION_NAMES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .find(|(h, _)| *h == f.addr())
            .map_or(core::ptr::null(), |(_, n)| n.as_ptr());
        out(name, found);
        CUDA_SUCCESS
    }
    fn cuLaunchKernel(
        f: Handle,
        gx: c_uint,
        gy: c_uint,
        gz: c_uint,
        bx: c_uint,
        by: c_uint,
        bz: c_uint,
        shared: c_uint,
        stream: Handle,
        params: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) {
        check::enqueue(stream as usize);
        check::used(Kind::Function, f as usize, "cuLaunchKernel");
        check::used(Kind::Stream, stream as usize, "cuLaunchKernel");
        check::launched(f as usize, stream as usize, params, "cuLaunchKernel");
        run_kernel(f, [gx, gy, gz], [bx, by, bz], shared, stream, params, "cuLaunchKernel")
    }
    fn cuLaunchCooperativeKernel(
        f: Handle,
        gx: c_uint,
        gy: c_uint,
        gz: c_uint,
        bx: c_uint,
        by: c_uint,
        bz: c_uint,
        shared: c_uint,
        stream: Handle,
        params: *mut *mut c_void,
    ) {
        check::enqueue(stream as usize);
        check::used(Kind::Function, f as usize, "cuLaunchCooperativeKernel");
        check::used(Kind::Stream, stream as usize, "cuLaunchCooperativeKernel");
        check::launched(f as usize, stream as usize, params, "cuLaunchCooperativeKernel");
        run_kernel(f, [gx, gy, gz], [bx, by, bz], shared, stream, params, "cuLaunchCooperativeKernel")
    }
    fn cuLaunchKernelEx(config: *const LaunchConfig, f: Handle, params: *mut *mut c_void, extra: *mut *mut c_void) {
        let stream = if config.is_null() { null_mut() } else { (*config).stream };
        check::enqueue(stream as usize);
        check::used(Kind::Function, f as usize, "cuLaunchKernelEx");
        check::used(Kind::Stream, stream as usize, "cuLaunchKernelEx");
        check::launched(f as usize, stream as usize, params, "cuLaunchKernelEx");
        if config.is_null() {
            return CUDA_SUCCESS;
        }
        let c = &*config;
        run_kernel(f, c.grid, c.block, c.shared, stream, params, "cuLaunchKernelEx")
    }
    // A host function runs at once (there is no stream to wait for): its contract is only
    // that it runs in order, once. On a hung stream it never runs.
    // Captured, a host function is a host node, called at each launch of the graph.
    fn cuLaunchHostFunc(stream: Handle, f: Option<unsafe extern "C" fn(*mut c_void)>, data: *mut c_void) {
        check::enqueue(stream as usize);
        let Some(f) = f else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::data_op(stream as usize, &work::DataOp::HostFn { f, data }, "cuLaunchHostFunc")
    }
}

/// `CUlaunchConfig`, as far as the double reads it (the stream).
#[repr(C)]
pub struct LaunchConfig {
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: Handle,
    attrs: *mut c_void,
    n_attrs: c_uint,
}

/// A kernel launch, in checking mode: its CPU stand-in runs now (or at each launch of the graph
/// a capture makes), and the launch fails when the stand-in does.
///
/// # Safety
///
/// `params` is null or holds a pointer to each of `f`'s arguments (the launch's contract).
pub(crate) unsafe fn run_kernel(
    f: Handle,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
    what: &str,
) -> CUresult {
    if !checking() {
        return CUDA_SUCCESS;
    }
    // SAFETY: `params` is null or holds a pointer to each of `f`'s arguments (this
    // function's contract), whose sizes `param_sizes` gives where the module declared them.
    let launch = unsafe {
        standin::launch(
            f as usize,
            check::param_sizes(f as usize),
            grid,
            block,
            shared,
            params.cast_const(),
        )
    };
    // A replica's fault (`NULLDRIVER_INJECT`): the launch dropped, or its writes corrupted.
    match inject::next_launch(stream as usize) {
        inject::Action::Run => check::data_op(stream as usize, &work::DataOp::Launch(launch), what),
        inject::Action::Drop => CUDA_SUCCESS,
        inject::Action::Flip(bits) => {
            inject::record_writes();
            let r = check::data_op(stream as usize, &work::DataOp::Launch(launch), what);
            inject::flip_written(bits);
            r
        }
    }
}
