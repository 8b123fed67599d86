//! Mapping physical memory into a reservation (`cuMemMap`, `cuMemSetAccess`): writable,
//! read-only or owning its allocations (`cuMemRelease` right after mapping), for the guard's
//! device or, across devices, for a checked access list; on an error nothing stays mapped.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::driver::Device;
use crate::error::left_behind::{Object, left_behind, left_behind_range};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::vmm::mapping::{
    Mapping, MultiDeviceMapping, ReadOnlyMapping, ReadOnlyMultiDeviceMapping,
};
use crate::memory::vmm::markers::{Access, Lent, VmmHome, in_context};
use crate::memory::vmm::physical::{MultiDevicePhysicalMemory, PhysicalMemory};
use crate::memory::vmm::reservation::{MultiDeviceReservation, Reservation, Stuck, unmap_in};
use crate::vocabulary::plain::DeviceCopy;
use core::mem::ManuallyDrop;

impl Reservation<'_, Lent> {
    /// `cuMemMap`, `cuMemSetAccess`—Maps `physical`, one after the other, from the start of the
    /// reservation, and lets `guard`'s device read and write them: one contiguous range of
    /// device memory holding as many `T` as fit.
    ///
    /// Each allocation is borrowed exclusively for as long as the mapping lives (C14): no other
    /// mapping, writable or [shared](Self::map_read_only), can show its bytes meanwhile, and the
    /// same allocation cannot be passed twice (`[&mut p, &mut p]` does not compile), and the `&mut` borrows are taken by value (an array or a `Vec`), so one set of them cannot make two mappings. To grow,
    /// drop the smaller mapping first, as the example does.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] (no driver call) if they do not fit in the reservation;
    /// [`ErrorKind::AlreadyMapped`] (no driver call) while another mapping of the reservation,
    /// alive or leaked, holds its start (drop it first); driver errors (sizes not multiples of
    /// the granularity). On an error nothing stays mapped.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let g = guard.allocation_granularity()?;
    /// let space = guard.reserve(64 * g)?;            // room to grow
    /// let mut first = guard.create_physical(g)?;
    /// {
    ///     let mut small = space.map::<u32, _>(&guard, [&mut first])?;
    ///     small.fill_u32(7)?;
    /// }                                             // unmapped; `first` keeps its contents
    /// let mut second = guard.create_physical(g)?;
    /// let grown = space.map::<u32, _>(&guard, [&mut first, &mut second])?; // no copy
    /// assert_eq!(grown.slice(..4)?.to_vec()?, [7; 4]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemMap")]
    #[doc(alias = "cuMemSetAccess")]
    pub fn map<'r, 'p: 'r, T: DeviceCopy, K: ContextKind>(
        &'r self,
        guard: &PushedGuard<'_, '_, K>,
        physical: impl IntoIterator<Item = &'r mut PhysicalMemory<'p>>,
    ) -> Result<Mapping<'r, T>> {
        // The exclusive borrows are taken by value (an array or a `Vec` of `&mut`), not lent
        // through a slice: a slice of `&'r mut` could be passed twice, giving two writable
        // mappings of one allocation under one borrow (C14).
        let pieces: Vec<_> = physical.into_iter().map(|p| (p.handle, p.size)).collect();
        let bytes = self.map_raw(guard, pieces.iter().copied(), Access::ReadWrite)?;
        Ok(Mapping::new(self, self.base, bytes, ()))
    }

    /// `cuMemMap`, `cuMemSetAccess`—Maps `physical` as [`map`](Self::map) does, as read-only
    /// device memory: the allocations are borrowed shared, so the same bytes may be shown by
    /// other shared mappings, or twice in this one, but by no writable [`Mapping`] while this
    /// one lives.
    ///
    /// # Errors
    ///
    /// As [`map`](Self::map).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let g = guard.allocation_granularity()?;
    /// let mut table = guard.create_physical(g)?;
    /// let (a, b) = (guard.reserve(g)?, guard.reserve(2 * g)?);
    /// {
    ///     let mut writer = a.map::<u32, _>(&guard, [&mut table])?;
    ///     writer.fill_u32(3)?;
    /// }
    /// // Two read-only views of the same bytes: at `a`, and twice in a row at `b`.
    /// let once = a.map_read_only::<u32, _>(&guard, &[&table])?;
    /// let twice = b.map_read_only::<u32, _>(&guard, &[&table, &table])?;
    /// assert_eq!(once.len() * 2, twice.len());
    /// assert_eq!(twice.slice(once.len()..)?.to_vec()?, once.to_vec()?);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemMap")]
    #[doc(alias = "cuMemSetAccess")]
    pub fn map_read_only<'r, T: DeviceCopy, K: ContextKind>(
        &'r self,
        guard: &PushedGuard<'_, '_, K>,
        physical: &[&'r PhysicalMemory<'_>],
    ) -> Result<ReadOnlyMapping<'r, T>> {
        // Read access only at the driver too (`CU_MEM_ACCESS_FLAGS_PROT_READ`), as the
        // multi-device read-only map grants: a raw kernel that writes through it faults.
        let pieces = physical.iter().map(|p| (p.handle, p.size));
        let bytes = self.map_raw(guard, pieces, Access::Read)?;
        Ok(Mapping::new(self, self.base, bytes, ()))
    }

    /// `cuMemMap`, `cuMemRelease`, `cuMemSetAccess`—Maps `physical` as [`map`](Self::map)
    /// does, taking the allocations: each is released right after it is mapped, as C programs
    /// do, and the mapping alone keeps the memory alive until it is unmapped (when it drops).
    /// Nothing else can map those allocations again.
    ///
    /// # Errors
    ///
    /// As [`map`](Self::map); if a release fails (after a sticky error), the mapping is undone
    /// and that allocation is not released again (its handle is lost).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemRelease")]
    pub fn map_owned<'r, T: DeviceCopy, K: ContextKind>(
        &'r self,
        guard: &PushedGuard<'_, '_, K>,
        physical: Vec<PhysicalMemory<'_>>,
    ) -> Result<Mapping<'r, T>> {
        let pieces = physical.iter().map(|p| (p.handle, p.size));
        let bytes = self.map_raw(guard, pieces, Access::ReadWrite)?;
        self.release_mapped(physical, self.base, bytes)?;
        Ok(Mapping::new(self, self.base, bytes, ()))
    }

    /// Maps `(handle, size)` one after the other from the start of the reservation and grants
    /// `guard`'s device the access `mode`; returns the bytes mapped. The callers' borrows of the
    /// physical memory say who may write it.
    fn map_raw<K: ContextKind>(
        &self,
        guard: &PushedGuard<'_, '_, K>,
        physical: impl Iterator<Item = (ffi::CUmemGenericAllocationHandle, usize)> + Clone,
        mode: Access,
    ) -> Result<usize> {
        let access = [access_desc(guard.device()?, mode)];
        let (start, bytes) = claim_pieces(self.base, self.size, 0, physical.clone(), &self.stuck)?;
        map_claimed(start, bytes, physical, &access, &self.stuck)?;
        Ok(bytes)
    }
}

