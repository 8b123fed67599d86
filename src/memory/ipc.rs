//! Interprocess sharing of device memory and events (`cuIpc*MemHandle`, `cuIpc*EventHandle`): a
//! buffer exported by one process as an [`IpcMemHandle`] (64 plain bytes to send any way you
//! like) and opened in another, where it is lent by a guard like any device memory and closed on
//! drop; and an event exported as an [`IpcEventHandle`], opened in another process as an
//! [`Event`] of its context, which its streams wait for on the GPU (`StreamScope::wait`,
//! `Stream::wait`): one process's work ordered after another's without a host round trip.

use crate::asynchronous::event::Event;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::memory::plain::DeviceCopy;
use crate::memory::{DeviceBuffer, DeviceMemory, DeviceMemoryMut, device_memory, sealed};
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
        // SAFETY: opened by `open_ipc` in the current context (its guard is on top), closed
        // once; no asynchronous work uses it (scopes bind it by borrow).
        if let Err(e) = unsafe { ffi::cuIpcCloseMemHandle(self.ptr) }.result() {
            record_drop_error(e);
        }
    }
}

/// An interprocess handle to an event (`CUipcEventHandle`): plain bytes, `Send + Sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CUipcEventHandle")]
pub struct IpcEventHandle {
    raw: ffi::CUipcEventHandle,
}

impl IpcEventHandle {
    /// The handle's 64 bytes, to send to another process.
    pub fn to_bytes(&self) -> [u8; 64] {
        self.raw.reserved.map(|b| b as u8)
    }
    /// A handle from its bytes.
    pub fn from_bytes(bytes: [u8; 64]) -> Self {
        Self {
            raw: ffi::CUipcEventHandle {
                reserved: bytes.map(|b| b as core::ffi::c_char),
            },
        }
    }
}

impl Event<'_> {
    /// `cuIpcGetEventHandle`—A handle another process can open this event with
    /// ([`PushedGuard::open_ipc_event`]), to make its streams wait on the GPU for the work this
    /// event is recorded after.
    ///
    /// # Errors
    ///
    /// The driver's error: `CUDA_ERROR_INVALID_VALUE` unless the event was created with
    /// [`EventFlags::INTERPROCESS`](crate::EventFlags::INTERPROCESS) and
    /// [`DISABLE_TIMING`](crate::EventFlags::DISABLE_TIMING); `CUDA_ERROR_NOT_SUPPORTED` where the
    /// platform has no IPC (Windows, some embedded platforms).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, EventFlags, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let done = guard.event(EventFlags::INTERPROCESS | EventFlags::DISABLE_TIMING)?;
    /// let bytes: [u8; 64] = done.ipc_handle()?.to_bytes(); // send these to the other process
    /// # let _ = bytes;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuIpcGetEventHandle")]
    pub fn ipc_handle(&self) -> Result<IpcEventHandle> {
        let mut raw = ffi::CUipcEventHandle { reserved: [0; 64] };
        // SAFETY: valid out-pointer; a live event of the current context (it is lent by the
        // current guard).
        unsafe { ffi::cuIpcGetEventHandle(&raw mut raw, self.as_raw()) }.result()?;
        Ok(IpcEventHandle { raw })
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuIpcOpenEventHandle`—Opens another process's event as an event of this guard's
    /// context, lent like every event (it behaves as one created with
    /// [`EventFlags::DISABLE_TIMING`](crate::EventFlags::DISABLE_TIMING)): a stream of this
    /// process that waits for it ([`StreamScope::wait`](crate::StreamScope::wait),
    /// [`Stream::wait`](crate::Stream::wait)) waits on the GPU for the work the other process
    /// recorded it after. Destroyed on drop (`cuEventDestroy`).
    ///
    /// # Safety
    ///
    /// What no type can check across processes: the exporting process must keep its event
    /// alive until the returned event is dropped (the driver documents any use of an opened
    /// event after the exported one is destroyed as undefined behaviour), and what the two
    /// processes order with it (who writes shared memory when) is theirs to agree on.
    ///
    /// # Errors
    ///
    /// The driver's error (e.g. the handle comes from this process, or from another device
    /// than this context's, or the platform has no IPC).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuIpcOpenEventHandle")]
    pub unsafe fn open_ipc_event(&self, handle: &IpcEventHandle) -> Result<Event<'_>> {
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; this guard's context is current; the caller vouches for
        // the other process's event.
        unsafe { ffi::cuIpcOpenEventHandle(&raw mut raw, handle.raw) }.result()?;
        // SAFETY: a live event of this guard's context, owned by nothing else: the returned
        // value destroys it, as `cuIpcOpenEventHandle` asks.
        Ok(unsafe { self.event_from_raw(raw) })
    }
}
