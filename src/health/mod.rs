//! GPU health through NVML, the driver's management library (feature `nvml`): what the GPU
//! itself says about its memory and its faults, which no CUDA call reports until work fails.
//!
//! A [`Health`] is opened for a CUDA [`Device`] ([`Health::open`]): NVML is initialized and the
//! device found by its PCI bus id (`cuDeviceGetPCIBusId`, then
//! `nvmlDeviceGetHandleByPciBusId_v2`: the physical GPU, also when the CUDA device is a MIG
//! instance of it), and an NVML event set is made and registered for the device's double-bit
//! ECC errors and critical Xid errors. Then it reads:
//!
//! - [`ecc_enabled`](Health::ecc_enabled): whether ECC protects the device's memory now (the
//!   current mode; a changed mode applies at the next reboot);
//! - [`remapped_rows`](Health::remapped_rows): row remapping (Ampere and later, the H100
//!   included): how many rows were remapped for correctable and for uncorrectable errors,
//!   whether a remap waits for the next GPU reset (until then the faulty row is still in use),
//!   and whether a remap failed (the GPU ran out of spare rows: it should be serviced);
//! - [`retired_pages_pending`](Health::retired_pages_pending): dynamic page retirement (before
//!   Ampere): whether pages wait for the next driver reload to be retired;
//! - [`ecc_errors`](Health::ecc_errors): the ECC error counts since the driver was loaded;
//! - [`preflight`](Health::preflight): all of the above, and what of it is a
//!   [`Finding`] that a safety-critical run must not start with;
//! - [`poll`](Health::poll): one event of the set, waiting not at all (`nvmlEventSetWait_v2`
//!   with a zero timeout).
//!
//! A device that lacks a feature answers `NVML_ERROR_NOT_SUPPORTED`; that is an
//! [`Answer::NotSupported`], not an error: a GPU without ECC (most consumer cards), an H100
//! asked about page retirement (it remaps rows instead), a Volta asked about row remapping.
//! A failed NVML call is [`ErrorKind::NvmlFailed`], naming the
//! call and NVML's status. A child forked after `Profile::init` makes no NVML call, as it makes
//! no CUDA call (R22): each query refuses with [`ErrorKind::ForkedProcess`], and a `Health`
//! dropped there leaves the parent's event set and reference alone (the refusal recorded, see
//! [`take_drop_errors`](crate::take_drop_errors)).
//!
//! Under the restricted profile the same is offered through the context's phases:
//! [`InitPhase::watch_health`](crate::safety::InitPhase::watch_health) opens NVML and the event
//! set in the init phase; [`InitPhase::seal`](crate::safety::InitPhase::seal) runs the
//! pre-flight, and a finding poisons the process
//! ([`ErrorKind::HardwareFault`], observed by
//! [`Observer::HealthPreflight`]), so every call of the run
//! phase refuses; [`RunPhase::poll_health`](crate::safety::RunPhase::poll_health), called in
//! each frame, turns an event into the same poison ([`Observer::HealthPoll`]),
//! allocating nothing while there is none. It fails closed: only the wait's
//! `NVML_ERROR_TIMEOUT` ("no event arrived", NVML's answer when none is pending) reads as
//! healthy; `NVML_ERROR_GPU_IS_LOST`, and every other error or status of the wait, poisons the
//! process as an event does ([`Health::poll`] lists each answer).
//!
//! NVML is linked, as libcuda is, never loaded at run time: `build.rs` finds `libnvidia-ml.so.1`
//! in `CUSTACK_NVML_LIB_DIR`, the driver's directories or the loader cache. A build that found
//! none still compiles, and [`Health::open`] returns
//! [`ErrorKind::LibraryNotLinked`] saying what was searched.
//!
//! # Examples
//!
//! ```no_run
//! use custack::health::{Answer, Health};
//! let driver = custack::Driver::init()?;
//! let health = Health::open(driver.device(0)?)?;
//! match health.remapped_rows()? {
//!     Answer::Known(rows) if rows.pending || rows.failed => eprintln!("service the GPU: {rows:?}"),
//!     Answer::Known(_) => {}
//!     Answer::NotSupported => eprintln!("no row remapping on this GPU"),
//! }
//! for finding in health.preflight()?.findings() {
//!     eprintln!("{finding}");
//! }
//! if let Some(event) = health.poll()? {
//!     eprintln!("the GPU reported: {event}"); // a double-bit ECC error, a critical Xid
//! }
//! # Ok::<(), custack::Error>(())
//! ```