impl MultiDeviceReservation<'_> {
    /// `cuMemMap`, `cuMemSetAccess`—Maps `physical` one after the other from `offset` bytes
    /// into the reservation and grants each device of `access` its access to all of it: one
    /// range holding as many `T` as fit. Several mappings may lie side by side in one
    /// reservation; one that would overlap another (alive or leaked) is refused before the
    /// driver is asked.
    ///
    /// Each allocation is borrowed exclusively while the mapping lives, as for
    /// [`Reservation::map`] (C14). Every device of `access` must be able to reach every
    /// allocation: its own, or a peer's it can access (`cuDeviceCanAccessPeer`), checked first.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] if the allocations do not fit, `InvalidValue` for an empty
    /// access list, [`ErrorKind::PeerAccessUnsupported`] if a device cannot reach an
    /// allocation's device, [`ErrorKind::AlreadyMapped`] if another mapping of the reservation
    /// (alive or leaked) holds part of the range (no mapping call made); driver errors (sizes
    /// not multiples of the granularity). On an error nothing stays mapped.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemMap")]
    #[doc(alias = "cuMemSetAccess")]
    pub fn map<'r, 'p: 'r, T: DeviceCopy>(
        &'r self,
        offset: usize,
        physical: impl IntoIterator<Item = &'r mut MultiDevicePhysicalMemory<'p>>,
        access: &[(Device, Access)],
    ) -> Result<MultiDeviceMapping<'r, T>> {
        // Taken by value, as in `Reservation::map`: a slice of `&'r mut` could be passed twice.
        let pieces: Vec<_> = physical
            .into_iter()
            .map(|p| (p.handle, p.size, p.device))
            .collect();
        let (ptr, bytes) = self.map_checked(offset, &pieces, access)?;
        Ok(Mapping::new(self, ptr, bytes, access.to_vec()))
    }

    /// `cuMemMap`, `cuMemRelease`, `cuMemSetAccess`—Maps `physical` as
    /// [`map`](MultiDeviceReservation#method.map) does, taking the allocations: each is released right
    /// after it is mapped, as C programs do (NVIDIA's `vectorAddMMAP`), and the mapping alone keeps
    /// the memory alive until it is unmapped.
    ///
    /// # Errors
    ///
    /// As [`map`](MultiDeviceReservation#method.map); if a release fails (after a sticky error), the
    /// mapping is undone and that allocation's handle is lost, never released twice.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemRelease")]
    pub fn map_owned<'r, T: DeviceCopy>(
        &'r self,
        offset: usize,
        physical: Vec<MultiDevicePhysicalMemory<'_>>,
        access: &[(Device, Access)],
    ) -> Result<MultiDeviceMapping<'r, T>> {
        let pieces: Vec<_> = physical
            .iter()
            .map(|p| (p.handle, p.size, p.device))
            .collect();
        let (ptr, bytes) = self.map_checked(offset, &pieces, access)?;
        self.release_mapped(physical, ptr, bytes)?;
        Ok(Mapping::new(self, ptr, bytes, access.to_vec()))
    }

    /// `cuMemMap`, `cuMemSetAccess`—Maps `physical` from `offset` as read-only memory for each
    /// of `devices`, borrowing the allocations shared (as [`Reservation::map_read_only`]).
    ///
    /// # Errors
    ///
    /// As [`map`](MultiDeviceReservation#method.map).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemMap")]
    pub fn map_read_only<'r, T: DeviceCopy>(
        &'r self,
        offset: usize,
        physical: &[&'r MultiDevicePhysicalMemory<'_>],
        devices: &[Device],
    ) -> Result<ReadOnlyMultiDeviceMapping<'r, T>> {
        let pieces: Vec<_> = physical
            .iter()
            .map(|p| (p.handle, p.size, p.device))
            .collect();
        let access: Vec<_> = devices.iter().map(|&d| (d, Access::Read)).collect();
        let (ptr, bytes) = self.map_checked(offset, &pieces, &access)?;
        Ok(Mapping::new(self, ptr, bytes, devices.to_vec()))
    }

    /// Checks the access list against the pieces' devices, then maps them in the
    /// reservation's context.
    fn map_checked(
        &self,
        offset: usize,
        pieces: &[(ffi::CUmemGenericAllocationHandle, usize, Device)],
        access: &[(Device, Access)],
    ) -> Result<(ffi::CUdeviceptr, usize)> {
        if access.is_empty() {
            return Err(Error::from_kind(ErrorKind::InvalidValue)
                .with_detail("a mapping with no device to access it"));
        }
        // One entry per device: the driver's answer to two (which one applies) is not
        // documented, and a view lent for writing trusts the device's entry.
        if let Some((i, &(device, _))) = access
            .iter()
            .enumerate()
            .find(|&(i, &(d, _))| access.iter().take(i).any(|&(e, _)| e == d))
        {
            return Err(
                Error::from_kind(ErrorKind::InvalidValue).with_detail(format!(
                    "device {} is listed twice in the mapping's access list (entry {i})",
                    device.as_raw()
                )),
            );
        }
        for &(device, _) in access {
            for &(_, _, home) in pieces {
                if device != home && !device.can_access_peer(home)? {
                    return Err(
                        Error::from_kind(ErrorKind::PeerAccessUnsupported).with_detail(format!(
                            "device {} cannot access memory of device {}",
                            device.as_raw(),
                            home.as_raw()
                        )),
                    );
                }
            }
        }
        let descs: Vec<_> = access.iter().map(|&(d, a)| access_desc(d, a)).collect();
        let handles = pieces.iter().map(|&(h, size, _)| (h, size));
        // Claimed before the context is pushed: a range another mapping holds is refused
        // without a driver call.
        let (start, bytes) =
            claim_pieces(self.base, self.size, offset, handles.clone(), &self.stuck)?;
        let (mut ran, mut mapped) = (false, false);
        // SAFETY: the reservation's context is live (borrowed for 'ctx); mapping leaves the
        // stack as it was.
        let r = unsafe {
            in_context(self.home, || {
                ran = true;
                // On its error nothing stays mapped and the claim is handed back (or the
                // reservation is stuck).
                map_claimed(start, bytes, handles, &descs, &self.stuck)?;
                mapped = true;
                Ok(())
            })
        };
        match r {
            Ok(()) => Ok((start, bytes)),
            Err(e) => {
                if !ran {
                    // The context could not be pushed: nothing was mapped.
                    self.stuck.unmapped(start, bytes);
                } else if mapped {
                    // Mapped, but the context could not be popped: no value owns the range
                    // now, so it stays mapped (and claimed) and the reservation is stuck.
                    self.stuck.set();
                    left_behind_range(Object::Mapping, start, bytes as u64);
                }
                Err(e)
            }
        }
    }
}

