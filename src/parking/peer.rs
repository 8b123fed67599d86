//! More than one context at once: peer access between contexts (`cuCtxEnablePeerAccess`) and
//! copies between their memory (`cuMemcpyPeer`), expressed with the stack model.
//!
//! The memory of the context that is *not* current is a [`ParkedBuffer`]: it borrows only its
//! [`Context`], so it can sit beside another context's guard. A synchronous peer copy borrows it
//! for the call; a scope's peer copy borrows it for the scope, so neither the buffer nor its
//! context can be freed, dropped or popped while the copy may run (C19). A [`PeerAccess`]
//! borrows the current guard and the peer context, so neither side can be popped or dropped
//! while the access is enabled.

use crate::asynchronous::scope::StreamScope;
use crate::context::Context;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::driver::Device;
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::memory::{DeviceMemory, DeviceMemoryMut, check_same_len};
use crate::parking::buffer::ParkedBuffer;
use crate::vocabulary::binding::ScopedRead;
use crate::vocabulary::binding::ScopedWrite;
use crate::vocabulary::plain::DeviceCopy;
use core::ffi::c_int;
use core::marker::PhantomData;

impl Device {
    /// `cuDeviceCanAccessPeer`—Whether this device can access `peer`'s memory directly.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html>
    #[doc(alias = "cuDeviceCanAccessPeer")]
    pub fn can_access_peer(self, peer: Device) -> Result<bool> {
        crate::error::poison::check()?;
        let mut v: c_int = 0;
        // SAFETY: valid out-pointer; both devices belong to an initialized driver.
        unsafe { ffi::cuDeviceCanAccessPeer(&raw mut v, self.as_raw(), peer.as_raw()) }.result()?;
        Ok(v != 0)
    }
}

/// Peer access from the current context to another one's memory, enabled while this lives
/// (`cuCtxDisablePeerAccess` on drop, unless it was enabled already before). Borrows the guard
/// and the peer context.
///
/// Not a count: of two values of one pair, the one that enabled the access disables it when it
/// drops, though the other (which found it enabled) still lives; and one leaked with
/// `mem::forget` leaves the access enabled with its borrow of the peer context ended. Neither
/// reaches memory: no safe call reads or writes peer memory through the access itself (C19).
#[derive(Debug)]
#[must_use = "dropping it disables the access at once"]
#[doc(alias = "cuCtxEnablePeerAccess")]
pub struct PeerAccess<'g, 'p> {
    peer: ffi::CUcontext,
    enabled_here: bool,
    _marker: PhantomData<(&'g (), &'p Context, *const ())>,
}

