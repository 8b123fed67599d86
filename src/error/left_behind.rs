//! What custack leaves behind on purpose, told to the checking driver.
//!
//! Where the driver cannot say that work is over (a failed wait, a failed synchronize), custack
//! never frees what that work may still use: a submission's payload, a module its kernels may
//! still run, is leaked rather than freed (R11), and a parked value whose context cannot be
//! pushed cannot be released either. The checking driver reports a handle that is never freed
//! as an orphan or a leak, which is exactly the bug a user's `mem::forget` of in-flight work
//! makes on the same path; so custack names each handle it leaves on purpose, and the checker
//! excuses exactly those.
//!
//! The channel is the checking driver's own extension, found with the driver's
//! `cuGetProcAddress_v2` as the stand-ins' registration is ([`StandIn`](crate::StandIn)): on a
//! real driver it is not found and nothing is called. Only failure paths call it.

use crate::error::failure::Error;

/// `Result` with custack's [`Error`].
type Result<T, E = Error> = core::result::Result<T, E>;
use crate::error::poison::may_release;
use crate::ffi;
use core::ffi::{CStr, c_char, c_void};
use std::sync::OnceLock;

/// `custackCheckdriverLeftBehind(kind, handle, bytes)`, as `checkdriver/src/extensions.rs`
/// defines it.
type LeftBehindFn =
    unsafe extern "C" fn(kind: *const c_char, handle: u64, bytes: u64) -> ffi::CUresult;

/// What kind of driver object a handle left behind is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Object {
    /// Device (or managed) memory, by its address.
    DeviceMemory,
    /// Page-locked host memory (`cuMemHostAlloc`), by its address.
    HostMemory,
    /// A module.
    Module,
    /// An executable graph.
    GraphExec,
    /// A stream.
    Stream,
    /// An event.
    Event,
    /// A reserved range of virtual addresses, by its start.
    Reservation,
    /// Physical memory (`cuMemCreate`), by its handle.
    PhysicalMemory,
    /// Physical memory mapped into a reservation, by its start.
    Mapping,
    /// A context (`cuCtxCreate`, or a primary context retained): every handle of it is left
    /// with it.
    Context,
    /// A green context, by its `CUgreenCtx`.
    GreenContext,
    /// A graph (`CUgraph`).
    Graph,
    /// A library (`cuLibraryLoadData`).
    Library,
    /// A CUDA array.
    Array,
    /// A mipmapped CUDA array.
    MipmappedArray,
    /// A texture object.
    Texture,
    /// A surface object.
    Surface,
    /// Device memory opened from an IPC handle, by its address.
    IpcMemory,
    /// The current context's access to a peer context, by the peer's `CUcontext`.
    PeerAccess,
    /// Imported external memory (`cuImportExternalMemory`).
    ExternalMemory,
    /// An imported external semaphore (`cuImportExternalSemaphore`).
    ExternalSemaphore,
    /// A handle the checking driver does not track (a CUDA library's handle, a linker state,
    /// registered host memory, a memory pool): nothing is told.
    Untracked,
}

impl Object {
    fn name(self) -> Option<&'static CStr> {
        Some(match self {
            Object::DeviceMemory => c"DeviceMemory",
            Object::HostMemory => c"HostMemory",
            Object::Module => c"Module",
            Object::GraphExec => c"GraphExec",
            Object::Stream => c"Stream",
            Object::Event => c"Event",
            Object::Reservation => c"Reservation",
            Object::PhysicalMemory => c"PhysicalMemory",
            Object::Mapping => c"Mapping",
            Object::Context => c"Context",
            Object::GreenContext => c"GreenContext",
            Object::Graph => c"Graph",
            Object::Library => c"Library",
            Object::Array => c"Array",
            Object::MipmappedArray => c"MipmappedArray",
            Object::Texture => c"TexObject",
            Object::Surface => c"SurfObject",
            Object::IpcMemory => c"IpcMemory",
            Object::PeerAccess => c"PeerAccess",
            Object::ExternalMemory => c"ExternalMemory",
            Object::ExternalSemaphore => c"ExternalSemaphore",
            Object::Untracked => return None,
        })
    }
}

/// The checking driver's extension, looked up once (a driver call: [`extension`]).
static FOUND: OnceLock<Option<LeftBehindFn>> = OnceLock::new();

/// Looks up the checking driver's extension now, where a driver call is allowed, so that a
/// value left behind later inside code the driver called (where custack makes no call) is
/// still named: called where custack hands the driver a callback (a host function, a host
/// node's closure, an occupancy callback). One load once looked up.
#[inline]
pub(crate) fn prime() {
    if FOUND.get().is_none() && !crate::error::callback::inside() {
        let _ = lookup();
    }
}

fn lookup() -> Option<LeftBehindFn> {
    // Inside code the driver called no call is made (R35): only an earlier lookup's answer.
    if crate::error::callback::inside() {
        return FOUND.get().copied().flatten();
    }
    *FOUND.get_or_init(|| {
        // Any failure of the lookup counts as "not the checking driver": nothing to tell.
        let pfn = extension(c"custackCheckdriverLeftBehind").ok().flatten()?;
        // SAFETY: the checking driver's `custackCheckdriverLeftBehind` has exactly the
        // `LeftBehindFn` signature (`checkdriver/src/extensions.rs`); function and data pointers
        // have one size.
        Some(unsafe { core::mem::transmute::<*mut c_void, LeftBehindFn>(pfn) })
    })
}

