//! Reserved ranges of device virtual addresses (`cuMemAddressReserve`, `cuMemAddressFree`),
//! lent by a guard or, for memory of several devices, borrowing only a context; and the flag a
//! reservation keeps when a mapping in it could not be unmapped ([`Stuck`]), with the unmapping
//! that sets it.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::left_behind::{Object, left_behind, left_behind_range};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::memory::vmm::markers::{HomeMarker, Lent, MultiDevice, VmmHome};
use core::marker::PhantomData;
use core::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// A reserved range of device virtual addresses; freed on drop (`cuMemAddressFree`).
///
/// `H` says where it lives ([`VmmHome`]). With the default, [`Lent`], it is lent by a guard
/// ([`PushedGuard::reserve`]) and [`map`](Self::map) lets that guard's device use what it
/// maps. A [`MultiDeviceReservation`] (of the [`MultiDevice`] home) is for memory of several devices: it
/// borrows only its context and maps for a chosen list of devices.
#[derive(Debug)]
#[doc(alias = "cuMemAddressReserve")]
pub struct Reservation<'a, H: VmmHome = Lent> {
    pub(super) home: H::Home,
    pub(super) base: ffi::CUdeviceptr,
    pub(super) size: usize,
    pub(super) stuck: Stuck,
    _marker: HomeMarker<'a, H>,
}

/// A reserved range of device virtual addresses for memory of several devices
/// ([`PushedGuard::reserve_multi_device`]): it borrows only its context, which it pushes for its
/// own driver calls, so it outlives guards and nested pushes. Freed on drop
/// (`cuMemAddressFree`). A [`Reservation`] of the [`MultiDevice`] home.
#[doc(alias = "cuMemAddressReserve")]
pub type MultiDeviceReservation<'ctx> = Reservation<'ctx, MultiDevice>;

static_assertions::assert_not_impl_any!(Reservation<'static>: Send, Sync);
static_assertions::assert_impl_all!(MultiDeviceReservation<'static>: Send, Sync);
// A guard-lent reservation keeps no context; a multi-device one, the one it pushes.
static_assertions::assert_eq_size!(Reservation<'static>, (ffi::CUdeviceptr, usize, Stuck));
static_assertions::assert_eq_size!(
    MultiDeviceReservation<'static>,
    (ffi::CUcontext, ffi::CUdeviceptr, usize, Stuck)
);

// SAFETY: (the multi-device home only; a guard-lent reservation stays `!Send` and `!Sync`, its
// home being a thread marker) VMM address ranges belong to the process, not to a thread or a
// context (CUDA Virtual Memory Management); the value only holds the range, the context it
// pushes for its own calls (a context may be current on several threads at once) and its
// `Stuck` record, an atomic and a mutex. It offers no access to the memory except through a guard of the
// thread that lends a mapping in it (`lend`, `lend_mut`, `lend_read_only`), which checks the
// device and ties the view to itself. Dropping it on any thread pushes its context there.
unsafe impl Send for MultiDeviceReservation<'_> {}
// SAFETY: as above: `&self` methods read plain fields, or push the context on the calling
// thread for their own driver calls.
unsafe impl Sync for MultiDeviceReservation<'_> {}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemAddressReserve`—Reserves `size` bytes of device virtual addresses (a multiple of
    /// [`allocation_granularity`](Self::allocation_granularity)).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemAddressReserve")]
    pub fn reserve(&self, size: usize) -> Result<Reservation<'_>> {
        let base = self.reserve_addresses(size)?;
        Ok(Reservation {
            home: PhantomData,
            base,
            size,
            stuck: Stuck::default(),
            _marker: PhantomData,
        })
    }

    /// `cuMemAddressReserve` of `size` bytes in this guard's context: the base address.
    #[allow(
        clippy::unused_self,
        reason = "the guard is the proof that its context is current"
    )]
    fn reserve_addresses(&self, size: usize) -> Result<ffi::CUdeviceptr> {
        crate::error::poison::check()?;
        let mut base = 0;
        // SAFETY: valid out-pointer; the driver checks the size; this guard's context is current.
        unsafe { ffi::cuMemAddressReserve(&raw mut base, size, 0, 0, 0) }.result()?;
        Ok(base)
    }
}

