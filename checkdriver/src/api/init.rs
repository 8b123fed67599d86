//! Models `cuda.h` "Initialization" (`group__CUDA__INITIALIZE`) and "Version Management"
//! (`group__CUDA__VERSION`): the driver version the double reports.

use super::common::out;
use super::types::CUDA_SUCCESS;
use core::ffi::{c_int, c_uint};
use core::sync::atomic::{AtomicI32, Ordering::Relaxed};

entry_points! {
    fn cuInit(flags: c_uint) { CUDA_SUCCESS }
    fn cuDriverGetVersion(v: *mut c_int) { out(v, REPORTED_VERSION.load(Relaxed)); CUDA_SUCCESS }
}

pub(crate) const DRIVER_VERSION: c_int = 12020;

/// The driver version `cuDriverGetVersion` reports: 12.2 (custack's linked baseline) unless
/// `NULLDRIVER_DRIVER_VERSION` or `custackCheckdriverSetDriverVersion` says otherwise. The
/// entry points of `NEWER` are found through `cuGetProcAddress` only from their version on.
pub(crate) static REPORTED_VERSION: AtomicI32 = AtomicI32::new(DRIVER_VERSION);
