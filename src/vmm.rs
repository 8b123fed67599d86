//! Virtual memory management (`cuMemAddressReserve`, `cuMemCreate`, `cuMemMap`,
//! `cuMemSetAccess`): reserve an address range once, back it with physical allocations as it
//! grows, and use the mapped range as ordinary device memory, without copying.
//!
//! A [`Mapping`] borrows the [`Reservation`] it lies in and the [`PhysicalMemory`] behind it,
//! so it cannot outlive either (C19/C21's kin for address space: nothing is unmapped, released
//! or freed while a mapping uses it); it is [`DeviceMemory`](crate::DeviceMemory), so scopes
//! bind it and copies, memsets and kernels use it. Unmapped on drop; the physical memory keeps
//! its contents, so a larger mapping over the same physical memory sees them (growing).
//!
//! The same physical memory may be mapped at several addresses, which is why the borrows say
//! who may write (C14): a writable [`Mapping`] ([`Reservation::map`]) borrows each allocation
//! behind it *exclusively*, so no other mapping of those bytes exists while it lives, and one
//! allocation cannot appear twice in it; a [`SharedMapping`] ([`Reservation::map_shared`]) is
//! read-only device memory that borrows its allocations shared, so any number of them may
//! show the same bytes, as long as no writable mapping does.

use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::memory::{DeviceMemory, DeviceMemoryMut, device_memory, sealed};
use crate::plain::DeviceCopy;
use crate::stack::{ContextKind, PushedGuard};
use core::marker::PhantomData;

/// A reserved range of device virtual addresses, lent by a guard; freed on drop
/// (`cuMemAddressFree`).
#[derive(Debug)]
#[doc(alias = "cuMemAddressReserve")]
pub struct Reservation<'g> {
    base: ffi::CUdeviceptr,
    size: usize,
    _marker: PhantomData<(&'g (), *const ())>,
}

/// Physical device memory (`cuMemCreate`), lent by a guard; released on drop (`cuMemRelease`).
#[derive(Debug)]
#[doc(alias = "CUmemGenericAllocationHandle")]
#[doc(alias = "cuMemCreate")]
pub struct PhysicalMemory<'g> {
    handle: ffi::CUmemGenericAllocationHandle,
    size: usize,
    _marker: PhantomData<(&'g (), *const ())>,
}

/// Physical memory mapped into a reservation, readable and writable by this context's device:
/// device memory of `len` elements of `T`. Borrows the reservation and the physical memory;
/// unmapped on drop (`cuMemUnmap`).
#[derive(Debug)]
#[doc(alias = "cuMemMap")]
pub struct Mapping<'r, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    bytes: usize,
    _marker: PhantomData<(&'r (), *const T)>,
}

device_memory!(Mapping, mut_);

/// Physical memory mapped into a reservation for reading: device memory of `len` elements of
/// `T` that no one writes while it lives. Borrows the reservation and the physical memory
/// *shared*, so other shared mappings may show the same bytes (even twice in one mapping) but
/// no writable [`Mapping`] can; unmapped on drop (`cuMemUnmap`).
#[derive(Debug)]
#[doc(alias = "cuMemMap")]
pub struct SharedMapping<'r, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    bytes: usize,
    _marker: PhantomData<(&'r (), *const T)>,
}

device_memory!(SharedMapping,);