impl<'ctx> PushedGuard<'ctx, '_> {
    /// `cuMemAddressReserve`—Reserves `size` bytes of device virtual addresses (a multiple of
    /// every mapped device's granularity) for memory of several devices. The reservation
    /// borrows only this guard's context.
    ///
    /// # Examples
    ///
    /// A vector striped over every device (NVIDIA's `vectorAddMMAP`): piece `i` lives on
    /// device `i % n`, all devices read and write all of it at one address.
    ///
    /// ```no_run
    /// use custack::{Access, Context, ContextFlags, Driver, Stack, StackTop};
    /// let driver = Driver::init()?;
    /// let devices = driver.devices()?;
    /// let ctx = Context::new(devices[0], ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let (space, pieces, g) = stack.with_pushed(&ctx, |guard| -> custack::Result<_> {
    ///     let g = devices.iter().map(|&d| guard.granularity_on(d)).try_fold(1, |m, g| {
    ///         g.map(|g| m.max(g))
    ///     })?;
    ///     let pieces = (0..2 * devices.len())
    ///         .map(|i| guard.create_physical_on(devices[i % devices.len()], g))
    ///         .collect::<custack::Result<Vec<_>>>()?;
    ///     Ok((guard.reserve_multi_device(pieces.len() * g)?, pieces, g))
    /// })??;
    /// let access: Vec<_> = devices.iter().map(|&d| (d, Access::ReadWrite)).collect();
    /// let striped = space.map_owned::<f32>(0, pieces, &access)?; // released: the mapping owns them
    /// assert_eq!(striped.byte_len(), 2 * devices.len() * g);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemAddressReserve")]
    #[doc(alias = "reserve_for_peers")]
    pub fn reserve_multi_device(&self, size: usize) -> Result<MultiDeviceReservation<'ctx>> {
        let base = self.reserve_addresses(size)?;
        Ok(MultiDeviceReservation {
            home: self.as_raw(),
            base,
            size,
            stuck: Stuck::default(),
            _marker: PhantomData,
        })
    }
}

impl<H: VmmHome> Reservation<'_, H> {
    /// The first address of the range.
    pub fn base(&self) -> ffi::CUdeviceptr {
        self.base
    }
    /// Its size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }
}

impl<H: VmmHome> Drop for Reservation<'_, H> {
    fn drop(&mut self) {
        if !self.stuck.all_unmapped() {
            // Still mapped (a failed unmap, recorded and named; or a mapping leaked): freeing
            // would pull the range from under the mapping, and a later reservation could be
            // given it. Both are left for the context to release.
            if !self.stuck.is_set() {
                left_behind_range(Object::Mapping, self.base, self.size as u64);
            }
            left_behind(Object::Reservation, self.base);
            return;
        }
        if !crate::error::left_behind::release_in_drop(Object::Reservation, self.base) {
            return;
        }
        let (base, size) = (self.base, self.size);
        let mut freed = false;
        let free = || {
            // SAFETY: reserved by this value, freed once; no mapping is alive (mappings borrow
            // it), none is left over (not stuck) and none was leaked (every mapping made was
            // unmapped: `all_unmapped`).
            let r = unsafe { ffi::cuMemAddressFree(base, size) }.result();
            freed = r.is_ok();
            r
        };
        // SAFETY: `in_home` requires a live home and an `f` that leaves the stack as it was:
        // - the home is live: a guard-lent reservation borrows its guard (whose context is
        //   current), a multi-device one its context;
        // - `free` pushes and pops nothing.
        let r = unsafe { H::in_home(self.home, free) };
        if !freed {
            left_behind(Object::Reservation, base);
        }
        if let Err(e) = r {
            record_drop_error(e);
        }
    }
}