/// Waits for a synchronous peer copy on the NULL stream of the current context before its
/// borrows end: an error returns only once the copy is known to be over, or the process takes
/// the safe state ([`crate::deadline::wait_stream`]).
#[track_caller]
fn sync_current() -> Result<()> {
    crate::deadline::wait_stream(core::ptr::null_mut(), crate::error::Observer::DriverCall)
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuCtxEnablePeerAccess`—Lets this context's kernels access `peer`'s memory directly,
    /// until the returned value drops. "Already enabled" is not an error (and then dropping it
    /// leaves the access enabled, as it found it, while the value that enabled it disables it
    /// when it drops: see [`PeerAccess`]).
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED` where the devices cannot; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PEER__ACCESS.html>
    #[doc(alias = "cuCtxEnablePeerAccess")]
    pub fn enable_peer_access<'p>(&self, peer: &'p Context) -> Result<PeerAccess<'_, 'p>> {
        crate::error::poison::check()?;
        // SAFETY: `peer` is a live context (borrowed); this guard's context is current; flags 0.
        let r = unsafe { ffi::cuCtxEnablePeerAccess(peer.as_raw(), 0) };
        let enabled_here = match r {
            ffi::CUresult::CUDA_SUCCESS => true,
            ffi::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {
                drop(crate::error::driver_log::take());
                false
            }
            r => return Err(r.failure()),
        };
        Ok(PeerAccess {
            peer: peer.as_raw(),
            enabled_here,
            _marker: PhantomData,
        })
    }

    /// `cuMemcpyPeer`—Copies another context's parked buffer into this context's memory, then
    /// waits for the copy.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch); driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack, StackTop};
    /// let device = Driver::init()?.device(0)?;
    /// let (a, b) = (Context::new(device, ContextFlags::empty())?, Context::new(device, ContextFlags::empty())?);
    /// let mut stack = Stack::new()?;
    /// let parked_b = stack.with_pushed(&b, |guard_b| -> custack::Result<_> {
    ///     Ok(guard_b.park(guard_b.alloc_from(&[1u32, 2, 3])?))
    /// })??;
    /// let guard_a = stack.push(&a)?;
    /// let mut mine = guard_a.alloc::<u32>(3)?;
    /// guard_a.copy_from_peer(&mut mine, &parked_b)?;
    /// assert_eq!(mine.to_vec()?, [1, 2, 3]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyPeer")]
    pub fn copy_from_peer<T: DeviceCopy>(
        &self,
        dst: &mut impl DeviceMemoryMut<T>,
        src: &ParkedBuffer<'_, T>,
    ) -> Result<()> {
        crate::error::poison::check()?;
        check_same_len("copy_from_peer", dst.len(), src.len())?;
        // SAFETY: `dst` is live memory of this (current) context, exclusively borrowed; `src` is
        // a live allocation of its own context (borrowed); `byte_len` bytes each.
        unsafe {
            ffi::cuMemcpyPeer(
                dst.device_ptr(),
                self.as_raw(),
                src.device_ptr(),
                src.context_raw(),
                dst.byte_len(),
            )
        }
        .result_releasing(crate::error::Observer::DriverCall)?;
        sync_current()
    }

    /// `cuMemcpyPeer`—Copies this context's memory into another context's parked buffer, then
    /// waits for the copy.
    ///
    /// # Errors
    ///
    /// As [`copy_from_peer`](Self::copy_from_peer).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyPeer")]
    pub fn copy_to_peer<T: DeviceCopy>(
        &self,
        dst: &mut ParkedBuffer<'_, T>,
        src: &impl DeviceMemory<T>,
    ) -> Result<()> {
        crate::error::poison::check()?;
        check_same_len("copy_to_peer", dst.len(), src.len())?;
        // SAFETY: as in `copy_from_peer`, the other way; `dst` exclusively borrowed.
        unsafe {
            ffi::cuMemcpyPeer(
                dst.device_ptr(),
                dst.context_raw(),
                src.device_ptr(),
                self.as_raw(),
                src.byte_len(),
            )
        }
        .result_releasing(crate::error::Observer::DriverCall)?;
        sync_current()
    }
}

impl Drop for PeerAccess<'_, '_> {
    fn drop(&mut self) {
        if !self.enabled_here {
            return;
        }
        // Poisoned or forked (R20, R22): left enabled; a kernel of this context may still read
        // the peer's memory through it.
        if !crate::error::left_behind::release_in_drop(
            crate::error::left_behind::Object::PeerAccess,
            self.peer as u64,
        ) {
            return;
        }
        // SAFETY: the guard that enabled it is current (borrowed); `peer` is alive (borrowed).
        if let Err(e) = unsafe { ffi::cuCtxDisablePeerAccess(self.peer) }.result() {
            // The driver keeps an access it failed to disable.
            crate::error::left_behind::left_behind(
                crate::error::left_behind::Object::PeerAccess,
                self.peer as u64,
            );
            record_drop_error(e);
        }
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// `cuMemcpyPeerAsync`—Enqueues a copy from another context's parked buffer, which stays
    /// borrowed (with its context) until the scope has waited.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyPeerAsync")]
    pub fn copy_from_peer<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'scope, T>,
        src: &'scope ParkedBuffer<'_, T>,
    ) -> Result<()> {
        // SAFETY: `src` and its context are borrowed until the scope has waited.
        unsafe {
            self.copy_from_context(
                "copy_from_peer",
                dst,
                src.device_ptr(),
                src.len(),
                src.context_raw(),
            )
        }
    }

