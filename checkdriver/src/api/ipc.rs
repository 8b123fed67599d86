//! Models the interprocess calls of `cuda.h` "Memory Management" (`group__CUDA__MEM`): memory and
//! event handles exported, opened in another process, and closed. A handle carries the exporting
//! process's id: opened in that same process it is refused with `CUDA_ERROR_INVALID_CONTEXT`, as
//! the driver refuses it (the H200 run, for memory; for events as NVIDIA's driver answers too).
//! Opened in another process (a child of the checking program, with a double of its own), the
//! memory is new memory of the opening context: its bytes are this process's, not the
//! exporter's, which the double cannot reach.

use super::common::{checking, new_handle, out};
use super::types::{
    CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, CUdeviceptr, Handle,
};
use crate::check::{self, Kind};
use crate::data;
use crate::handles::device_address;
use crate::mode::violation;
use core::ffi::{c_char, c_uint};

entry_points! {
    // A handle carries the exported address and size (8 bytes each), a marker, then the
    // exporting process's id (4 bytes).
    fn cuIpcGetMemHandle(handle: *mut [u8; 64], ptr: CUdeviceptr) {
        let size = check::ipc_exported(ptr);
        let mut bytes = [7u8; 64];
        bytes[..8].copy_from_slice(&ptr.to_le_bytes());
        bytes[8..16].copy_from_slice(&size.to_le_bytes());
        bytes[16..24].copy_from_slice(b"custack\0");
        bytes[24..28].copy_from_slice(&std::process::id().to_le_bytes());
        out(handle, bytes);
        CUDA_SUCCESS
    }
    fn cuIpcOpenMemHandle_v2(ptr: *mut CUdeviceptr, handle: IpcHandle, flags: c_uint) {
        let bytes = ipc_bytes(&handle).map(|c| c as u8);
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
            u64::from_le_bytes(w)
        };
        let ours = &bytes[16..24] == b"custack\0";
        if ours && exporter(&bytes) == std::process::id() {
            return CUDA_ERROR_INVALID_CONTEXT;
        }
        let (exported, size) = if ours { (word(0), word(1)) } else { (0, 0) };
        let size = if size == 0 { 1 << 21 } else { size };
        let p = device_address(usize::try_from(size).unwrap_or(usize::MAX));
        if ours && checking() {
            opened_once(exporter(&bytes), exported, p);
        }
        check::ipc_opened(p, size, 0);
        data::allocated(p, usize::try_from(size).unwrap_or(0));
        out(ptr, p);
        CUDA_SUCCESS
    }
    // An event's handle carries the exported event (8 bytes), a marker, then the exporting
    // process's id; opening one in another process makes an event of the current context,
    // which must be destroyed like any (the exporter's side of the contract, keeping its event
    // alive, is the caller's: `open_ipc_event` is unsafe).
    fn cuIpcGetEventHandle(handle: *mut [u8; 64], event: Handle) {
        check::used(Kind::Event, event as usize, "cuIpcGetEventHandle");
        let mut bytes = [7u8; 64];
        bytes[..8].copy_from_slice(&(event as usize as u64).to_le_bytes());
        bytes[16..24].copy_from_slice(b"custev\0\0");
        bytes[24..28].copy_from_slice(&std::process::id().to_le_bytes());
        out(handle, bytes);
        CUDA_SUCCESS
    }
    fn cuIpcOpenEventHandle(event: *mut Handle, handle: IpcEventHandle) {
        let bytes = ipc_event_bytes(&handle).map(|c| c as u8);
        if &bytes[16..24] != b"custev\0\0" {
            return CUDA_ERROR_INVALID_VALUE;
        }
        if exporter(&bytes) == std::process::id() {
            return CUDA_ERROR_INVALID_CONTEXT;
        }
        new_handle(event, Kind::Event)
    }
    fn cuIpcCloseMemHandle(ptr: CUdeviceptr) releases(Kind::IpcMemory, ptr as usize) {
        check::freeing(Kind::IpcMemory, ptr as usize, None, "cuIpcCloseMemHandle");
        if check::destroyed(Kind::IpcMemory, ptr as usize, "cuIpcCloseMemHandle") {
            data::freed(ptr);
        }
        CUDA_SUCCESS
    }
}

