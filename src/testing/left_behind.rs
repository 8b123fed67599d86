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

use super::extension;
use crate::ffi;
use core::ffi::{CStr, c_char, c_void};
use std::sync::OnceLock;

/// `custackCheckdriverLeftBehind(kind, handle, bytes)`, as `checkdriver/src/lib.rs` defines it.
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
            Object::Untracked => return None,
        })
    }
}

fn lookup() -> Option<LeftBehindFn> {
    static FOUND: OnceLock<Option<LeftBehindFn>> = OnceLock::new();
    *FOUND.get_or_init(|| {
        // Any failure of the lookup counts as "not the checking driver": nothing to tell.
        let pfn = extension(c"custackCheckdriverLeftBehind").ok().flatten()?;
        // SAFETY: the checking driver's `custackCheckdriverLeftBehind` has exactly the
        // `LeftBehindFn` signature (`checkdriver/src/lib.rs`); function and data pointers have
        // one size.
        Some(unsafe { core::mem::transmute::<*mut c_void, LeftBehindFn>(pfn) })
    })
}

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
