//! Allocations exported to OS handles, and the handle types each physical allocation may be
//! exported to (`cuMemExportToShareableHandle`, `cuMemImportFromShareableHandle`).

use crate::api::types::{
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_OUT_OF_MEMORY, CUDA_SUCCESS,
    CUresult,
};
use core::ffi::{c_int, c_ulonglong, c_void};
use std::collections::HashMap;
use std::sync::Mutex;

const POSIX_FILE_DESCRIPTOR: c_int = 0x1;
const FABRIC: c_int = 0x8;
/// The first 8 bytes of an exported handle's contents (`contents`).
const MARKER: &[u8; 8] = b"custkvmm";

#[derive(Default)]
struct Share {
    /// Per physical allocation: its size and `requestedHandleTypes`.
    physical: HashMap<c_ulonglong, (usize, c_int)>,
    /// Exports made so far (each one's token is its number).
    exported: usize,
    /// Per export's token, where the double keeps the exported memory's bytes (`data.rs`), so
    /// that an import in this process shares them.
    bytes: HashMap<usize, u64>,
    /// Under Miri: the contents of each descriptor exported (by its number).
    #[cfg(miri)]
    miri_fds: HashMap<c_int, [u8; 32]>,
}
static SHARE: Mutex<Option<Share>> = Mutex::new(None);

fn with<R>(f: impl FnOnce(&mut Share) -> R) -> R {
    let mut guard = SHARE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(guard.get_or_insert_with(Share::default))
}

pub(crate) fn created(h: c_ulonglong, size: usize, requested: c_int) {
    with(|s| s.physical.insert(h, (size, requested)));
}

pub(crate) fn requested(h: c_ulonglong) -> c_int {
    with(|s| s.physical.get(&h).map_or(0, |&(_, r)| r))
}

/// The 32 bytes naming an export: the marker, a token, the allocation's size and handle
/// types, and the exporting process's id, so that an import in another process (the example
/// and the GPU test, run against the double) finds them too, and one in this process finds the
/// memory it exported.
fn contents(token: usize, size: usize, requested: c_int) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(MARKER);
    bytes[8..16].copy_from_slice(&(token as u64).to_le_bytes());
    bytes[16..24].copy_from_slice(&(size as u64).to_le_bytes());
    bytes[24..28].copy_from_slice(&requested.to_le_bytes());
    bytes[28..32].copy_from_slice(&std::process::id().to_le_bytes());
    bytes
}

/// The size and handle types a handle's 32 bytes name, if they are one of ours, and where the
/// exported memory's bytes are when this process exported it.
fn named(bytes: &[u8; 32]) -> Option<(usize, c_int, Option<u64>)> {
    if &bytes[..8] != MARKER {
        return None;
    }
    let token = u64::from_le_bytes(bytes[8..16].try_into().ok()?);
    let size = u64::from_le_bytes(bytes[16..24].try_into().ok()?);
    let requested = c_int::from_le_bytes(bytes[24..28].try_into().ok()?);
    let process = u32::from_le_bytes(bytes[28..32].try_into().ok()?);
    let shared = if process == std::process::id() {
        let token = usize::try_from(token).ok()?;
        with(|s| s.bytes.get(&token).copied())
    } else {
        None
    };
    Some((usize::try_from(size).ok()?, requested, shared))
}

