//! The double's own entry points for checking programs and for custack, which a real driver does
//! not have: found through `cuGetProcAddress` (`api/entry_point.rs`), neither counted nor failed.
//! (`custackCheckdriverSetStandIn` is `standin.rs`'s, `custackCheckdriverFailNext` `trace.rs`'s.)

use crate::api::types::{CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, CUresult};
use crate::api::{DRIVER_VERSION, REPORTED_VERSION};
use crate::check::{self, Kind};
use crate::{mode, trace};
use core::ffi::{CStr, c_char, c_int};
use core::sync::atomic::Ordering::Relaxed;

/// The double's extension for checking programs: from now on, `cuDriverGetVersion` reports
/// `version` (e.g. 13000), and `cuGetProcAddress` finds the entry points of `NEWER` up to it.
/// Found through `cuGetProcAddress("custackCheckdriverSetDriverVersion")` (a program that
/// links a real driver finds nothing); not a driver call, so neither counted nor failed.
/// Returns 0, or `CUDA_ERROR_INVALID_VALUE` for a version before the 12.2 baseline.
#[unsafe(no_mangle)]
pub extern "C" fn custackCheckdriverSetDriverVersion(version: c_int) -> CUresult {
    if version < DRIVER_VERSION {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // The differential run's ceiling (`NULLDRIVER_DRIVER_VERSION_MAX`): the real driver's.
    REPORTED_VERSION.store(version.min(trace::version_ceiling()), Relaxed);
    CUDA_SUCCESS
}

/// The double's extension for checking programs: the number of driver calls made so far in
/// this process (the report's `calls`), so that a program can show that something made none.
/// Found through `cuGetProcAddress("custackCheckdriverCalls")`; not a driver call, so neither
/// counted nor failed.
#[unsafe(no_mangle)]
pub extern "C" fn custackCheckdriverCalls() -> u64 {
    check::calls()
}

/// The double's extension for the program under test (custack calls it): the handle `handle`
/// (with `bytes` other than 0: every handle of that kind starting in `handle..handle + bytes`,
/// as a mapping made of several pieces),
/// of the kind named `kind` (`DeviceMemory`, `HostMemory`, `Module`, `GraphExec`, `Stream`,
/// `Event`, `Reservation`, `PhysicalMemory`, `Mapping`, `Context`, `GreenContext`, `Graph`,
/// `Library`, `Array`, `MipmappedArray`, `TexObject`, `SurfObject`, `IpcMemory`, `ExternalMemory`, `ExternalSemaphore`; `PeerAccess`
/// with the peer context as the handle: the calling thread's current context's access to it),
/// is left behind on purpose (work may still use it: a submission whose wait failed leaks its
/// payload rather than free it; after a sticky error nothing is released, R20). A context
/// left behind leaves every handle of it behind too. It is then reported as left behind, not as an orphan or a
/// leak; any other handle the program leaves still is one. Found through
/// `cuGetProcAddress("custackCheckdriverLeftBehind")`; not a driver call, so neither counted
/// nor failed. Returns 0, or `CUDA_ERROR_INVALID_VALUE` (and a violation) for a kind it does not
/// know or a handle that is not live.
///
/// # Safety
///
/// `kind` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverLeftBehind(
    kind: *const c_char,
    handle: u64,
    bytes: u64,
) -> CUresult {
    if kind.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: the caller's promise.
    let name = unsafe { CStr::from_ptr(kind) }.to_bytes();
    let kind = match name {
        b"DeviceMemory" => Kind::DeviceMemory,
        b"HostMemory" => Kind::HostMemory,
        b"Module" => Kind::Module,
        b"GraphExec" => Kind::GraphExec,
        b"Stream" => Kind::Stream,
        b"Event" => Kind::Event,
        b"Reservation" => Kind::Reservation,
        b"PhysicalMemory" => Kind::Physical,
        b"Mapping" => Kind::Mapping,
        b"Context" => Kind::Context,
        b"GreenContext" => Kind::GreenContext,
        b"Graph" => Kind::Graph,
        b"Library" => Kind::Library,
        b"Array" => Kind::Array,
        b"MipmappedArray" => Kind::MipmappedArray,
        b"TexObject" => Kind::TexObject,
        b"SurfObject" => Kind::SurfObject,
        b"IpcMemory" => Kind::IpcMemory,
        b"ExternalMemory" => Kind::ExternalMemory,
        b"ExternalSemaphore" => Kind::ExternalSemaphore,
        b"PeerAccess" => {
            return if check::peer_left_behind(handle as usize) {
                CUDA_SUCCESS
            } else {
                CUDA_ERROR_INVALID_VALUE
            };
        }
        _ => {
            mode::data_violation(
                "custackCheckdriverLeftBehind",
                &format!("unknown kind {:?}", String::from_utf8_lossy(name)),
            );
            return CUDA_ERROR_INVALID_VALUE;
        }
    };
    if check::left_behind(kind, handle as usize, bytes as usize) {
        CUDA_SUCCESS
    } else {
        CUDA_ERROR_INVALID_VALUE
    }
}
