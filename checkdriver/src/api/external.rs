//! Models `cuda.h` "External Resource Interoperability" (`group__CUDA__EXTRES__INTEROP`): memory
//! and semaphores imported from a file descriptor (an opaque fd; a timeline semaphore's), buffers
//! and mipmapped arrays mapped onto imported memory, and semaphores waited on and signalled on
//! a stream.
//!
//! The descriptor is the driver's once an import succeeds: the double keeps it (its device and
//! inode, to see it is still the same file) and closes it when the import is destroyed; a
//! descriptor the program closed meanwhile, or that is not open at the import, is a violation.
//! A failed import takes nothing. Imported memory is backed by any file of at least the size
//! imported (a `memfd` in the checking programs); a dma-buf is refused with
//! `CUDA_ERROR_NOT_SUPPORTED`, as NVIDIA's driver refuses it outside Tegra. A mapped buffer is
//! device memory whose parent is its import, freed with `cuMemFree`; destroying an import that
//! still has a buffer or array mapped is a violation. A wait or signal pends its semaphores on
//! the stream, so destroying one before the stream's work is over is a violation, as freeing
//! memory is.

use super::common::{out, read_field};
use super::types::{
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_SUPPORTED, CUDA_SUCCESS, CUdeviceptr, Handle,
};
use crate::check::{self, Kind};
use crate::data;
use crate::handles::{device_address, handle};
use crate::mode::violation;
use core::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::os::fd::{BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;
use std::sync::{Mutex, PoisonError};

/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD`.
const MEMORY_OPAQUE_FD: c_int = 1;
/// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD`.
const MEMORY_DMABUF_FD: c_int = 9;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD`.
const SEMAPHORE_OPAQUE_FD: c_int = 1;
/// `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD`.
const SEMAPHORE_TIMELINE_FD: c_int = 9;

/// A file's device and inode: which file a descriptor names.
type FileId = (u64, u64);

/// The descriptors the driver owns: each import's handle, its fd, and the file it named then.
static TAKEN: Mutex<Vec<(usize, RawFd, FileId)>> = Mutex::new(Vec::new());

entry_points! {
    // `CUDA_EXTERNAL_MEMORY_HANDLE_DESC`: `type` at 0, `handle.fd` at 8, `size` at 24.
    fn cuImportExternalMemory(ext: *mut Handle, desc: *const c_void) {
        if desc.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let type_ = read_field::<c_int>(desc, 0);
        let fd = read_field::<c_int>(desc, 8);
        let size = read_field::<c_ulonglong>(desc, 24);
        if type_ == MEMORY_DMABUF_FD {
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        let Some((file, len)) = open_file(fd, "cuImportExternalMemory") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if type_ != MEMORY_OPAQUE_FD || size == 0 || size > len {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let h = handle();
        check::created_sized(Kind::ExternalMemory, h as usize, 0, size);
        taken(h as usize, fd, file);
        out(ext, h);
        CUDA_SUCCESS
    }
    // `CUDA_EXTERNAL_MEMORY_BUFFER_DESC`: `offset` at 0, `size` at 8.
    fn cuExternalMemoryGetMappedBuffer(ptr: *mut CUdeviceptr, ext: Handle, desc: *const c_void) {
        check::used(Kind::ExternalMemory, ext as usize, "cuExternalMemoryGetMappedBuffer");
        if desc.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let offset = read_field::<c_ulonglong>(desc, 0);
        let size = read_field::<c_ulonglong>(desc, 8);
        let imported = check::size_of_object(Kind::ExternalMemory, ext as usize);
        if size == 0 || offset.checked_add(size).is_none_or(|end| end > imported) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let bytes = usize::try_from(size).unwrap_or(usize::MAX);
        let p = device_address(bytes);
        check::created_sized(Kind::DeviceMemory, p as usize, ext as usize, size);
        data::allocated(p, bytes);
        out(ptr, p);
        CUDA_SUCCESS
    }
    // `CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC`: `offset` at 0, `arrayDesc` at 8, `numLevels`
    // at 48.
    fn cuExternalMemoryGetMappedMipmappedArray(array: *mut Handle, ext: Handle, desc: *const c_void) {
        check::used(Kind::ExternalMemory, ext as usize, "cuExternalMemoryGetMappedMipmappedArray");
        if desc.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let offset = read_field::<c_ulonglong>(desc, 0);
        let levels = read_field::<c_uint>(desc, 48);
        let array_desc = desc.cast::<u8>().wrapping_add(8).cast();
        let flags = super::texture::array_flags(array_desc);
        let layered = flags & super::texture::LAYERED != 0;
        let shape = super::texture::array_shape(array_desc);
        // The array's levels, packed, are the least memory it lies in: past the import's end,
        // its copies, surfaces and kernels would reach memory the import does not own, which
        // custack refuses before asking (a violation here). Laid out as the driver lays it out
        // (tiled: the double's model, `tiled`), an array past the end is refused with
        // `CUDA_ERROR_INVALID_VALUE`, as driver 580 was measured to refuse it (an H200: a
        // 64-row column of `f32` in the last 256 bytes), though no page documents it.
        if let Some((dims, element)) = shape {
            // 0 for an import that is not live, which `check::used` above reported.
            let imported = check::size_of_object(Kind::ExternalMemory, ext as usize);
            let fits = |bytes: Option<usize>| {
                bytes
                    .and_then(|p| u64::try_from(p).ok())
                    .and_then(|p| p.checked_add(offset))
                    .is_some_and(|end| end <= imported)
            };
            if imported > 0 && !fits(packed_bytes(dims, levels, layered, element, false)) {
                violation(&format!(
                    "cuExternalMemoryGetMappedMipmappedArray: {levels} levels of {dims:?} \
                     {element}-byte elements at offset {offset} of an import of {imported} bytes"
                ));
                return CUDA_ERROR_INVALID_VALUE;
            }
            if imported > 0 && !fits(packed_bytes(dims, levels, layered, element, true)) {
                return CUDA_ERROR_INVALID_VALUE;
            }
        }
        let h = handle();
        check::created(Kind::MipmappedArray, h as usize, ext as usize);
        if let Some((dims, element)) = shape {
            data::mipmapped_created(h as usize, dims, element, levels, layered);
        }
        super::texture::made_with_flags(h as usize, flags);
        out(array, h);
        CUDA_SUCCESS
    }
    fn cuDestroyExternalMemory(ext: Handle) releases(Kind::ExternalMemory, ext as usize) {
        let mapped = check::live_children(ext as usize, &[Kind::DeviceMemory, Kind::MipmappedArray]);
        for m in mapped {
            violation(&format!(
                "cuDestroyExternalMemory: {ext:p} destroyed while {m} mapped onto it lives"
            ));
        }
        if check::destroyed(Kind::ExternalMemory, ext as usize, "cuDestroyExternalMemory") {
            given_back(ext as usize, "cuDestroyExternalMemory");
        }
        CUDA_SUCCESS
    }
    // `CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC`: `type` at 0, `handle.fd` at 8.
    fn cuImportExternalSemaphore(sem: *mut Handle, desc: *const c_void) {
        if desc.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let type_ = read_field::<c_int>(desc, 0);
        let fd = read_field::<c_int>(desc, 8);
        let Some((file, _)) = open_file(fd, "cuImportExternalSemaphore") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if type_ != SEMAPHORE_OPAQUE_FD && type_ != SEMAPHORE_TIMELINE_FD {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let h = handle();
        check::created(Kind::ExternalSemaphore, h as usize, 0);
        taken(h as usize, fd, file);
        out(sem, h);
        CUDA_SUCCESS
    }
    fn cuSignalExternalSemaphoresAsync(sems: *const Handle, params: *const c_void, n: c_uint, stream: Handle) {
        semaphores_enqueued(sems, n, stream, "cuSignalExternalSemaphoresAsync")
    }
    fn cuWaitExternalSemaphoresAsync(sems: *const Handle, params: *const c_void, n: c_uint, stream: Handle) {
        semaphores_enqueued(sems, n, stream, "cuWaitExternalSemaphoresAsync")
    }
    fn cuDestroyExternalSemaphore(sem: Handle) releases(Kind::ExternalSemaphore, sem as usize) {
        check::freeing(Kind::ExternalSemaphore, sem as usize, None, "cuDestroyExternalSemaphore");
        if check::destroyed(Kind::ExternalSemaphore, sem as usize, "cuDestroyExternalSemaphore") {
            given_back(sem as usize, "cuDestroyExternalSemaphore");
        }
        CUDA_SUCCESS
    }
}

/// The device and inode of the file `fd` names, and its length, if `fd` is open; a closed or
/// invalid `fd` is a violation of `what`'s contract (the import reads it).
fn open_file(fd: RawFd, what: &str) -> Option<(FileId, u64)> {
    if fd < 0 {
        violation(&format!("{what}: a negative file descriptor ({fd})"));
        return None;
    }
    // SAFETY: `fd` is only borrowed for the `fcntl(F_DUPFD_CLOEXEC)` of `try_clone_to_owned`,
    // which fails with `EBADF` on a descriptor that is not open: nothing is read or closed.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    let Ok(copy) = borrowed.try_clone_to_owned() else {
        violation(&format!("{what}: file descriptor {fd} is not open"));
        return None;
    };
    let meta = std::fs::File::from(copy).metadata().ok()?;
    Some(((meta.dev(), meta.ino()), meta.len()))
}

/// The import `h` took `fd`, which named `file`.
fn taken(h: usize, fd: RawFd, file: FileId) {
    let mut t = TAKEN.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&(other, _, _)) = t.iter().find(|&&(_, f, _)| f == fd) {
        violation(&format!(
            "file descriptor {fd} imported again while import {other:#x} owns it"
        ));
    }
    t.push((h, fd, file));
}

/// The import `h` is destroyed: its descriptor, still the file it was, is closed now (by the
/// driver, in the model); a descriptor the program closed (or replaced) meanwhile is a violation.
fn given_back(h: usize, what: &str) {
    let entry = {
        let mut t = TAKEN.lock().unwrap_or_else(PoisonError::into_inner);
        t.iter()
            .position(|&(x, _, _)| x == h)
            .map(|i| t.swap_remove(i))
    };
    let Some((_, fd, file)) = entry else {
        return;
    };
    match open_file_quiet(fd) {
        Some(now) if now == file => {
            // SAFETY: the descriptor the import took, still open and the same file: the driver
            // (the double) owns it and closes it once, here.
            drop(unsafe { OwnedFd::from_raw_fd(fd) });
        }
        _ => violation(&format!(
            "{what}: file descriptor {fd}, which the driver owned since the import, was closed \
             (or reused) by the program"
        )),
    }
}

/// As [`open_file`]'s identity, without reporting.
fn open_file_quiet(fd: RawFd) -> Option<FileId> {
    // SAFETY: as in `open_file`: a duplicate is made or `EBADF` returned.
    let copy = unsafe { BorrowedFd::borrow_raw(fd) }
        .try_clone_to_owned()
        .ok()?;
    let meta = std::fs::File::from(copy).metadata().ok()?;
    Some((meta.dev(), meta.ino()))
}

/// `n` semaphores at `sems` are waited on or signalled on `stream`: each live and of the current
/// context, pending on the stream until its work is over.
///
/// # Safety
///
/// `sems` is null or holds `n` handles.
unsafe fn semaphores_enqueued(sems: *const Handle, n: c_uint, stream: Handle, what: &str) -> i32 {
    check::used(Kind::Stream, stream as usize, what);
    if sems.is_null() || n == 0 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    for i in 0..n as usize {
        // SAFETY: `sems` holds `n` handles (this function's contract), so the `i`th is in it.
        let at = unsafe { sems.add(i) };
        // SAFETY: as above: a handle the caller wrote.
        let sem = unsafe { at.read() };
        check::used(Kind::ExternalSemaphore, sem as usize, what);
        check::enqueued(stream as usize, Kind::ExternalSemaphore, sem as usize);
    }
    CUDA_SUCCESS
}

/// The bytes of `levels` levels of a `dims` array (a 0 dimension counts as 1, as the driver's
/// descriptor writes a 2D array's depth) of `element`-byte elements: each level halves every
/// dimension down to 1, a layered array's depth (its layers) kept. Packed, or with `tiled` as
/// the double models the driver's layout: each row padded to 64 bytes and, for a 2D or 3D
/// array, each level's height to 8 rows. `None` on overflow.
fn packed_bytes(
    dims: [usize; 3],
    levels: c_uint,
    layered: bool,
    element: usize,
    tiled: bool,
) -> Option<usize> {
    let one_d = dims[1] == 0;
    let [w, h, d] = dims.map(|n| n.max(1));
    (0..levels).try_fold(0usize, |sum, level| {
        let half = |n: usize| n.checked_shr(level).unwrap_or(0).max(1);
        let depth = if layered { d } else { half(d) };
        let (row, rows) = if tiled {
            let rows = if one_d {
                1
            } else {
                half(h).checked_next_multiple_of(8)?
            };
            (
                half(w).checked_mul(element)?.checked_next_multiple_of(64)?,
                rows,
            )
        } else {
            (half(w).checked_mul(element)?, half(h))
        };
        row.checked_mul(rows)?.checked_mul(depth)?.checked_add(sum)
    })
}
