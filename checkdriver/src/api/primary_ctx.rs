//! Models `cuda.h` "Primary Context Management" (`group__CUDA__PRIMARY__CTX`): the one device's
//! primary context, a fixed handle, active while retained (a reset makes it inactive until the
//! next retain), with the flags last set.

use super::common::out;
use super::types::{CUDA_SUCCESS, CUdevice, Handle};
use crate::check::{self};
use core::ffi::{c_int, c_uint};
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering::Relaxed};

entry_points! {
    fn cuDevicePrimaryCtxRetain(ctx: *mut Handle, dev: CUdevice) {
        check::primary(primary() as usize);
        RETAINED.fetch_add(1, Relaxed);
        ACTIVE.store(true, Relaxed);
        out(ctx, primary());
        CUDA_SUCCESS
    }
    fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) {
        // A compare-and-swap loop: `fetch_update` is deprecated on nightly (renamed
        // `try_update`, which the MSRV does not have), and Miri's step builds on nightly.
        let mut n = RETAINED.load(Relaxed);
        let left = loop {
            let less = n.saturating_sub(1);
            match RETAINED.compare_exchange_weak(n, less, Relaxed, Relaxed) {
                Ok(_) => break less,
                Err(now) => n = now,
            }
        };
        if left == 0 {
            ACTIVE.store(false, Relaxed);
        }
        CUDA_SUCCESS
    }
    fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) {
        FLAGS.store(flags, Relaxed);
        CUDA_SUCCESS
    }
    // Inactive until something retains it (the H200 run: the double answered active where the
    // driver did not, for a process that had not retained it).
    fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) {
        out(flags, FLAGS.load(Relaxed));
        out(active, c_int::from(ACTIVE.load(Relaxed)));
        CUDA_SUCCESS
    }
    fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) {
        ACTIVE.store(false, Relaxed);
        CUDA_SUCCESS
    }
}

/// How many retains of the primary context are not released yet.
static RETAINED: AtomicUsize = AtomicUsize::new(0);
/// Whether the primary context exists: retained, and not reset since the last retain.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The flags `cuDevicePrimaryCtxSetFlags` last set (none at first).
static FLAGS: AtomicU32 = AtomicU32::new(0);

/// The primary context of the one device: a fixed address.
static PRIMARY: u8 = 0;

fn primary() -> Handle {
    (&raw const PRIMARY).cast_mut().cast()
}