/// Set when a mapping in a reservation could not be unmapped (the driver failed the call, or
/// its context could not be pushed): the range is still mapped, so the reservation maps
/// nothing more and is not freed on drop (the failed unmap's error was recorded; the driver
/// releases both with the context or the process). And which ranges of it are mapped now:
/// each `map` claims its range here before the driver is asked, and a range some mapping holds
/// already is refused without a driver call (a guard-lent reservation's mappings all start at
/// its base, so one at a time; a multi-device one's may lie side by side). A mapping leaked
/// (`mem::forget`) ends its borrow of the reservation without unmapping, so its range stays
/// claimed, and the reservation's drop cannot take the borrow checker's word that none is
/// left.
#[derive(Debug, Default)]
pub(super) struct Stuck {
    stuck: AtomicBool,
    /// The mapped ranges, `(start, end)`, end exclusive. Locked only for a claim's check and
    /// push, and for a successful unmap's removal: never across a driver call, and never in a
    /// forked child (whose `map` is refused and whose unmaps make no call before this).
    mapped: Mutex<Vec<(ffi::CUdeviceptr, ffi::CUdeviceptr)>>,
}

impl Stuck {
    pub(super) fn set(&self) {
        self.stuck.store(true, Ordering::Relaxed);
    }
    pub(super) fn is_set(&self) -> bool {
        self.stuck.load(Ordering::Relaxed)
    }
    fn ranges(&self) -> std::sync::MutexGuard<'_, Vec<(ffi::CUdeviceptr, ffi::CUdeviceptr)>> {
        // Nothing panics while the lock is held, so a poisoned lock cannot happen; its list
        // would still be whole.
        self.mapped.lock().unwrap_or_else(PoisonError::into_inner)
    }
    /// Claims `start..start + bytes` for a mapping about to be made: refused
    /// ([`ErrorKind::AlreadyMapped`], no driver call) if a mapping of this reservation, alive or
    /// leaked, holds any of it. Held until [`unmapped`](Self::unmapped) hands it back.
    pub(super) fn claim(&self, start: ffi::CUdeviceptr, bytes: usize) -> Result<()> {
        let end = start + bytes as u64;
        let mut ranges = self.ranges();
        if let Some(&(s, e)) = ranges.iter().find(|&&(s, e)| s < end && start < e) {
            return Err(Error::custack(
                ErrorKind::AlreadyMapped,
                format!(
                    "{start:#x}..{end:#x} overlaps {s:#x}..{e:#x} of the reservation, mapped by a mapping that is alive or was leaked: drop that mapping first"
                ),
            ));
        }
        ranges.push((start, end));
        Ok(())
    }
    /// `start..start + bytes`, claimed, is unmapped now (or was never mapped): handed back.
    pub(super) fn unmapped(&self, start: ffi::CUdeviceptr, bytes: usize) {
        let range = (start, start + bytes as u64);
        let mut ranges = self.ranges();
        if let Some(i) = ranges.iter().position(|&r| r == range) {
            ranges.swap_remove(i);
        }
    }
    /// Whether the reservation may be freed: nothing stuck, and every mapping made unmapped.
    /// Takes `&mut self` (the reservation's drop): no lock.
    pub(super) fn all_unmapped(&mut self) -> bool {
        !self.is_set()
            && self
                .mapped
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner)
                .is_empty()
    }
    /// Unmaps `ptr..ptr + bytes` (recording a failure as a drop error) and marks the
    /// reservation stuck if that failed; whether it unmapped.
    pub(super) fn unmap(&self, ptr: ffi::CUdeviceptr, bytes: usize) -> bool {
        let unmapped = unmap(ptr, bytes);
        if !unmapped {
            self.set();
            // Still mapped: left, with its reservation, for the context to release.
            left_behind_range(Object::Mapping, ptr, bytes as u64);
        }
        unmapped
    }
    /// Refuses a new mapping in a stuck reservation.
    pub(super) fn check(&self) -> Result<()> {
        if self.is_set() {
            return Err(Error::custack(
                ErrorKind::NotSupported,
                "a mapping of this reservation could not be unmapped: its range is still mapped"
                    .to_owned(),
            ));
        }
        Ok(())
    }
}

