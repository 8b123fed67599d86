//! The NVML entry points `Health` calls, as one table of function pointers: the linked library's
//! ([`LINKED`]), or, in the unit tests, a simulated NVML with the same C signatures, so that every
//! event and every pre-flight finding can be made on a machine without a GPU.

use crate::ffi::nvml::{
    nvmlDevice_t, nvmlEccCounterType_t, nvmlEnableState_t, nvmlEventData_t, nvmlEventSet_t,
    nvmlMemoryErrorType_t, nvmlReturn_t,
};
use core::ffi::{c_char, c_uint, c_ulonglong};

/// One NVML: each field an entry point of `nvml.h`, with its C signature.
#[derive(Debug)]
pub(crate) struct Calls {
    pub(crate) init: unsafe extern "C" fn() -> nvmlReturn_t,
    pub(crate) shutdown: unsafe extern "C" fn() -> nvmlReturn_t,
    pub(crate) error_string: unsafe extern "C" fn(nvmlReturn_t) -> *const c_char,
    pub(crate) by_pci_bus_id:
        unsafe extern "C" fn(*const c_char, *mut nvmlDevice_t) -> nvmlReturn_t,
    pub(crate) ecc_mode: unsafe extern "C" fn(
        nvmlDevice_t,
        *mut nvmlEnableState_t,
        *mut nvmlEnableState_t,
    ) -> nvmlReturn_t,
    pub(crate) total_ecc_errors: unsafe extern "C" fn(
        nvmlDevice_t,
        nvmlMemoryErrorType_t,
        nvmlEccCounterType_t,
        *mut c_ulonglong,
    ) -> nvmlReturn_t,
    pub(crate) retired_pages_pending:
        unsafe extern "C" fn(nvmlDevice_t, *mut nvmlEnableState_t) -> nvmlReturn_t,
    pub(crate) remapped_rows: unsafe extern "C" fn(
        nvmlDevice_t,
        *mut c_uint,
        *mut c_uint,
        *mut c_uint,
        *mut c_uint,
    ) -> nvmlReturn_t,
    pub(crate) event_set_create: unsafe extern "C" fn(*mut nvmlEventSet_t) -> nvmlReturn_t,
    pub(crate) register_events:
        unsafe extern "C" fn(nvmlDevice_t, c_ulonglong, nvmlEventSet_t) -> nvmlReturn_t,
    pub(crate) event_set_wait:
        unsafe extern "C" fn(nvmlEventSet_t, *mut nvmlEventData_t, c_uint) -> nvmlReturn_t,
    pub(crate) event_set_free: unsafe extern "C" fn(nvmlEventSet_t) -> nvmlReturn_t,
}

/// The linked `libnvidia-ml` (or, in a build that found none, the raw layer's stubs, which
/// `Health::open` never reaches: it refuses first with the not-linked error).
pub(crate) static LINKED: Calls = {
    use crate::ffi::nvml as n;
    Calls {
        init: n::nvmlInit_v2,
        shutdown: n::nvmlShutdown,
        error_string: n::nvmlErrorString,
        by_pci_bus_id: n::nvmlDeviceGetHandleByPciBusId_v2,
        ecc_mode: n::nvmlDeviceGetEccMode,
        total_ecc_errors: n::nvmlDeviceGetTotalEccErrors,
        retired_pages_pending: n::nvmlDeviceGetRetiredPagesPendingStatus,
        remapped_rows: n::nvmlDeviceGetRemappedRows,
        event_set_create: n::nvmlEventSetCreate,
        register_events: n::nvmlDeviceRegisterEvents,
        event_set_wait: n::nvmlEventSetWait_v2,
        event_set_free: n::nvmlEventSetFree,
    }
};