impl<H: VmmHome> Reservation<'_, H> {
    /// The end of a `map_owned`: `physical`, mapped at `ptr..ptr + bytes`, is released (in this
    /// reservation's home), so the mapping alone keeps it alive. If a release fails (after a
    /// sticky error), the range is unmapped again and the error returned; the handles are
    /// never released twice (their owners are consumed here).
    fn release_mapped(
        &self,
        physical: Vec<PhysicalMemory<'_, H>>,
        ptr: ffi::CUdeviceptr,
        bytes: usize,
    ) -> Result<()> {
        // Mapped: from here on the handles are released, not dropped.
        let handles: Vec<_> = physical
            .into_iter()
            .map(|p| ManuallyDrop::new(p).handle)
            .collect();
        let mut ran = false;
        // SAFETY: `in_home` requires a live home and an `f` that leaves the stack as it was:
        // - the home is live: a guard-lent reservation borrows its guard, whose context is
        //   current; a multi-device reservation borrows its context for `'ctx`;
        // - releasing pushes and pops nothing.
        let released = unsafe {
            H::in_home(self.home, || {
                ran = true;
                release_all(&handles)
            })
        };
        if !ran {
            // The context could not be pushed: none was released (`release_all` names the ones
            // whose release failed).
            for &h in &handles {
                left_behind(Object::PhysicalMemory, h);
            }
        }
        if let Err(e) = released {
            unmap_in::<H>(self.home, ptr, bytes, &self.stuck);
            return Err(e);
        }
        Ok(())
    }
}

