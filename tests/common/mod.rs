//! Fixtures shared by the GPU tests.
#![allow(dead_code)]

use custack::{Context, ContextFlags, Device, Driver};

/// Hand-written PTX: `vector_add`, `add_u32`, `empty`, `empty_ptr`, `illegal_write`,
/// `trap_kernel`, `count_threads`, `register_hog` and the global `counters: [u32; 4]`.
pub(crate) const KERNELS: &str = include_str!("../fixtures/kernels.ptx");

/// Device 0 of an initialized driver. Fails (so GPU tests fail, never pass) without a device.
pub(crate) fn device() -> Device {
    let driver = Driver::init().expect("needs a CUDA device: Driver::init failed");
    driver.device(0).expect("needs a CUDA device: no device 0")
}

/// A fresh created context on device 0.
pub(crate) fn context() -> Context {
    Context::new(device(), ContextFlags::empty()).expect("creating a context on device 0")
}

/// The context current on this thread according to the driver (null if none).
pub(crate) fn current_raw() -> custack::ffi::CUcontext {
    let mut cur = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let r = unsafe { custack::ffi::cuCtxGetCurrent(&raw mut cur) };
    assert_eq!(r, custack::ffi::CUresult::CUDA_SUCCESS);
    cur
}