/// Unmaps `ptr..ptr + bytes`; false (the error recorded as a drop error) if the driver failed.
#[must_use]
fn unmap(ptr: ffi::CUdeviceptr, bytes: usize) -> bool {
    if bytes == 0 {
        return true;
    }
    // Poisoned or forked (R20, R22): left mapped (the caller names the range left behind).
    if let Err(e) = crate::error::poison::may_release() {
        record_drop_error(e);
        return false;
    }
    // SAFETY: `ptr..ptr + bytes` was mapped by a `map` of its reservation (either home, either
    // mode) and is unmapped once: by its mapping's drop, or by the clean-up of a `map` that
    // failed, before any mapping owned it; no asynchronous work uses it (scopes bind mappings,
    // and the views guards lend of multi-device mappings, by borrow).
    match unsafe { ffi::cuMemUnmap(ptr, bytes) }.result() {
        Ok(()) => true,
        Err(e) => {
            record_drop_error(e);
            false
        }
    }
}

/// Unmaps `ptr..ptr + bytes` in `home` (pushing a multi-device mapping's context); marks the
/// reservation `stuck` if the push or the unmap failed (both recorded as drop errors).
pub(super) fn unmap_in<H: VmmHome>(
    home: H::Home,
    ptr: ffi::CUdeviceptr,
    bytes: usize,
    stuck: &Stuck,
) {
    let mut ran = false;
    // SAFETY: `in_home` requires a live home and an `f` that leaves the stack as it was:
    // - the home is live: the mapping borrows its reservation, which borrows its guard (whose
    //   context is current) or its context;
    // - unmapping pushes and pops nothing.
    let pushed = unsafe {
        H::in_home(home, || {
            ran = true;
            // (A failed unmap names the mapping left behind itself, and sets `stuck`.)
            if stuck.unmap(ptr, bytes) {
                stuck.unmapped(ptr, bytes);
            }
            Ok(())
        })
    };
    if !ran {
        // Still mapped: left, with its reservation, for the context to release.
        left_behind_range(Object::Mapping, ptr, bytes as u64);
    }
    if let Err(e) = pushed {
        stuck.set();
        record_drop_error(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    /// The record of mapped ranges on its own (no driver): an overlap is refused, ranges side
    /// by side are not, a range handed back can be claimed again, and two threads claiming
    /// overlapping ranges of one (multi-device, `Sync`) reservation at once get one each of
    /// "claimed" and `AlreadyMapped`, never both claims.
    #[test]
    fn a_claimed_range_refuses_overlaps_from_any_thread_until_handed_back() {
        let mut stuck = Stuck::default();
        stuck.claim(0x1000, 0x1000).unwrap();
        let e = stuck.claim(0x1800, 0x1000).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::AlreadyMapped);
        stuck.claim(0x2000, 0x1000).unwrap(); // side by side
        stuck.claim(0x3000, 0).unwrap(); // an empty range overlaps nothing
        assert!(!stuck.all_unmapped());
        stuck.unmapped(0x1000, 0x1000);
        stuck.claim(0x1000, 0x800).unwrap();
        for (start, bytes) in [(0x1000, 0x800), (0x2000, 0x1000), (0x3000, 0)] {
            stuck.unmapped(start, bytes);
        }
        assert!(stuck.all_unmapped());
        // Fewer rounds under Miri, whose threads are interpreted.
        let rounds = if cfg!(miri) { 2 } else { 50 };
        for _ in 0..rounds {
            let stuck = Stuck::default();
            let barrier = std::sync::Barrier::new(2);
            let won: Vec<bool> = std::thread::scope(|t| {
                let claims: Vec<_> = [0x4000u64, 0x4800]
                    .into_iter()
                    .map(|start| {
                        let (stuck, barrier) = (&stuck, &barrier);
                        t.spawn(move || {
                            barrier.wait();
                            stuck.claim(start, 0x1000).is_ok()
                        })
                    })
                    .collect();
                claims.into_iter().map(|c| c.join().unwrap()).collect()
            });
            assert_eq!(won.iter().filter(|&&w| w).count(), 1, "{won:?}");
        }
    }
}
