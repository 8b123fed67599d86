//! Testing GPU code without a GPU: CPU stand-ins for kernels, which the checking driver runs in
//! their place ([`stand_in`]), and what custack tells it of the handles it leaves behind on
//! purpose ([`left_behind`]).

pub(crate) mod left_behind;
pub(crate) mod stand_in;

use crate::error::Result;
use crate::ffi;
use core::ffi::{CStr, c_void};

/// The checking driver's extension `name` (a `custackCheckdriver…` function, not a driver entry
/// point), found with the driver's own `cuGetProcAddress_v2`; `None` on any other driver, which
/// does not know the name.
///
/// # Errors
///
/// The lookup's own failure, other than "not found".
fn extension(name: &CStr) -> Result<Option<*mut c_void>> {
    // Not in a forked child (R22); still after a sticky error, which is when custack names what
    // it leaves behind.
    crate::error::poison::not_forked()?;
    let mut pfn: *mut c_void = core::ptr::null_mut();
    let mut status = ffi::CU_GET_PROC_ADDRESS_SUCCESS;
    // SAFETY: `name` is NUL-terminated; both out-pointers are valid.
    let r = unsafe {
        ffi::cuGetProcAddress_v2(
            name.as_ptr(),
            &raw mut pfn,
            12000,
            ffi::CU_GET_PROC_ADDRESS_DEFAULT,
            &raw mut status,
        )
    };
    if r == ffi::CUresult::CUDA_ERROR_NOT_FOUND {
        return Ok(None);
    }
    r.result()?;
    if status != ffi::CU_GET_PROC_ADDRESS_SUCCESS || pfn.is_null() {
        return Ok(None);
    }
    Ok(Some(pfn))
}