fn access_desc(device: Device, access: Access) -> ffi::CUmemAccessDesc {
    ffi::CUmemAccessDesc {
        location: ffi::CUmemLocation {
            type_: ffi::CU_MEM_LOCATION_TYPE_DEVICE,
            id: device.as_raw(),
        },
        flags: match access {
            Access::Read => ffi::CU_MEM_ACCESS_FLAGS_PROT_READ,
            Access::ReadWrite => ffi::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        },
    }
}

/// Checks that `physical` fits at `offset` of a reservation of `size` bytes at `base`, and
/// claims that range of it (no driver call): the first address and the bytes. Refused in a
/// poisoned or forked process, in a stuck reservation ([`Stuck::check`]), for pieces that do not
/// fit ([`ErrorKind::OutOfRange`]) and for a range a mapping holds ([`Stuck::claim`]).
fn claim_pieces(
    base: ffi::CUdeviceptr,
    size: usize,
    offset: usize,
    physical: impl Iterator<Item = (ffi::CUmemGenericAllocationHandle, usize)>,
    stuck: &Stuck,
) -> Result<(ffi::CUdeviceptr, usize)> {
    crate::error::poison::check()?;
    stuck.check()?;
    let bytes = physical
        .map(|(_, size)| size)
        .try_fold(0usize, usize::checked_add)
        .filter(|&b| offset.checked_add(b).is_some_and(|end| end <= size));
    let Some(bytes) = bytes else {
        return Err(Error::custack(
            ErrorKind::OutOfRange,
            format!(
                "the physical memory does not fit at offset {offset} of a reservation of {size} bytes"
            ),
        ));
    };
    let start = base + offset as u64;
    // Claimed until `unmap_in` unmaps it (its mapping's drop, or a `map_owned` undone), or
    // handed back by `map_claimed` if the map is undone.
    stuck.claim(start, bytes)?;
    Ok((start, bytes))
}

