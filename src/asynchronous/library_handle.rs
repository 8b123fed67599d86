//! One core for every CUDA library handle custack lends (cuBLAS's and cuBLASLt's handles,
//! cuFFT's plans, cuRAND's generators): [`LibraryHandle`] owns the raw handle, the device memory
//! all its calls share (a workspace or work area) and the order of those calls
//! ([`CallOrder`]), and releases them in the one sequence that is sound: wait until no call can
//! still run, then destroy the handle and free the memory, or, when that wait fails, leak both
//! rather than free what the GPU may still use.
//!
//! The rest of a library's core is shared by all six (cuBLAS, cuBLASLt, cuFFT, cuRAND, NCCL,
//! NVRTC): the error of a build that did not find it, with the install hint build.rs prints too
//! (`error/not_linked.rs`, `build/install.rs`); its statuses, listed once and kept raw
//! (`error/kind.rs`'s `library` table, [`Error::library_status`](crate::Error::library_status));
//! its version ([`LibraryVersion`](crate::LibraryVersion)); every bounded wait
//! (`deadline::poll_until`). NCCL's communicator shares those but not this release sequence, on
//! purpose: NCCL orders a communicator's calls itself, and its release is the other sound one,
//! `ncclCommFinalize` bounded by the communicator's timeout and then `ncclCommDestroy`, or
//! `ncclCommAbort`, which ends its pending work and frees its memory with nothing leaked
//! (`nccl/comm.rs`). A wait-then-leak here would leak what NCCL can free.

use crate::asynchronous::call_order::CallOrder;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Result, record_drop_error};
use crate::memory::{DeviceBuffer, DeviceMemory};

/// A library's raw handle and how it is destroyed.
pub(crate) trait RawHandle: Copy + core::fmt::Debug {
    /// Destroys the handle (`cublasDestroy_v2`, `cufftDestroy`, …), returning the library's
    /// status as an error.
    ///
    /// # Safety
    ///
    /// `self` is a live handle of the current context, destroyed once, and no call of it can
    /// still run on the GPU.
    unsafe fn destroy(self) -> Result<()>;
}

/// A library handle of a guard's context (`'g`), with its shared device memory and the order of
/// its calls; destroyed, its memory freed, when released or dropped (errors recorded, see
/// [`take_drop_errors`](crate::take_drop_errors)).
pub(crate) struct LibraryHandle<'g, H: RawHandle> {
    /// `None` once released (destroyed or leaked).
    raw: Option<H>,
    /// Used by every call of the handle; freed only once no call can still run, or leaked when
    /// that cannot be confirmed. `None` once released, or when the handle has none.
    memory: Option<DeviceBuffer<'g, u8>>,
    /// The handle's calls never overlap on the GPU (they share `memory` and the library's own
    /// state): on one stream they are ordered by it, on another the stream waits for
    /// everything before.
    order: CallOrder<'g>,
}

impl<H: RawHandle> core::fmt::Debug for LibraryHandle<'_, H> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LibraryHandle")
            .field("raw", &self.raw)
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}

impl<'g, H: RawHandle> LibraryHandle<'g, H> {
    /// Makes a handle of `guard`'s context: `memory_bytes` of device memory for its calls (none
    /// for 0), the order of its calls, then the handle itself (`create`, which makes it in the
    /// current context, the guard's). What was made before a failing step is released.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_OUT_OF_MEMORY` for the memory; driver errors of the order's event;
    /// `create`'s error.
    pub(crate) fn create<K: ContextKind>(
        guard: &'g PushedGuard<'_, '_, K>,
        memory_bytes: usize,
        create: impl FnOnce() -> Result<H>,
    ) -> Result<Self> {
        let memory = if memory_bytes == 0 {
            None
        } else {
            Some(guard.alloc::<u8>(memory_bytes)?)
        };
        let order = CallOrder::new(guard)?;
        let mut handle = Self {
            raw: Some(create()?),
            memory: None,
            order,
        };
        if let Some(memory) = memory {
            handle.own_memory(memory);
        }
        Ok(handle)
    }

    /// Gives the handle the device memory its calls share, released with it.
    pub(crate) fn own_memory(&mut self, memory: DeviceBuffer<'g, u8>) {
        self.memory = Some(memory);
    }

    /// The raw handle, `None` once released.
    pub(crate) fn raw(&self) -> Option<H> {
        self.raw
    }

    /// The shared device memory, if any.
    pub(crate) fn memory(&self) -> Option<&DeviceBuffer<'g, u8>> {
        self.memory.as_ref()
    }

    /// The bytes of the shared device memory (0 when there is none).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.memory().map_or(0, DeviceMemory::len)
    }

    /// The order of the handle's calls.
    pub(crate) fn order(&self) -> &CallOrder<'g> {
        &self.order
    }

    /// Releases the handle once (later calls return `Ok`): waits until none of its calls can
    /// still run (the context is synchronized: a call's stream may be gone, a parked
    /// submission's), then destroys it and frees its memory, returning the first error. If the
    /// wait fails (after a sticky error, work of another context may still run, R20; a forked
    /// child owns nothing) the handle and its memory are leaked, never freed while the GPU may
    /// still use them, and the wait's error is returned.
    pub(crate) fn release(&mut self) -> Result<()> {
        let Some(raw) = self.raw.take() else {
            return Ok(());
        };
        let waited = self.order.wait_idle();
        let memory = self.memory.take();
        if waited.is_err() {
            core::mem::forget(memory);
            // The order's event goes with the handle, so that the handle's drop records
            // nothing after this error is returned: after a sticky error its destroy is
            // refused with the same poison this returns (the event left behind, named), which
            // is not reported twice; an error of another kind goes to the drop log.
            if let (Err(w), Err(e)) = (&waited, self.order.close()) {
                if e.kind() != w.kind() {
                    crate::error::record_drop_error(e);
                }
            }
            return waited;
        }
        // SAFETY: `raw` was live and is destroyed once (taken out above); the handle borrows
        // its guard (`'g`), so the guard's context is current here; no call of it can still run
        // (the context was synchronized above).
        let destroyed = unsafe { raw.destroy() };
        let freed = memory.map_or(Ok(()), DeviceBuffer::free);
        let closed = self.order.close();
        destroyed.and(freed).and(closed)
    }
}

impl<H: RawHandle> Drop for LibraryHandle<'_, H> {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            record_drop_error(e);
        }
    }
}
