//! Models the interprocess calls of `cuda.h` "Memory Management" (`group__CUDA__MEM`): memory and
//! event handles exported and opened in this process, and their closing.

use super::common::{new_handle, out};
use super::types::{CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, CUdeviceptr, Handle};
use crate::check::{self, Kind};
use crate::handles::device_address;
use core::ffi::{c_char, c_uint};

entry_points! {
    // A handle carries the exported address and size (8 bytes each, then a marker), so that an
    // opening in this process knows what it shows.
    fn cuIpcGetMemHandle(handle: *mut [u8; 64], ptr: CUdeviceptr) {
        let size = check::ipc_exported(ptr);
        let mut bytes = [7u8; 64];
        bytes[..8].copy_from_slice(&ptr.to_le_bytes());
        bytes[8..16].copy_from_slice(&size.to_le_bytes());
        bytes[16..24].copy_from_slice(b"custack\0");
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
        let (exported, size) = if ours { (word(0), word(1)) } else { (0, 0) };
        let p = device_address(if size == 0 { 1 << 21 } else { size as usize });
        check::ipc_opened(p, size, exported);
        out(ptr, p);
        CUDA_SUCCESS
    }
    // An event's handle carries the exported event (8 bytes, then a marker); opening one makes
    // an event of the current context, which must be destroyed like any (the exporter's side
    // of the contract, keeping its event alive, is the caller's: `open_ipc_event` is unsafe).
    fn cuIpcGetEventHandle(handle: *mut [u8; 64], event: Handle) {
        check::used(Kind::Event, event as usize, "cuIpcGetEventHandle");
        let mut bytes = [7u8; 64];
        bytes[..8].copy_from_slice(&(event as usize as u64).to_le_bytes());
        bytes[16..24].copy_from_slice(b"custev\0\0");
        out(handle, bytes);
        CUDA_SUCCESS
    }
    fn cuIpcOpenEventHandle(event: *mut Handle, handle: IpcEventHandle) {
        let bytes = ipc_event_bytes(&handle).map(|c| c as u8);
        if &bytes[16..24] != b"custev\0\0" {
            return CUDA_ERROR_INVALID_VALUE;
        }
        new_handle(event, Kind::Event)
    }
    fn cuIpcCloseMemHandle(ptr: CUdeviceptr) releases(Kind::IpcMemory, ptr as usize) {
        check::freeing(Kind::IpcMemory, ptr as usize, None, "cuIpcCloseMemHandle");
        let _ = check::destroyed(Kind::IpcMemory, ptr as usize, "cuIpcCloseMemHandle");
        CUDA_SUCCESS
    }
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

/// The bytes of an IPC handle.
#[cfg(not(miri))]
fn ipc_bytes(handle: &IpcHandle) -> [c_char; 64] {
    handle.0
}

#[cfg(miri)]
fn ipc_bytes(handle: &IpcHandle) -> [c_char; 64] {
    handle.reserved
}