mod calls;

/// NVML an init phase watches ([`InitPhase::watch_health`](crate::safety::InitPhase::watch_health)):
/// the pre-flight runs when the phase ends, at its seal ([`seal`](Self::seal)) or, for a phase
/// dropped without sealing (whose values still run work: they borrow the guard, not the
/// phase), at its drop, so that a program that asked for the health checks never runs on a GPU
/// the pre-flight refuses. Only a phase leaked (`mem::forget`) skips it.
pub(crate) struct Watched(Option<Health>);

impl Watched {
    pub(crate) fn new(health: Health) -> Self {
        Self(Some(health))
    }

    /// Runs the pre-flight (see [`Health::preflight_or_poison`]) and hands NVML to the run
    /// phase.
    pub(crate) fn seal(mut self, site: &'static Location<'static>) -> Option<Health> {
        let health = self.0.take();
        if let Some(h) = &health {
            h.preflight_or_poison(site);
        }
        health
    }

    /// NVML without the pre-flight: one a second `watch_health` replaces.
    pub(crate) fn replaced(mut self) -> Option<Health> {
        self.0.take()
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            h.preflight_or_poison(Location::caller());
        }
    }
}

impl fmt::Debug for Watched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Watched").field(&self.0).finish()
    }
}

#[cfg(test)]
mod tests;

use crate::driver::Device;
use crate::error::poison::Poison;
use crate::error::{Error, ErrorKind, Observer, Result};
use crate::ffi::nvml::{
    nvmlDevice_t, nvmlEccCounterType_t, nvmlEnableState_t, nvmlEventData_t, nvmlEventSet_t,
    nvmlEventTypeDoubleBitEccError, nvmlEventTypeXidCriticalError, nvmlMemoryErrorType_t,
    nvmlReturn_t,
};
use calls::Calls;
use core::ffi::{CStr, c_uint, c_ulonglong};
use core::fmt;
use core::panic::Location;
use std::ffi::CString;

/// What NVML answered to a query: the value, or that the device does not have the feature
/// (`NVML_ERROR_NOT_SUPPORTED`), which is not an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer<T> {
    /// The device has the feature; its value.
    Known(T),
    /// `NVML_ERROR_NOT_SUPPORTED`: the device does not have the feature (what that means is
    /// said by each query).
    NotSupported,
}

/// `nvmlDeviceGetRemappedRows`: the device's row remapping (Ampere and later).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RemappedRows {
    /// Rows remapped because of correctable (single-bit) errors.
    pub correctable: u32,
    /// Rows remapped because of uncorrectable (double-bit) errors.
    pub uncorrectable: u32,
    /// A remap waits for the next GPU reset: until then the faulty row is still in use.
    pub pending: bool,
    /// A remap failed (no spare row left): the GPU should be serviced.
    pub failed: bool,
}

/// `nvmlDeviceGetTotalEccErrors`: ECC errors since the driver was loaded
/// (`NVML_VOLATILE_ECC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EccErrors {
    /// Single-bit errors, corrected by ECC.
    pub corrected: u64,
    /// Double-bit errors, which ECC detected but could not correct.
    pub uncorrected: u64,
}

/// The kinds of event a [`Health`] watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventKind {
    /// `nvmlEventTypeDoubleBitEccError`: a double-bit (uncorrectable) ECC error.
    DoubleBitEcc,
    /// `nvmlEventTypeXidCriticalError`: a critical Xid error.
    CriticalXid,
}