/// The id of the process that exported a handle (bytes 24 to 28).
fn exporter(bytes: &[u8; 64]) -> u32 {
    let mut id = [0u8; 4];
    id.copy_from_slice(&bytes[24..28]);
    u32::from_le_bytes(id)
}

/// The openings of other processes' allocations, by exporting process and exported address:
/// the address each was opened at here.
static OPENED: std::sync::Mutex<Vec<((u32, u64), u64)>> = std::sync::Mutex::new(Vec::new());

/// Another process's allocation `exported` is opened at `at`: opening it again while an earlier
/// opening of it lives is a violation (`open_ipc`'s contract: two exclusive handles to one
/// memory).
fn opened_once(process: u32, exported: u64, at: u64) {
    let mut opened = OPENED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    opened.retain(|&(_, p)| check::ipc_open_at(p));
    if opened.iter().any(|&(key, _)| key == (process, exported)) {
        violation(&format!(
            "cuIpcOpenMemHandle: the allocation {exported:#x} of process {process} is opened already"
        ));
    }
    opened.push(((process, exported), at));
}

/// `CUipcMemHandle`: 64 opaque bytes, passed by value in a `repr(C)` struct as `cuda.h` does.
#[cfg(not(miri))]
#[repr(C)]
pub struct IpcHandle([c_char; 64]);

/// Under Miri, custack's own declaration of `CUipcMemHandle`: Miri accepts a struct passed by
/// value only when caller and callee name the same type, and this is the one custack passes
/// (the programs under Miri link this double as an rlib beside custack).
#[cfg(miri)]
pub use custack::ffi::CUipcMemHandle as IpcHandle;

/// `CUipcEventHandle`: as `CUipcMemHandle`, a struct of its own under Miri.
#[cfg(not(miri))]
#[repr(C)]
pub struct IpcEventHandle([c_char; 64]);

/// Under Miri, custack's own declaration of `CUipcEventHandle` (see [`IpcHandle`]).
#[cfg(miri)]
pub use custack::ffi::CUipcEventHandle as IpcEventHandle;

/// The bytes of an IPC event handle.
#[cfg(not(miri))]
fn ipc_event_bytes(handle: &IpcEventHandle) -> [c_char; 64] {
    handle.0
}

#[cfg(miri)]
fn ipc_event_bytes(handle: &IpcEventHandle) -> [c_char; 64] {
    handle.reserved
}

/// An IPC handle holding `bytes`.
#[cfg(all(test, not(miri)))]
pub(crate) fn ipc_handle(bytes: [c_char; 64]) -> IpcHandle {
    IpcHandle(bytes)
}

#[cfg(all(test, miri))]
pub(crate) fn ipc_handle(bytes: [c_char; 64]) -> IpcHandle {
    IpcHandle { reserved: bytes }
}

/// An IPC event handle holding `bytes`.
#[cfg(all(test, not(miri)))]
pub(crate) fn ipc_event_handle(bytes: [c_char; 64]) -> IpcEventHandle {
    IpcEventHandle(bytes)
}

#[cfg(all(test, miri))]
pub(crate) fn ipc_event_handle(bytes: [c_char; 64]) -> IpcEventHandle {
    IpcEventHandle { reserved: bytes }
}

/// The bytes of an IPC handle.
#[cfg(not(miri))]
fn ipc_bytes(handle: &IpcHandle) -> [c_char; 64] {
    handle.0
}

#[cfg(miri)]
fn ipc_bytes(handle: &IpcHandle) -> [c_char; 64] {
    handle.reserved
}