    /// Enqueues a copy of `src_len` `T`s at `src` in context `src_ctx` into `dst`.
    ///
    /// # Safety
    ///
    /// `src..src + src_len` is live memory of the live context `src_ctx`, and stays so, written
    /// by nothing, until the scope has waited.
    pub(crate) unsafe fn copy_from_context<T: DeviceCopy>(
        &self,
        what: &str,
        dst: impl ScopedWrite<'scope, T>,
        src: ffi::CUdeviceptr,
        src_len: usize,
        src_ctx: ffi::CUcontext,
    ) -> Result<()> {
        // Poisoned or forked, in a scope opened before too (R20, R22): no driver call, for
        // every form (`copy_from_peer`, `copy_from_pending`).
        crate::error::poison::check()?;
        let (ptr, len) = dst.raw_parts();
        check_same_len(what, len, src_len)?;
        let current = crate::context::raw::current()?;
        // SAFETY: `dst` is live memory of the current context until the copy has run (bound);
        // `src` as the caller promises.
        unsafe {
            ffi::cuMemcpyPeerAsync(
                ptr,
                current,
                src,
                src_ctx,
                len * size_of::<T>(),
                self.as_raw(),
            )
        }
        .result()
    }

    /// `cuMemcpyPeerAsync`—Enqueues a copy into another context's parked buffer, borrowed
    /// exclusively (with its context) until the scope has waited.
    ///
    /// # Errors
    ///
    /// As [`copy_from_peer`](Self::copy_from_peer).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyPeerAsync")]
    pub fn copy_to_peer<T: DeviceCopy>(
        &self,
        dst: &'scope mut ParkedBuffer<'_, T>,
        src: impl ScopedRead<'scope, T>,
    ) -> Result<()> {
        crate::error::poison::check()?;
        let (ptr, len) = src.raw_parts();
        check_same_len("copy_to_peer", dst.len(), len)?;
        let current = crate::context::raw::current()?;
        // SAFETY: as in `copy_from_peer`, the other way.
        unsafe {
            ffi::cuMemcpyPeerAsync(
                dst.device_ptr(),
                dst.context_raw(),
                ptr,
                current,
                len * size_of::<T>(),
                self.as_raw(),
            )
        }
        .result()
    }
}

#[cfg(test)]
mod tests {
    /// In a poisoned process (this test poisons its own, so it runs alone), a scope's copy from
    /// another context's memory (`copy_from_peer`, and `copy_from_pending` in a scope opened
    /// after a parked submission, both through `copy_from_context`) is refused with the poison
    /// before the driver (R20: an enqueue of a scope opened before the poison too). With no
    /// context current and no `cuInit`, a call that reached the driver would answer another
    /// error (`cuCtxGetCurrent`: `CUDA_ERROR_NOT_INITIALIZED`). `copy_from_pending` had no
    /// check until the eleventh session's review.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_poisoned_process_s_copy_from_another_context_is_refused_before_the_driver() {
        use crate::asynchronous::scope::StreamScope;
        use crate::asynchronous::stream::Stream;
        use crate::ffi;
        use crate::vocabulary::binding::ScopedSliceMut;
        use core::mem::ManuallyDrop;
        crate::alone::rerun_alone!(
            a_poisoned_process_s_copy_from_another_context_is_refused_before_the_driver
        );
        let sticky = ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS;
        // Poisons this process, which runs this test alone.
        assert!(sticky.result().is_err());
        assert!(crate::error::poison::poisoned().is_some(), "not poisoned");
        let stream = ManuallyDrop::new(Stream::for_tests(core::ptr::null_mut()));
        // SAFETY: the scope is only asked for a call refused before the driver.
        let scope = unsafe { StreamScope::of(&stream) };
        // SAFETY: an address no call dereferences: the call is refused before the driver.
        let mut dst = unsafe { ScopedSliceMut::<u32>::from_raw_parts(0x1000, 4) };
        // SAFETY: refused before the driver, so nothing is read at 0x2000 or in the null context.
        let copied = unsafe {
            scope.copy_from_context(
                "copy_from_pending",
                &mut dst,
                0x2000,
                4,
                core::ptr::null_mut(),
            )
        };
        assert_eq!(copied.map_err(|e| e.code()), Err(Some(sticky)));
    }
}