impl EventKind {
    fn mask(self) -> c_ulonglong {
        match self {
            Self::DoubleBitEcc => nvmlEventTypeDoubleBitEccError,
            Self::CriticalXid => nvmlEventTypeXidCriticalError,
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::DoubleBitEcc => "double-bit ECC error events (nvmlEventTypeDoubleBitEccError)",
            Self::CriticalXid => "critical Xid events (nvmlEventTypeXidCriticalError)",
        })
    }
}

/// An event [`Health::poll`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HealthEvent {
    /// `nvmlEventTypeDoubleBitEccError`: memory the device used held a double-bit error, which
    /// ECC detected and could not correct; the data there is lost.
    DoubleBitEcc,
    /// `nvmlEventTypeXidCriticalError`: the driver reported a critical Xid error for the GPU
    /// (NVIDIA's "Xid Errors" document lists each number; 999 is an unknown one). It may come
    /// from any process's work on the GPU.
    CriticalXid {
        /// The Xid number (`eventData`).
        xid: u64,
    },
    /// `NVML_ERROR_GPU_IS_LOST` from the wait: the GPU fell off the bus or stopped answering.
    GpuLost,
}

impl fmt::Display for HealthEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DoubleBitEcc => f.write_str(
                "a double-bit (uncorrectable) ECC error (NVML event nvmlEventTypeDoubleBitEccError)",
            ),
            Self::CriticalXid { xid } => write!(
                f,
                "critical Xid {xid} (NVML event nvmlEventTypeXidCriticalError)"
            ),
            Self::GpuLost => f.write_str("the GPU is lost (NVML_ERROR_GPU_IS_LOST)"),
        }
    }
}

/// What [`Health::preflight`] read: each answer, and which events the event set watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Preflight {
    /// [`Health::ecc_enabled`].
    pub ecc_enabled: Answer<bool>,
    /// [`Health::remapped_rows`].
    pub remapped_rows: Answer<RemappedRows>,
    /// [`Health::retired_pages_pending`].
    pub retired_pages_pending: Answer<bool>,
    /// Whether the event set watches double-bit ECC errors ([`Health::watches`]).
    pub watches_double_bit_ecc: bool,
    /// Whether the event set watches critical Xid errors ([`Health::watches`]).
    pub watches_critical_xid: bool,
}

/// What a safety-critical run must not start with: each a reason
/// [`InitPhase::seal`](crate::safety::InitPhase::seal) refuses the run phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Finding {
    /// ECC is off: a flipped bit in device memory goes unnoticed.
    EccDisabled,
    /// The device has no ECC at all (`NVML_ERROR_NOT_SUPPORTED`): as [`EccDisabled`](Self::EccDisabled).
    EccNotSupported,
    /// A row remap waits for the next GPU reset: a row known to be faulty is still in use.
    RowRemapPending,
    /// A row remap failed: no spare row was left for a faulty one.
    RowRemapFailed,
    /// Pages wait for the next driver reload to be retired: memory known to be faulty is still
    /// in use (page retirement, before Ampere).
    RetiredPagesPending,
    /// The event set could not watch this kind of event (`NVML_ERROR_NOT_SUPPORTED` when it
    /// was registered): such a fault in the run phase would go unseen by the poll.
    EventNotWatched(EventKind),
    /// ECC is on, but neither row remapping nor page retirement answered
    /// (`NVML_ERROR_NOT_SUPPORTED` to both): memory known to be faulty could not be seen (a
    /// virtualised or restricted device may answer so; found by review: read as healthy).
    MemoryRepairUnobserved,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EccDisabled => f.write_str("ECC is off (nvmlDeviceGetEccMode: current disabled)"),
            Self::EccNotSupported => {
                f.write_str("the device has no ECC (nvmlDeviceGetEccMode: NOT_SUPPORTED)")
            }
            Self::RowRemapPending => {
                f.write_str("a row remap is pending (nvmlDeviceGetRemappedRows: isPending)")
            }
            Self::RowRemapFailed => {
                f.write_str("a row remap failed (nvmlDeviceGetRemappedRows: failureOccurred)")
            }
            Self::RetiredPagesPending => f.write_str(
                "pages are waiting to be retired (nvmlDeviceGetRetiredPagesPendingStatus)",
            ),
            Self::EventNotWatched(kind) => write!(f, "NVML cannot watch {kind} (NOT_SUPPORTED)"),
            Self::MemoryRepairUnobserved => f.write_str(
                "neither row remapping nor page retirement can be asked (nvmlDeviceGetRemappedRows \
                 and nvmlDeviceGetRetiredPagesPendingStatus: NOT_SUPPORTED)",
            ),
        }
    }
}

