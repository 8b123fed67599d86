//! Models `cuda.h` "Primary Context Management" (`group__CUDA__PRIMARY__CTX`): the one device's
//! primary context, a fixed handle.

use super::common::out;
use super::types::{CUDA_SUCCESS, CUdevice, Handle};
use crate::check::{self};
use core::ffi::{c_int, c_uint};

entry_points! {
    fn cuDevicePrimaryCtxRetain(ctx: *mut Handle, dev: CUdevice) {
        check::primary(primary() as usize);
        out(ctx, primary());
        CUDA_SUCCESS
    }
    fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) { CUDA_SUCCESS }
    fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) { CUDA_SUCCESS }
    fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) {
        out(flags, 0);
        out(active, 1);
        CUDA_SUCCESS
    }
    fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) { CUDA_SUCCESS }
}

/// The primary context of the one device: a fixed address.
static PRIMARY: u8 = 0;

fn primary() -> Handle {
    (&raw const PRIMARY).cast_mut().cast()
}