/// How many times a release that cannot be left behind is tried before the safe state: one a
/// borrow's end waits for (a registered slice's `cuMemHostUnregister`, whose caller frees or
/// reuses the memory once it returns), or without which work may never end (an aborted NCCL
/// communicator's `ncclCommAbort`, in its context). A one-off failure is tried again; an
/// answer that keeps failing (the same error for ever, a lost device) ends in the safe state,
/// never in a returned borrow the driver may still hold.
pub(crate) const RELEASE_TRIES: usize = 3;

/// Tells the checking driver, where it is the driver, that `handle` is left behind on purpose.
/// Nothing on a real driver.
pub(crate) fn left_behind(object: Object, handle: u64) {
    left_behind_range(object, handle, 0);
}

/// As [`left_behind`], for every handle of `object`'s kind that starts in
/// `handle..handle + bytes` (a mapping made of several pieces, each mapped on its own).
/// Nothing in a forked child (R22): its lookup would be a driver call, and the checking
/// driver's report is the parent's.
pub(crate) fn left_behind_range(object: Object, handle: u64, bytes: u64) {
    if crate::error::poison::forked() {
        return;
    }
    let Some(name) = object.name() else {
        return;
    };
    if let Some(f) = lookup() {
        // SAFETY: a NUL-terminated kind name; the handle and length are only compared with the
        // driver's records. Its answer is for the checker's report only.
        let _ = unsafe { f(name.as_ptr(), handle, bytes) };
    }
}

/// The checking driver's extension `name` (a `custackCheckdriver…` function, not a driver entry
/// point), found with the driver's own `cuGetProcAddress_v2`; `None` on any other driver, which
/// does not know the name.
///
/// # Errors
///
/// The lookup's own failure, other than "not found".
pub(crate) fn extension(name: &CStr) -> Result<Option<*mut c_void>> {
    // Not in a forked child (R22); still after a sticky error, which is when custack names what
    // it leaves behind.
    crate::error::poison::not_forked()?;
    if crate::error::callback::inside() {
        return Err(crate::error::callback::refused());
    }
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

/// [`may_release`] for `object`'s `handle`: where refused, names it to the checking driver as
/// left behind and returns the refusal (for the explicit `free`, `destroy`, `unload`, … forms).
///
/// # Errors
///
/// As [`may_release`].
#[inline]
pub(crate) fn release(object: Object, handle: u64) -> Result<()> {
    match may_release() {
        Ok(()) => Ok(()),
        Err(e) => Err(leave(e, object, handle)),
    }
}

/// [`release`] for a `Drop`: `true` if the release may go ahead; otherwise the refusal is
/// recorded in the drop log, the handle named as left behind, and the drop must make no
/// driver call.
#[inline]
#[must_use]
pub(crate) fn release_in_drop(object: Object, handle: u64) -> bool {
    match release(object, handle) {
        Ok(()) => true,
        Err(e) => {
            crate::error::drop_log::record_drop_error(e);
            false
        }
    }
}

/// A driver object's release in its owner's `Drop`: `destroy` runs where the release may go
/// ahead ([`release_in_drop`]), its error recorded in the drop log.
#[inline]
pub(crate) fn destroy_in_drop(object: Object, handle: u64, destroy: impl FnOnce() -> Result<()>) {
    if !release_in_drop(object, handle) {
        return;
    }
    if let Err(e) = destroy() {
        crate::error::drop_log::record_drop_error(e);
    }
}

#[cold]
#[inline(never)]
fn leave(e: Error, object: Object, handle: u64) -> Error {
    left_behind(object, handle);
    e
}

// Its one test forks, which Miri does not model.
#[cfg(all(test, unix, not(miri)))]
mod tests {
    use super::{Object, release, release_in_drop};
    use crate::error::kind::ErrorKind;
    use crate::error::poison::{check, forked, may_release, not_forked};

    type Result<T> = core::result::Result<T, crate::error::failure::Error>;

    /// A child forked after `watch_forks` refuses, the parent does not (CUDA-1.6).
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_forked_child_refuses_every_checked_call() {
        crate::alone::rerun_alone!(a_forked_child_refuses_every_checked_call);
        crate::error::poison::watch_forks().unwrap();
        assert!(check().is_ok() || crate::error::poison::poisoned().is_some());
        // SAFETY: the child only checks an atomic, makes an error and `_exit`s.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let forked_kind =
                |r: Result<()>| matches!(r, Err(e) if e.kind() == ErrorKind::ForkedProcess);
            // Every release and every pop is refused; a drop's refusal is recorded, not lost.
            let drop_refused = !release_in_drop(Object::DeviceMemory, 0x1000);
            let recorded = crate::error::take_drop_errors();
            let refused = forked()
                && forked_kind(check())
                && forked_kind(may_release())
                && forked_kind(release(Object::Module, 0x2000))
                && forked_kind(not_forked())
                && drop_refused
                && recorded.len() == 1
                && recorded[0].kind() == ErrorKind::ForkedProcess;
            // SAFETY: ends the child at once, running nothing of the parent's.
            unsafe { libc::_exit(i32::from(!refused)) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
        assert_eq!(
            libc::WEXITSTATUS(status),
            0,
            "the forked child was not refused"
        );
        assert!(!forked(), "the parent is not refused");
        assert!(not_forked().is_ok(), "the parent pops");
    }
}