impl Preflight {
    /// What of this is a [`Finding`], in the order of [`Finding`]'s variants; empty for a device
    /// that may start a safety-critical run. `NotSupported` answers of row remapping (a GPU
    /// before Ampere) and of page retirement (Ampere and later, which remap rows instead) are no
    /// finding, but both at once are (nothing tells memory known to be faulty); a device without
    /// ECC is.
    pub fn findings(&self) -> Vec<Finding> {
        let mut found = Vec::new();
        match self.ecc_enabled {
            Answer::Known(false) => found.push(Finding::EccDisabled),
            Answer::NotSupported => found.push(Finding::EccNotSupported),
            Answer::Known(true) => {}
        }
        if let Answer::Known(rows) = self.remapped_rows {
            if rows.pending {
                found.push(Finding::RowRemapPending);
            }
            if rows.failed {
                found.push(Finding::RowRemapFailed);
            }
        }
        if self.retired_pages_pending == Answer::Known(true) {
            found.push(Finding::RetiredPagesPending);
        }
        if self.ecc_enabled == Answer::Known(true)
            && self.remapped_rows == Answer::NotSupported
            && self.retired_pages_pending == Answer::NotSupported
        {
            found.push(Finding::MemoryRepairUnobserved);
        }
        if !self.watches_double_bit_ecc {
            found.push(Finding::EventNotWatched(EventKind::DoubleBitEcc));
        }
        if !self.watches_critical_xid {
            found.push(Finding::EventNotWatched(EventKind::CriticalXid));
        }
        found
    }
}

/// NVML opened for one CUDA device: its NVML handle and an event set registered for its
/// double-bit ECC and critical Xid events. Dropping it frees the event set and drops its
/// reference to NVML (`nvmlEventSetFree`, `nvmlShutdown`). See the [module docs](self).
pub struct Health {
    calls: &'static Calls,
    /// The process's poison record (a unit test's own in the tests).
    poison: &'static Poison,
    /// The device's PCI bus id, as `cuDeviceGetPCIBusId` wrote it (NVML found the device by it).
    pci_bus_id: CString,
    device: nvmlDevice_t,
    /// Non-null once made.
    events: nvmlEventSet_t,
    /// The event types the set watches (`nvmlEventType*` bits).
    watched: c_ulonglong,
}

impl Health {
    /// `cuDeviceGetPCIBusId`, `nvmlInit_v2`, `nvmlDeviceGetHandleByPciBusId_v2`,
    /// `nvmlEventSetCreate`, `nvmlDeviceRegisterEvents`—Opens NVML for `device` and makes its
    /// event set, registered for double-bit ECC and critical Xid events: both at once, else
    /// each alone (a device may not support one; [`watches`](Self::watches) says which).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LibraryNotLinked`] in a build that found no NVML (the detail says what was
    /// searched and what to install); [`ErrorKind::NvmlFailed`] for a failed NVML call (NVML
    /// cannot reach the driver, no NVML device at the PCI bus id); the process's poison or a
    /// forked child's refusal; `cuDeviceGetPCIBusId`'s error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlEvents.html>
    #[doc(alias = "nvmlInit_v2")]
    #[doc(alias = "nvmlDeviceGetHandleByPciBusId_v2")]
    #[doc(alias = "nvmlEventSetCreate")]
    #[doc(alias = "nvmlDeviceRegisterEvents")]
    pub fn open(device: Device) -> Result<Self> {
        crate::error::poison::check()?;
        not_linked()?;
        let bus_id = CString::new(device.pci_bus_id()?).map_err(|_| {
            Error::custack(
                ErrorKind::NvmlFailed,
                "cuDeviceGetPCIBusId wrote a PCI bus id with a NUL byte",
            )
        })?;
        Self::open_with(&calls::LINKED, crate::error::poison::process(), bus_id)
    }

