//! Interprocess sharing of device memory and events (`cuIpc*MemHandle`, `cuIpc*EventHandle`): a
//! buffer exported by one process as an [`IpcMemHandle`] (64 plain bytes to send any way you
//! like) and opened in another, where it is lent by a guard like any device memory and closed on
//! drop; and an event exported as an [`IpcEventHandle`], opened in another process as an
//! [`Event`] of its context, which its streams wait for on the GPU (`StreamScope::wait`,
//! `Stream::wait`): one process's work ordered after another's without a host round trip.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::Result;
use crate::error::left_behind::Object;
use crate::ffi;
use crate::memory::{DeviceBuffer, DeviceMemory, DeviceMemoryMut, device_memory, sealed};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// An interprocess handle to a device allocation (`CUipcMemHandle`): plain bytes, `Send + Sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CUipcMemHandle")]
pub struct IpcMemHandle {
    raw: ffi::CUipcMemHandle,
}

impl IpcMemHandle {
    /// The handle's 64 bytes, to send to another process.
    pub fn to_bytes(&self) -> [u8; 64] {
        self.raw.reserved.map(|b| b as u8)
    }
    /// A handle from its bytes.
    pub fn from_bytes(bytes: [u8; 64]) -> Self {
        Self {
            raw: ffi::CUipcMemHandle {
                reserved: bytes.map(|b| b as core::ffi::c_char),
            },
        }
    }
}

impl<T: DeviceCopy> DeviceBuffer<'_, T> {
    /// `cuIpcGetMemHandle`—A handle another process can open this buffer's memory with.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuIpcGetMemHandle")]
    pub fn ipc_handle(&self) -> Result<IpcMemHandle> {
        crate::error::poison::check()?;
        let mut raw = ffi::CUipcMemHandle { reserved: [0; 64] };
        // SAFETY: valid out-pointer; a live allocation of the current context.
        unsafe { ffi::cuIpcGetMemHandle(&raw mut raw, self.device_ptr()) }.result()?;
        Ok(IpcMemHandle { raw })
    }
}

/// Device memory of another process, opened from an [`IpcMemHandle`], lent by a guard; closed
/// on drop (`cuIpcCloseMemHandle`). Device memory like any other.
#[derive(Debug)]
#[doc(alias = "cuIpcOpenMemHandle")]
pub struct IpcBuffer<'g, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: PhantomData<(&'g (), *const T)>,
}

device_memory!(IpcBuffer, mut_);

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuIpcOpenMemHandle`—Opens another process's device memory as `len` elements of `T`.
    ///
    /// # Safety
    ///
    /// What no type can check across processes: the exporting process must keep the
    /// allocation alive (and not reuse it for anything else) until this buffer is dropped, it
    /// must hold at least `len` elements of `T`, and the processes must agree on who writes
    /// it when. Within this process, the returned buffer is device memory that may be written
    /// (an exclusive handle, C14): while it lives, the same handle must not be opened again,
    /// in any context of this process, nor the memory reached through any other handle (the
    /// types cannot see that two openings name the same bytes).
    ///
    /// # Errors
    ///
    /// The driver's error (e.g. the handle comes from this process, or from another device).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuIpcOpenMemHandle")]
    pub unsafe fn open_ipc<T: DeviceCopy>(
        &self,
        handle: &IpcMemHandle,
        len: usize,
    ) -> Result<IpcBuffer<'_, T>> {
        crate::error::poison::check()?;
        let mut ptr = 0;
        // SAFETY: valid out-pointer; this guard's context is current; the caller vouches for
        // the other process's allocation.
        unsafe {
            ffi::cuIpcOpenMemHandle_v2(
                &raw mut ptr,
                handle.raw,
                ffi::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS,
            )
        }
        .result()?;
        Ok(IpcBuffer {
            ptr,
            len,
            _marker: PhantomData,
        })
    }
}

impl<T: DeviceCopy> Drop for IpcBuffer<'_, T> {
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(Object::IpcMemory, self.ptr, || {
            // SAFETY: opened by `open_ipc` in the current context (its guard is on top), closed
            // once; no asynchronous work uses it (scopes bind it by borrow).
            unsafe { ffi::cuIpcCloseMemHandle(self.ptr) }.result()
        });
    }
}
