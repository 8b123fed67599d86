//! Mirrors NVML, the NVIDIA Management Library (`nvml.h`, `libnvidia-ml.so.1` of the driver):
//! the types first, then the entry points `custack::health` calls, in the header's sections
//! ("Initialization and Cleanup", "Error reporting", "Device Queries", "Event Handling
//! Methods").
//!
//! Only symbols that `libnvidia-ml.so.1` of both driver 535 and driver 580 exports are declared:
//! `nvmlInit_v2`, `nvmlShutdown`, `nvmlErrorString`, `nvmlDeviceGetHandleByPciBusId_v2`,
//! `nvmlDeviceGetEccMode`, `nvmlDeviceGetTotalEccErrors`, `nvmlDeviceGetRetiredPagesPendingStatus`,
//! `nvmlDeviceGetRemappedRows`, `nvmlEventSetCreate`, `nvmlDeviceRegisterEvents`,
//! `nvmlEventSetWait_v2` and `nvmlEventSetFree` (NVML keeps every versioned name it ever
//! exported; `nvml.h` `#define`s `nvmlInit`, `nvmlDeviceGetHandleByPciBusId` and
//! `nvmlEventSetWait` to these). No `#[link]`: with the cargo feature `nvml`, `build.rs` links the
//! driver's library, never `dlopen`s it. Where it found none (`cfg(custack_no_nvml)`), the same
//! names are functions that return `NVML_ERROR_LIBRARY_NOT_FOUND` without touching their
//! arguments, and `custack::health` says at run time what was searched.
//!
//! Every NVML type used here is `unsigned int`, `unsigned long long`, an enum (`int`-sized) or a
//! pointer: the same on every Linux target.

use core::ffi::{c_char, c_uint, c_ulonglong};
use core::marker::{PhantomData, PhantomPinned};