    /// [`open`](Self::open) through `calls`, recording faults in `poison`.
    pub(crate) fn open_with(
        calls: &'static Calls,
        poison: &'static Poison,
        pci_bus_id: CString,
    ) -> Result<Self> {
        // SAFETY: `nvmlInit_v2` takes no argument; it may be called from any thread, any
        // number of times (NVML counts the references).
        check(calls, "nvmlInit_v2", unsafe { (calls.init)() })?;
        // From here on, `Drop` frees what was made and drops the reference.
        let mut health = Self {
            calls,
            poison,
            pci_bus_id,
            device: core::ptr::null_mut(),
            events: core::ptr::null_mut(),
            watched: 0,
        };
        // SAFETY: the bus id is a NUL-terminated string that lives across the call; the
        // out-pointer is a live, writable handle.
        let found =
            unsafe { (calls.by_pci_bus_id)(health.pci_bus_id.as_ptr(), &raw mut health.device) };
        check(calls, "nvmlDeviceGetHandleByPciBusId_v2", found)?;
        // SAFETY: a live, writable out-pointer; NVML is initialized (above).
        let made = unsafe { (calls.event_set_create)(&raw mut health.events) };
        check(calls, "nvmlEventSetCreate", made)?;
        let both = EventKind::DoubleBitEcc.mask() | EventKind::CriticalXid.mask();
        if health.register(both)? {
            health.watched = both;
        } else {
            for kind in [EventKind::DoubleBitEcc, EventKind::CriticalXid] {
                if health.register(kind.mask())? {
                    health.watched |= kind.mask();
                }
            }
        }
        Ok(health)
    }

    /// `nvmlDeviceRegisterEvents` of `mask`: `Ok(false)` for `NOT_SUPPORTED`.
    fn register(&self, mask: c_ulonglong) -> Result<bool> {
        // SAFETY: `device` is NVML's handle (found above) and `events` the set made above, both
        // live while NVML is initialized, which `self` keeps it.
        let status = unsafe { (self.calls.register_events)(self.device, mask, self.events) };
        if status == nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED {
            return Ok(false);
        }
        check(self.calls, "nvmlDeviceRegisterEvents", status).map(|()| true)
    }

    /// Whether the event set watches `kind` (it was registered without `NOT_SUPPORTED`).
    pub fn watches(&self, kind: EventKind) -> bool {
        self.watched & kind.mask() != 0
    }

    /// The PCI bus id NVML found the device by (`domain:bus:device.function`, from
    /// `cuDeviceGetPCIBusId`).
    pub fn pci_bus_id(&self) -> &CStr {
        &self.pci_bus_id
    }

    /// `nvmlDeviceGetEccMode`—Whether ECC protects the device's memory now (the current mode;
    /// `NotSupported`: the device has no ECC).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NvmlFailed`]; [`ErrorKind::ForkedProcess`] in a child forked after
    /// `Profile::init`, which makes no driver call (R22).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html>
    #[doc(alias = "nvmlDeviceGetEccMode")]
    pub fn ecc_enabled(&self) -> Result<Answer<bool>> {
        crate::error::poison::not_forked()?;
        let mut current = nvmlEnableState_t::NVML_FEATURE_DISABLED;
        let mut pending = nvmlEnableState_t::NVML_FEATURE_DISABLED;
        // SAFETY: NVML's live handle; live, writable out-pointers.
        let status =
            unsafe { (self.calls.ecc_mode)(self.device, &raw mut current, &raw mut pending) };
        answer(self.calls, "nvmlDeviceGetEccMode", status, || {
            current == nvmlEnableState_t::NVML_FEATURE_ENABLED
        })
    }