/// `cuMemExportToShareableHandle`: physical allocation `h` exported to a handle of `kind`,
/// written to `os` (a file descriptor, or the 64 bytes of a fabric handle).
///
/// # Safety
///
/// `os` is valid for a write of the handle `kind` names (a `c_int`, or 64 bytes).
pub(crate) unsafe fn export(os: *mut c_void, h: c_ulonglong, kind: c_int) -> CUresult {
    let Some((size, requested)) = with(|s| s.physical.get(&h).copied()) else {
        return CUDA_ERROR_INVALID_VALUE;
    };
    // The driver exports only to a type the allocation was created for.
    if requested & kind == 0 || (kind != POSIX_FILE_DESCRIPTOR && kind != FABRIC) {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    let at = crate::data::physical_exported(h);
    let token = with(|s| {
        s.exported += 1;
        if let Some(at) = at {
            s.bytes.insert(s.exported, at);
        }
        s.exported
    });
    let bytes = contents(token, size, requested);
    if kind == FABRIC {
        let mut handle = [0u8; 64];
        handle[..32].copy_from_slice(&bytes);
        // SAFETY: `os` is valid for the 64 bytes of a fabric handle (this function's contract).
        unsafe { os.cast::<[u8; 64]>().write(handle) };
        return CUDA_SUCCESS;
    }
    let Some(fd) = descriptor_holding(&bytes) else {
        return CUDA_ERROR_OUT_OF_MEMORY;
    };
    // SAFETY: `os` is valid for a descriptor, a `c_int` (this function's contract).
    unsafe { os.cast::<c_int>().write(fd) };
    CUDA_SUCCESS
}

/// A new descriptor whose file holds `bytes`: a memfd.
#[cfg(not(miri))]
fn descriptor_holding(bytes: &[u8; 32]) -> Option<c_int> {
    // SAFETY: a NUL-terminated name and flags `memfd_create` defines.
    let fd = unsafe { memfd_create(c"custack-checkdriver-export".as_ptr(), MFD_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` is the descriptor just made; `bytes` is valid for reads of its length.
    if unsafe { pwrite(fd, bytes.as_ptr().cast(), bytes.len(), 0) } != bytes.len() as isize {
        // SAFETY: the descriptor just made, closed once.
        unsafe { close(fd) };
        return None;
    }
    Some(fd)
}

/// The 32 bytes the file of descriptor `fd` holds, if it can be read without blocking.
#[cfg(not(miri))]
fn contents_of(fd: c_int) -> Option<[u8; 32]> {
    let mut bytes = [0u8; 32];
    // Reads without moving the file offset, and fails at once (`ESPIPE`, `EBADF`) on a
    // socket, pipe or closed descriptor.
    // SAFETY: `bytes` is valid for writes of its length; any `fd` is safe to read from (an
    // invalid one is `EBADF`), and reading does not move a shared file offset.
    let n = unsafe { pread(fd, bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    (n == bytes.len() as isize).then_some(bytes)
}

/// Under Miri, which has no memfd: an eventfd, whose number the double remembers with
/// `bytes` (the checking program moves the descriptor there instead of sending it, so the
/// number names it on import).
#[cfg(miri)]
fn descriptor_holding(bytes: &[u8; 32]) -> Option<c_int> {
    const EFD_CLOEXEC: c_int = 0o2_000_000;
    // SAFETY: an initial value and flags `eventfd` defines.
    let fd = unsafe { eventfd(0, EFD_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    with(|s| s.miri_fds.insert(fd, *bytes));
    Some(fd)
}

/// Under Miri: the contents `descriptor_holding` remembered for `fd`.
#[cfg(miri)]
fn contents_of(fd: c_int) -> Option<[u8; 32]> {
    with(|s| s.miri_fds.get(&fd).copied())
}

/// Closes a descriptor `export` made (for the tests).
#[cfg(all(test, not(miri)))]
pub(crate) fn close_fd(fd: c_int) {
    // SAFETY: a descriptor the caller owns, closed once.
    unsafe { close(fd) };
}

/// The size and handle types of the allocation `os` names (a descriptor's value, or a
/// pointer to a fabric handle), if it is one the double exported (in any process), and where
/// its bytes are when this process exported it (`data.rs`).
///
/// # Safety
///
/// For a fabric handle, `os` is null or points to its 64 bytes.
pub(crate) unsafe fn import(os: *mut c_void, kind: c_int) -> Option<(usize, c_int, Option<u64>)> {
    match kind {
        FABRIC if !os.is_null() => {
            // SAFETY: a non-null `os` points to a fabric handle's 64 bytes (this function's
            // contract).
            let handle = unsafe { os.cast::<[u8; 64]>().read() };
            named(handle[..32].try_into().ok()?)
        }
        POSIX_FILE_DESCRIPTOR => {
            let fd = c_int::try_from(os.addr()).ok()?;
            named(&contents_of(fd)?)
        }
        _ => None,
    }
}

#[cfg(not(miri))]
const MFD_CLOEXEC: core::ffi::c_uint = 1;
#[cfg(miri)]
unsafe extern "C" {
    fn eventfd(initval: core::ffi::c_uint, flags: c_int) -> c_int;
}
#[cfg(not(miri))]
unsafe extern "C" {
    fn memfd_create(name: *const core::ffi::c_char, flags: core::ffi::c_uint) -> c_int;
    fn pwrite(fd: c_int, buf: *const c_void, count: usize, offset: i64) -> isize;
    fn pread(fd: c_int, buf: *mut c_void, count: usize, offset: i64) -> isize;
    fn close(fd: c_int) -> c_int;
}