/// `struct nvmlDevice_st`: opaque.
#[repr(C)]
pub struct nvmlDevice_st {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `nvmlDevice_t`: a physical GPU as NVML sees it (valid until `nvmlShutdown` of the last
/// `nvmlInit`).
pub type nvmlDevice_t = *mut nvmlDevice_st;

/// `struct nvmlEventSet_st`: opaque.
#[repr(C)]
pub struct nvmlEventSet_st {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `nvmlEventSet_t`: a set of devices' events to wait on.
pub type nvmlEventSet_t = *mut nvmlEventSet_st;

/// `nvmlReturn_t`: the status every NVML entry point returns.
///
/// A newtype, not an enum: a newer NVML may return values this list lacks.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[must_use]
pub struct nvmlReturn_t(pub c_uint);

impl nvmlReturn_t {
    /// `NVML_SUCCESS` (0).
    pub const NVML_SUCCESS: Self = Self(0);
    /// `NVML_ERROR_UNINITIALIZED` (1): `nvmlInit` was not called first.
    pub const NVML_ERROR_UNINITIALIZED: Self = Self(1);
    /// `NVML_ERROR_INVALID_ARGUMENT` (2).
    pub const NVML_ERROR_INVALID_ARGUMENT: Self = Self(2);
    /// `NVML_ERROR_NOT_SUPPORTED` (3): the device does not have the feature.
    pub const NVML_ERROR_NOT_SUPPORTED: Self = Self(3);
    /// `NVML_ERROR_NO_PERMISSION` (4).
    pub const NVML_ERROR_NO_PERMISSION: Self = Self(4);
    /// `NVML_ERROR_NOT_FOUND` (6): no device matches the query.
    pub const NVML_ERROR_NOT_FOUND: Self = Self(6);
    /// `NVML_ERROR_DRIVER_NOT_LOADED` (9).
    pub const NVML_ERROR_DRIVER_NOT_LOADED: Self = Self(9);
    /// `NVML_ERROR_TIMEOUT` (10): an event wait's timeout passed without an event.
    pub const NVML_ERROR_TIMEOUT: Self = Self(10);
    /// `NVML_ERROR_LIBRARY_NOT_FOUND` (12): what the stubs of a build without NVML return.
    pub const NVML_ERROR_LIBRARY_NOT_FOUND: Self = Self(12);
    /// `NVML_ERROR_GPU_IS_LOST` (15): the GPU fell off the bus or is otherwise inaccessible.
    pub const NVML_ERROR_GPU_IS_LOST: Self = Self(15);
    /// `NVML_ERROR_RESET_REQUIRED` (16).
    pub const NVML_ERROR_RESET_REQUIRED: Self = Self(16);
    /// `NVML_ERROR_UNKNOWN` (999).
    pub const NVML_ERROR_UNKNOWN: Self = Self(999);
}

/// `nvmlEnableState_t`: a feature's state.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct nvmlEnableState_t(pub c_uint);

impl nvmlEnableState_t {
    /// `NVML_FEATURE_DISABLED` (0).
    pub const NVML_FEATURE_DISABLED: Self = Self(0);
    /// `NVML_FEATURE_ENABLED` (1).
    pub const NVML_FEATURE_ENABLED: Self = Self(1);
}

/// `nvmlMemoryErrorType_t`: which ECC errors a counter counts.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct nvmlMemoryErrorType_t(pub c_uint);

impl nvmlMemoryErrorType_t {
    /// `NVML_MEMORY_ERROR_TYPE_CORRECTED` (0): single-bit errors, corrected.
    pub const NVML_MEMORY_ERROR_TYPE_CORRECTED: Self = Self(0);
    /// `NVML_MEMORY_ERROR_TYPE_UNCORRECTED` (1): double-bit errors, not corrected.
    pub const NVML_MEMORY_ERROR_TYPE_UNCORRECTED: Self = Self(1);
}

/// `nvmlEccCounterType_t`: over what time a counter counts.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct nvmlEccCounterType_t(pub c_uint);

impl nvmlEccCounterType_t {
    /// `NVML_VOLATILE_ECC` (0): since the last driver load.
    pub const NVML_VOLATILE_ECC: Self = Self(0);
    /// `NVML_AGGREGATE_ECC` (1): over the GPU's life (kept in its InfoROM).
    pub const NVML_AGGREGATE_ECC: Self = Self(1);
}

/// `nvmlEventTypeSingleBitEccError`: a single-bit (corrected) ECC error.
pub const nvmlEventTypeSingleBitEccError: c_ulonglong = 0x1;
/// `nvmlEventTypeDoubleBitEccError`: a double-bit (uncorrectable) ECC error.
pub const nvmlEventTypeDoubleBitEccError: c_ulonglong = 0x2;
/// `nvmlEventTypeXidCriticalError`: a critical Xid error (its number in `eventData`).
pub const nvmlEventTypeXidCriticalError: c_ulonglong = 0x8;

/// `nvmlEventData_t`: what `nvmlEventSetWait_v2` writes for one event.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct nvmlEventData_t {
    /// The device the event happened on.
    pub device: nvmlDevice_t,
    /// Which event (one `nvmlEventType*` bit).
    pub eventType: c_ulonglong,
    /// The Xid number for `nvmlEventTypeXidCriticalError` (999 for an unknown Xid); 0 for
    /// every other event.
    pub eventData: c_ulonglong,
    /// Under MIG, the GPU instance an Xid is attributable to; `0xFFFFFFFF` otherwise.
    pub gpuInstanceId: c_uint,
    /// Under MIG, the compute instance an Xid is attributable to; `0xFFFFFFFF` otherwise.
    pub computeInstanceId: c_uint,
}

// `nvml.h`: a pointer and two `unsigned long long` then two `unsigned int`.
const _: () = assert!(size_of::<nvmlEventData_t>() == 32 && align_of::<nvmlEventData_t>() == 8);

link_or_stub! {
    missing: custack_no_nvml => nvmlReturn_t::NVML_ERROR_LIBRARY_NOT_FOUND;
    /// Initializes NVML (reference-counted: each call needs its `nvmlShutdown`), without
    /// initializing the GPUs it cannot reach (`nvmlInit` maps here).
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlInitializationAndCleanup.html>
    pub fn nvmlInit_v2() -> nvmlReturn_t;
    /// Drops one reference `nvmlInit_v2` took; the last one frees NVML's state.
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlInitializationAndCleanup.html>
    pub fn nvmlShutdown() -> nvmlReturn_t;
    /// A static string describing a status (never freed).
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlErrorReporting.html>
    pub fn nvmlErrorString(result: nvmlReturn_t) -> *const c_char = core::ptr::null();
    /// The device at a PCI bus id, `domain:bus:device.function` in hexadecimal (the format
    /// `cuDeviceGetPCIBusId` writes); `nvmlDeviceGetHandleByPciBusId` maps here.
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html>
    pub fn nvmlDeviceGetHandleByPciBusId_v2(
        pciBusId: *const c_char,
        device: *mut nvmlDevice_t,
    ) -> nvmlReturn_t;
    /// The current and pending (after the next reboot) ECC modes.
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html>
    pub fn nvmlDeviceGetEccMode(
        device: nvmlDevice_t,
        current: *mut nvmlEnableState_t,
        pending: *mut nvmlEnableState_t,
    ) -> nvmlReturn_t;
    /// The total ECC error count of one kind over one period.
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html>
    pub fn nvmlDeviceGetTotalEccErrors(
        device: nvmlDevice_t,
        errorType: nvmlMemoryErrorType_t,
        counterType: nvmlEccCounterType_t,
        eccCounts: *mut c_ulonglong,
    ) -> nvmlReturn_t;
    /// Whether pages are waiting to be retired (dynamic page retirement, before Ampere).
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html>
    pub fn nvmlDeviceGetRetiredPagesPendingStatus(
        device: nvmlDevice_t,
        isPending: *mut nvmlEnableState_t,
    ) -> nvmlReturn_t;
    /// Row remapping (Ampere and later): rows remapped for correctable and for uncorrectable
    /// errors, whether a remap waits for the next GPU reset, whether a remap failed.
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html>
    pub fn nvmlDeviceGetRemappedRows(
        device: nvmlDevice_t,
        corrRows: *mut c_uint,
        uncRows: *mut c_uint,
        isPending: *mut c_uint,
        failureOccurred: *mut c_uint,
    ) -> nvmlReturn_t;
    /// Creates an empty event set.
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlEvents.html>
    pub fn nvmlEventSetCreate(set: *mut nvmlEventSet_t) -> nvmlReturn_t;
    /// Adds a device's events of the types in the mask `eventTypes` to a set.
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlEvents.html>
    pub fn nvmlDeviceRegisterEvents(
        device: nvmlDevice_t,
        eventTypes: c_ulonglong,
        set: nvmlEventSet_t,
    ) -> nvmlReturn_t;
    /// Waits at most `timeoutms` milliseconds for one event of the set (0: returns at once,
    /// `NVML_ERROR_TIMEOUT` when none is there); `nvmlEventSetWait` maps here.
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlEvents.html>
    pub fn nvmlEventSetWait_v2(
        set: nvmlEventSet_t,
        data: *mut nvmlEventData_t,
        timeoutms: c_uint,
    ) -> nvmlReturn_t;
    /// Frees an event set.
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlEvents.html>
    pub fn nvmlEventSetFree(set: nvmlEventSet_t) -> nvmlReturn_t;
}