    /// `nvmlDeviceGetRemappedRows`—The device's row remapping (`NotSupported`: a GPU before
    /// Ampere, which retires pages instead).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NvmlFailed`]; [`ErrorKind::ForkedProcess`] in a child forked after
    /// `Profile::init`, which makes no driver call (R22).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html>
    #[doc(alias = "nvmlDeviceGetRemappedRows")]
    pub fn remapped_rows(&self) -> Result<Answer<RemappedRows>> {
        crate::error::poison::not_forked()?;
        let (mut corr, mut unc, mut pending, mut failed): (c_uint, c_uint, c_uint, c_uint) =
            (0, 0, 0, 0);
        // SAFETY: NVML's live handle; live, writable out-pointers.
        let status = unsafe {
            (self.calls.remapped_rows)(
                self.device,
                &raw mut corr,
                &raw mut unc,
                &raw mut pending,
                &raw mut failed,
            )
        };
        answer(self.calls, "nvmlDeviceGetRemappedRows", status, || {
            RemappedRows {
                correctable: corr,
                uncorrectable: unc,
                pending: pending != 0,
                failed: failed != 0,
            }
        })
    }

    /// `nvmlDeviceGetRetiredPagesPendingStatus`—Whether pages wait for the next driver reload
    /// to be retired (`NotSupported`: Ampere and later, which remap rows instead, or a device
    /// without ECC).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NvmlFailed`]; [`ErrorKind::ForkedProcess`] in a child forked after
    /// `Profile::init`, which makes no driver call (R22).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html>
    #[doc(alias = "nvmlDeviceGetRetiredPagesPendingStatus")]
    pub fn retired_pages_pending(&self) -> Result<Answer<bool>> {
        crate::error::poison::not_forked()?;
        let mut pending = nvmlEnableState_t::NVML_FEATURE_DISABLED;
        // SAFETY: NVML's live handle; a live, writable out-pointer.
        let status = unsafe { (self.calls.retired_pages_pending)(self.device, &raw mut pending) };
        answer(
            self.calls,
            "nvmlDeviceGetRetiredPagesPendingStatus",
            status,
            || pending == nvmlEnableState_t::NVML_FEATURE_ENABLED,
        )
    }

    /// `nvmlDeviceGetTotalEccErrors`—Corrected and uncorrected ECC errors since the driver was
    /// loaded (`NotSupported`: no ECC, or ECC off).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NvmlFailed`]; [`ErrorKind::ForkedProcess`] in a child forked after
    /// `Profile::init`, which makes no driver call (R22).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html>
    #[doc(alias = "nvmlDeviceGetTotalEccErrors")]
    pub fn ecc_errors(&self) -> Result<Answer<EccErrors>> {
        crate::error::poison::not_forked()?;
        let mut counts = [0 as c_ulonglong; 2];
        for (kind, count) in [
            nvmlMemoryErrorType_t::NVML_MEMORY_ERROR_TYPE_CORRECTED,
            nvmlMemoryErrorType_t::NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
        ]
        .into_iter()
        .zip(&mut counts)
        {
            // SAFETY: NVML's live handle; a live, writable out-pointer.
            let status = unsafe {
                (self.calls.total_ecc_errors)(
                    self.device,
                    kind,
                    nvmlEccCounterType_t::NVML_VOLATILE_ECC,
                    count,
                )
            };
            if let Answer::NotSupported =
                answer(self.calls, "nvmlDeviceGetTotalEccErrors", status, || ())?
            {
                return Ok(Answer::NotSupported);
            }
        }
        let [corrected, uncorrected] = counts;
        Ok(Answer::Known(EccErrors {
            corrected,
            uncorrected,
        }))
    }

    /// Reads ECC mode, row remapping and page retirement, and which events are watched: see
    /// [`Preflight::findings`] for what a run must not start with.
    ///
    /// # Errors
    ///
    /// As [`ecc_enabled`](Self::ecc_enabled).
    pub fn preflight(&self) -> Result<Preflight> {
        Ok(Preflight {
            ecc_enabled: self.ecc_enabled()?,
            remapped_rows: self.remapped_rows()?,
            retired_pages_pending: self.retired_pages_pending()?,
            watches_double_bit_ecc: self.watches(EventKind::DoubleBitEcc),
            watches_critical_xid: self.watches(EventKind::CriticalXid),
        })
    }