fn device_prop(device: crate::Device) -> ffi::CUmemAllocationProp {
    ffi::CUmemAllocationProp {
        type_: ffi::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: 0,
        location: ffi::CUmemLocation {
            type_: ffi::CU_MEM_LOCATION_TYPE_DEVICE,
            id: device.as_raw(),
        },
        win32HandleMetaData: core::ptr::null_mut(),
        allocFlags: [0; 8],
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemGetAllocationGranularity`—The granularity (bytes) that reservation, physical and
    /// mapping sizes must be multiples of on this context's device.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemGetAllocationGranularity")]
    pub fn allocation_granularity(&self) -> Result<usize> {
        let prop = device_prop(self.device()?);
        let mut g = 0usize;
        // SAFETY: valid out-pointer; a fully initialized property.
        unsafe {
            ffi::cuMemGetAllocationGranularity(
                &raw mut g,
                &raw const prop,
                ffi::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
            )
        }
        .result()?;
        Ok(g)
    }

    /// `cuMemAddressReserve`—Reserves `size` bytes of device virtual addresses (a multiple of
    /// [`allocation_granularity`](Self::allocation_granularity)).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemAddressReserve")]
    pub fn reserve(&self, size: usize) -> Result<Reservation<'_>> {
        let mut base = 0;
        // SAFETY: valid out-pointer; the driver checks the size; this guard's context is current.
        unsafe { ffi::cuMemAddressReserve(&raw mut base, size, 0, 0, 0) }.result()?;
        Ok(Reservation {
            base,
            size,
            _marker: PhantomData,
        })
    }

    /// `cuMemCreate`—Creates `size` bytes of physical memory on this context's device (a
    /// multiple of the granularity).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemCreate")]
    pub fn create_physical(&self, size: usize) -> Result<PhysicalMemory<'_>> {
        let prop = device_prop(self.device()?);
        let mut handle = 0;
        // SAFETY: valid out-pointer; a fully initialized property; the driver checks the size.
        unsafe { ffi::cuMemCreate(&raw mut handle, size, &raw const prop, 0) }.result()?;
        Ok(PhysicalMemory {
            handle,
            size,
            _marker: PhantomData,
        })
    }
}

impl Reservation<'_> {
    /// The first address of the range.
    pub fn base(&self) -> ffi::CUdeviceptr {
        self.base
    }
    /// Its size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// `cuMemMap`, `cuMemSetAccess`—Maps `physical`, one after the other, from the start of the
    /// reservation, and lets `guard`'s device read and write them: one contiguous range of
    /// device memory holding as many `T` as fit.
    ///
    /// Each allocation is borrowed exclusively for as long as the mapping lives (C14): no other
    /// mapping, writable or [shared](Self::map_shared), can show its bytes meanwhile, and the
    /// same allocation cannot be passed twice (`&[&mut p, &mut p]` does not compile). To grow,
    /// drop the smaller mapping first, as the example does.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] (no driver call) if they do not fit in the reservation; driver
    /// errors (sizes not multiples of the granularity, a range mapped already). On an error
    /// nothing stays mapped.
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
    ///     let mut small = space.map::<u32, _>(&guard, &[&mut first])?;
    ///     small.fill_u32(7)?;
    /// }                                             // unmapped; `first` keeps its contents
    /// let mut second = guard.create_physical(g)?;
    /// let grown = space.map::<u32, _>(&guard, &[&mut first, &mut second])?; // no copy
    /// assert_eq!(grown.slice(..4)?.to_vec()?, [7; 4]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemMap")]
    #[doc(alias = "cuMemSetAccess")]
    pub fn map<'r, T: DeviceCopy, K: ContextKind>(
        &'r self,
        guard: &PushedGuard<'_, '_, K>,
        physical: &[&'r mut PhysicalMemory<'_>],
    ) -> Result<Mapping<'r, T>> {
        let bytes = self.map_raw(guard, physical.iter().map(|p| (p.handle, p.size)))?;
        Ok(Mapping {
            ptr: self.base,
            len: bytes / size_of::<T>().max(1),
            bytes,
            _marker: PhantomData,
        })
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
    ///     let mut writer = a.map::<u32, _>(&guard, &[&mut table])?;
    ///     writer.fill_u32(3)?;
    /// }
    /// // Two read-only views of the same bytes: at `a`, and twice in a row at `b`.
    /// let once = a.map_shared::<u32, _>(&guard, &[&table])?;
    /// let twice = b.map_shared::<u32, _>(&guard, &[&table, &table])?;
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
    pub fn map_shared<'r, T: DeviceCopy, K: ContextKind>(
        &'r self,
        guard: &PushedGuard<'_, '_, K>,
        physical: &[&'r PhysicalMemory<'_>],
    ) -> Result<SharedMapping<'r, T>> {
        let bytes = self.map_raw(guard, physical.iter().map(|p| (p.handle, p.size)))?;
        Ok(SharedMapping {
            ptr: self.base,
            len: bytes / size_of::<T>().max(1),
            bytes,
            _marker: PhantomData,
        })
    }

    /// Maps `(handle, size)` one after the other from the start of the reservation and grants
    /// `guard`'s device access; returns the bytes mapped. The callers' borrows of the physical
    /// memory say who may write it.
    fn map_raw<K: ContextKind>(
        &self,
        guard: &PushedGuard<'_, '_, K>,
        physical: impl Iterator<Item = (ffi::CUmemGenericAllocationHandle, usize)> + Clone,
    ) -> Result<usize> {
        let bytes = physical
            .clone()
            .try_fold(0usize, |sum, (_, size)| sum.checked_add(size))
            .filter(|&b| b <= self.size);
        let Some(bytes) = bytes else {
            return Err(Error::custack(
                ErrorKind::OutOfRange,
                format!(
                    "the physical memory does not fit a reservation of {} bytes",
                    self.size
                ),
            ));
        };
        let device = guard.device()?;
        let mut offset = 0usize;
        for (handle, size) in physical {
            let at = self.base + offset as u64;
            // SAFETY: `at..at + size` lies in this live reservation (checked above) and is not
            // mapped (a mapping borrows the reservation, and the driver refuses overlaps);
            // `handle` is live physical memory, borrowed by the caller for the mapping's life.
            let r = unsafe { ffi::cuMemMap(at, size, 0, handle, 0) }.result();
            if let Err(e) = r {
                unmap(self.base, offset);
                return Err(e);
            }
            offset += size;
        }
        let access = ffi::CUmemAccessDesc {
            location: ffi::CUmemLocation {
                type_: ffi::CU_MEM_LOCATION_TYPE_DEVICE,
                id: device.as_raw(),
            },
            flags: ffi::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        // SAFETY: the range was just mapped; one access descriptor.
        let granted = unsafe { ffi::cuMemSetAccess(self.base, bytes, &raw const access, 1) };
        if let Err(e) = granted.result() {
            unmap(self.base, bytes);
            return Err(e);
        }
        Ok(bytes)
    }
}

fn unmap(ptr: ffi::CUdeviceptr, bytes: usize) {
    if bytes == 0 {
        return;
    }
    // SAFETY: `ptr..ptr + bytes` was mapped by `Reservation::map` and is unmapped once; no
    // asynchronous work uses it (scopes bind mappings by borrow).
    if let Err(e) = unsafe { ffi::cuMemUnmap(ptr, bytes) }.result() {
        record_drop_error(e);
    }
}

impl<T: DeviceCopy> Drop for Mapping<'_, T> {
    fn drop(&mut self) {
        unmap(self.ptr, self.bytes);
    }
}

impl<T: DeviceCopy> Drop for SharedMapping<'_, T> {
    fn drop(&mut self) {
        unmap(self.ptr, self.bytes);
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        // SAFETY: reserved by this value, freed once; no mapping is alive (mappings borrow it).
        if let Err(e) = unsafe { ffi::cuMemAddressFree(self.base, self.size) }.result() {
            record_drop_error(e);
        }
    }
}

impl PhysicalMemory<'_> {
    /// Its size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The raw allocation handle (`CUmemGenericAllocationHandle`), e.g. to export it with
    /// `cuMemExportToShareableHandle`; custack releases it when this value drops.
    pub fn as_raw(&self) -> ffi::CUmemGenericAllocationHandle {
        self.handle
    }
}

impl Drop for PhysicalMemory<'_> {
    fn drop(&mut self) {
        // SAFETY: created by this value, released once; no mapping is alive (mappings borrow it).
        if let Err(e) = unsafe { ffi::cuMemRelease(self.handle) }.result() {
            record_drop_error(e);
        }
    }
}