/// Maps `(handle, size)` one after the other from `start`, the range [`claim_pieces`] claimed,
/// then grants `access`. On an error nothing stays mapped and the claim is handed back (or, if
/// the clean-up's unmap failed too, the reservation is `stuck` and the range stays claimed).
fn map_claimed(
    start: ffi::CUdeviceptr,
    bytes: usize,
    physical: impl Iterator<Item = (ffi::CUmemGenericAllocationHandle, usize)>,
    access: &[ffi::CUmemAccessDesc],
    stuck: &Stuck,
) -> Result<()> {
    let undo = |done: usize| {
        if stuck.unmap(start, done) {
            stuck.unmapped(start, bytes);
        }
    };
    let mut done = 0usize;
    for (handle, size) in physical {
        let at = start + done as u64;
        // SAFETY: `at..at + size` lies in the live reservation and is not mapped: the caller
        // claimed `start..start + bytes` (`claim_pieces`: it fits, and no other mapping of the
        // reservation holds any of it); `handle` is live physical memory, borrowed or owned by
        // the caller for the mapping's life.
        let r = unsafe { ffi::cuMemMap(at, size, 0, handle, 0) }.result();
        if let Err(e) = r {
            undo(done);
            return Err(e);
        }
        done += size;
    }
    // SAFETY: the range was just mapped; `access.len()` descriptors.
    let granted = unsafe { ffi::cuMemSetAccess(start, bytes, access.as_ptr(), access.len()) };
    if let Err(e) = granted.result() {
        undo(bytes);
        return Err(e);
    }
    Ok(())
}

/// `cuMemRelease` of each handle, once; the first error.
fn release_all(handles: &[ffi::CUmemGenericAllocationHandle]) -> Result<()> {
    let mut first = Ok(());
    for &h in handles {
        // Poisoned or forked (R20, R22): kept (`release` names it left behind).
        if let Err(e) = crate::error::left_behind::release(Object::PhysicalMemory, h) {
            if first.is_ok() {
                first = Err(e);
            }
            continue;
        }
        // SAFETY: each handle is live and released once (its owner was consumed); a mapping
        // of it keeps the memory alive.
        let r = unsafe { ffi::cuMemRelease(h) }.result();
        if r.is_err() {
            left_behind(Object::PhysicalMemory, h);
        }
        if first.is_ok() {
            first = r;
        }
    }
    first
}