    /// `nvmlEventSetWait_v2` with a zero timeout—One event of the set, if one is there,
    /// without waiting. Allocates nothing. What each answer of the wait is:
    ///
    /// | NVML answers | `poll` returns |
    /// |---|---|
    /// | `NVML_SUCCESS` | `Some` of the event (a critical Xid with its number; any other type, double-bit ECC, the one other kind registered) |
    /// | `NVML_ERROR_TIMEOUT` | `None`: no event was pending (NVML documents this answer for "no event arrived in the timeout", here zero) |
    /// | `NVML_ERROR_GPU_IS_LOST` | `Some(`[`HealthEvent::GpuLost`]`)` |
    /// | anything else (`UNINITIALIZED`, `INVALID_ARGUMENT`, `UNKNOWN`, …, or a status NVML does not list) | `Err`, [`ErrorKind::NvmlFailed`] naming it |
    ///
    /// Only reports: the restricted profile's
    /// [`RunPhase::poll_health`](crate::safety::RunPhase::poll_health) poisons the process
    /// with every answer but `NVML_ERROR_TIMEOUT`, the errors included.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NvmlFailed`] and [`ErrorKind::ForkedProcess`], as above.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlEvents.html>
    #[doc(alias = "nvmlEventSetWait_v2")]
    pub fn poll(&self) -> Result<Option<HealthEvent>> {
        crate::error::poison::not_forked()?;
        let mut data = nvmlEventData_t {
            device: core::ptr::null_mut(),
            eventType: 0,
            eventData: 0,
            gpuInstanceId: 0,
            computeInstanceId: 0,
        };
        // SAFETY: `events` is the live set made at open; `data` a live, writable
        // `nvmlEventData_t`; a zero timeout returns at once.
        let status = unsafe { (self.calls.event_set_wait)(self.events, &raw mut data, 0) };
        match status {
            nvmlReturn_t::NVML_SUCCESS => Ok(Some(event_of(&data))),
            nvmlReturn_t::NVML_ERROR_TIMEOUT => Ok(None),
            nvmlReturn_t::NVML_ERROR_GPU_IS_LOST => Ok(Some(HealthEvent::GpuLost)),
            other => Err(failed(self.calls, "nvmlEventSetWait_v2", other)),
        }
    }

    /// [`poll`](Self::poll), fail-closed: the run phase's poll. Only `NVML_ERROR_TIMEOUT` (no
    /// event pending) is healthy; an event, `NVML_ERROR_GPU_IS_LOST` and every other answer of
    /// the wait (an error, or a status NVML does not document for it) poison the process
    /// ([`ErrorKind::HardwareFault`], observed by [`Observer::HealthPoll`] at `site`): a poll
    /// that cannot read the GPU's events cannot say it is healthy. Refuses at once (the first
    /// error) once the process is poisoned.
    pub(crate) fn poll_or_poison(&self, site: &'static Location<'static>) -> Result<()> {
        self.poison.check()?;
        match self.poll() {
            Ok(None) => Ok(()),
            Ok(Some(event)) => Err(self.fault(format_args!("{event}"), Observer::HealthPoll, site)),
            Err(e) => Err(self.fault(
                format_args!("the health poll could not read the GPU's events: {e}"),
                Observer::HealthPoll,
                site,
            )),
        }
    }

    /// The pre-flight at `InitPhase::seal`: each [`Finding`], or a pre-flight NVML could not
    /// answer, poisons the process ([`ErrorKind::HardwareFault`], observed by
    /// [`Observer::HealthPreflight`] at `site`), naming everything found.
    pub(crate) fn preflight_or_poison(&self, site: &'static Location<'static>) {
        let found = match self.preflight() {
            Ok(preflight) => {
                let findings = preflight.findings();
                if findings.is_empty() {
                    return;
                }
                let list: Vec<String> = findings.iter().map(ToString::to_string).collect();
                list.join("; ")
            }
            Err(e) => format!("the pre-flight could not read the GPU's health: {e}"),
        };
        let _ = self.fault(
            format_args!("the health pre-flight refused the run phase: {found}"),
            Observer::HealthPreflight,
            site,
        );
    }

    #[cold]
    #[inline(never)]
    fn fault(
        &self,
        what: fmt::Arguments<'_>,
        observer: Observer,
        site: &'static Location<'static>,
    ) -> Error {
        let error = Error::custack(
            ErrorKind::HardwareFault,
            format!(
                "{what}, on the GPU at PCI {}",
                self.pci_bus_id.to_string_lossy()
            ),
        );
        self.poison.observe(error, observer, site)
    }
}

impl fmt::Debug for Health {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Health")
            .field("pci_bus_id", &self.pci_bus_id)
            .field("device", &self.device)
            .field("events", &self.events)
            .field("watched", &self.watched)
            .finish_non_exhaustive()
    }
}

impl Drop for Health {
    fn drop(&mut self) {
        // A forked child (R22) makes no driver call, NVML's included: the event set and the
        // reference are the parent's. Left alone; the refusal is recorded.
        if let Err(e) = crate::error::poison::not_forked() {
            crate::error::record_drop_error(e);
            return;
        }
        if !self.events.is_null() {
            // SAFETY: the set made at open, freed once (the pointer is cleared).
            let _ = unsafe { (self.calls.event_set_free)(self.events) };
            self.events = core::ptr::null_mut();
        }
        // SAFETY: drops the reference `nvmlInit_v2` took at open (a `Health` exists only after
        // it succeeded).
        let _ = unsafe { (self.calls.shutdown)() };
    }
}

fn event_of(data: &nvmlEventData_t) -> HealthEvent {
    if data.eventType & nvmlEventTypeXidCriticalError != 0 {
        HealthEvent::CriticalXid {
            xid: data.eventData,
        }
    } else {
        // Only double-bit ECC and critical Xid events are registered.
        HealthEvent::DoubleBitEcc
    }
}

/// `Err(LibraryNotLinked)` in a build that found no NVML, naming what build.rs searched.
fn not_linked() -> Result<()> {
    use crate::error::not_linked::{NVML, not_linked};
    not_linked(&NVML).map_err(|e| {
        let searched = env!("CUSTACK_NVML_SEARCHED");
        let detail = e.detail().unwrap_or_default().to_owned();
        e.with_detail(format!("{detail}; build.rs searched {searched}"))
    })
}

/// `Ok` for `NVML_SUCCESS`, else the call's error.
fn check(calls: &Calls, call: &str, status: nvmlReturn_t) -> Result<()> {
    if status == nvmlReturn_t::NVML_SUCCESS {
        Ok(())
    } else {
        Err(failed(calls, call, status))
    }
}

/// `Known(value())` for `NVML_SUCCESS`, `NotSupported` for `NVML_ERROR_NOT_SUPPORTED`, else the
/// call's error.
fn answer<T>(
    calls: &Calls,
    call: &str,
    status: nvmlReturn_t,
    value: impl FnOnce() -> T,
) -> Result<Answer<T>> {
    match status {
        nvmlReturn_t::NVML_SUCCESS => Ok(Answer::Known(value())),
        nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED => Ok(Answer::NotSupported),
        other => Err(failed(calls, call, other)),
    }
}

/// [`ErrorKind::NvmlFailed`]: the call, NVML's status and `nvmlErrorString` of it.
#[cold]
#[inline(never)]
fn failed(calls: &Calls, call: &str, status: nvmlReturn_t) -> Error {
    // SAFETY: `nvmlErrorString` takes any status and returns a static string or (the stubs of
    // a build without NVML) null, checked below.
    let text = unsafe { (calls.error_string)(status) };
    let text = if text.is_null() {
        "no description".into()
    } else {
        // SAFETY: a non-null, NUL-terminated static string of NVML's.
        unsafe { CStr::from_ptr(text) }.to_string_lossy()
    };
    Error::custack(
        ErrorKind::NvmlFailed,
        format!("{call} returned {} ({text})", status.0),
    )
}
