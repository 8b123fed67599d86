//! Physical device memory (`cuMemCreate`, `cuMemRelease`), lent by a guard on its device or,
//! on a chosen device, borrowing only a context; the allocation granularity its sizes are
//! multiples of (`cuMemGetAllocationGranularity`).

use crate::context::stack::{ContextKind, PushedGuard};
use crate::driver::Device;
use crate::error::left_behind::{Object, left_behind};
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::memory::vmm::markers::{HomeMarker, Lent, MultiDevice, VmmHome};
use core::marker::PhantomData;

/// Physical device memory (`cuMemCreate`); released on drop (`cuMemRelease`).
///
/// `H` says where it lives ([`VmmHome`]). With the default, [`Lent`], it is lent by a guard
/// ([`PushedGuard::create_physical`]), on that guard's device. A [`MultiDevicePhysicalMemory`] (of
/// the [`MultiDevice`] home) lives on a chosen device and borrows only its context.
#[derive(Debug)]
#[doc(alias = "CUmemGenericAllocationHandle")]
#[doc(alias = "cuMemCreate")]
pub struct PhysicalMemory<'a, H: VmmHome = Lent> {
    home: H::Home,
    pub(super) handle: ffi::CUmemGenericAllocationHandle,
    pub(super) size: usize,
    pub(super) device: Device,
    _marker: HomeMarker<'a, H>,
}

/// Physical memory on a chosen device ([`PushedGuard::create_physical_on`]), to map into a
/// [`MultiDeviceReservation`](crate::MultiDeviceReservation); borrows only its context. Released on
/// drop (`cuMemRelease`). A [`PhysicalMemory`] of the [`MultiDevice`] home.
#[doc(alias = "cuMemCreate")]
pub type MultiDevicePhysicalMemory<'ctx> = PhysicalMemory<'ctx, MultiDevice>;

static_assertions::assert_not_impl_any!(PhysicalMemory<'static>: Send, Sync);
static_assertions::assert_impl_all!(MultiDevicePhysicalMemory<'static>: Send, Sync);
static_assertions::assert_eq_size!(
    PhysicalMemory<'static>,
    (ffi::CUmemGenericAllocationHandle, usize, Device)
);
static_assertions::assert_eq_size!(
    MultiDevicePhysicalMemory<'static>,
    (
        ffi::CUcontext,
        ffi::CUmemGenericAllocationHandle,
        usize,
        Device
    )
);

// SAFETY: (the multi-device home only; guard-lent physical memory stays `!Send` and `!Sync`, its
// home being a thread marker) VMM physical allocations belong to the process, not to a thread
// or a context (CUDA Virtual Memory Management); the value only holds the allocation handle,
// its size and device, and the context it pushes for its own calls (a context may be current
// on several threads at once). It offers no access to the memory except through a mapping lent
// by a guard of the thread that uses it (`lend`, `lend_mut`, `lend_read_only`), which checks
// the device and ties the view to itself; `&self` methods read plain fields only. Dropping it
// on any thread pushes its context there.
unsafe impl Send for MultiDevicePhysicalMemory<'_> {}
// SAFETY: as above.
unsafe impl Sync for MultiDevicePhysicalMemory<'_> {}

fn device_prop(device: Device) -> ffi::CUmemAllocationProp {
    exportable_prop(device, ffi::CU_MEM_HANDLE_TYPE_NONE)
}

/// The properties of pinned memory on `device` that can be exported to the OS handles
/// `requested` (a `CUmemAllocationHandleType` mask; none for `CU_MEM_HANDLE_TYPE_NONE`).
pub(in crate::memory) fn exportable_prop(
    device: Device,
    requested: ffi::CUmemAllocationHandleType,
) -> ffi::CUmemAllocationProp {
    ffi::CUmemAllocationProp {
        type_: ffi::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: requested,
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
        crate::error::poison::check()?;
        self.granularity_on(self.device()?)
    }

    /// `cuMemGetAllocationGranularity`—The granularity (bytes) of physical memory on `device`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemGetAllocationGranularity")]
    pub fn granularity_on(&self, device: Device) -> Result<usize> {
        crate::error::poison::check()?;
        let prop = device_prop(device);
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

    /// `cuMemCreate`—Creates `size` bytes of physical memory on this context's device (a
    /// multiple of the granularity).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemCreate")]
    pub fn create_physical(&self, size: usize) -> Result<PhysicalMemory<'_>> {
        crate::error::poison::check()?;
        self.create_physical_as(size, ffi::CU_MEM_HANDLE_TYPE_NONE)
    }

    /// `cuMemCreate` of `size` bytes on this context's device that can be exported to the OS
    /// handles `requested` (a `CUmemAllocationHandleType` mask).
    pub(in crate::memory) fn create_physical_as(
        &self,
        size: usize,
        requested: ffi::CUmemAllocationHandleType,
    ) -> Result<PhysicalMemory<'_>> {
        let device = self.device()?;
        let prop = exportable_prop(device, requested);
        let mut handle = 0;
        // SAFETY: valid out-pointer; a fully initialized property; the driver checks the size
        // and the handle types.
        unsafe { ffi::cuMemCreate(&raw mut handle, size, &raw const prop, 0) }.result()?;
        // SAFETY: just created, of `size` bytes on `device`; released once, by the value.
        Ok(unsafe { PhysicalMemory::lent(handle, size, device) })
    }
}

impl<'ctx> PushedGuard<'ctx, '_> {
    /// `cuMemCreate`—Creates `size` bytes of physical memory on `device` (any device of this
    /// driver; a multiple of [`granularity_on`](Self::granularity_on) that device), to map into a
    /// [`MultiDeviceReservation`](crate::MultiDeviceReservation). It borrows only this guard's
    /// context.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemCreate")]
    pub fn create_physical_on(
        &self,
        device: Device,
        size: usize,
    ) -> Result<MultiDevicePhysicalMemory<'ctx>> {
        crate::error::poison::check()?;
        let prop = device_prop(device);
        let mut handle = 0;
        // SAFETY: valid out-pointer; a fully initialized property; the driver checks the size
        // and the device.
        unsafe { ffi::cuMemCreate(&raw mut handle, size, &raw const prop, 0) }.result()?;
        Ok(MultiDevicePhysicalMemory {
            home: self.as_raw(),
            handle,
            size,
            device,
            _marker: PhantomData,
        })
    }
}

impl PhysicalMemory<'_> {
    /// Takes ownership of the live allocation `handle` of `size` bytes on `device`, lent by a
    /// guard for the value's lifetime: released (`cuMemRelease`) when the value drops.
    ///
    /// # Safety
    ///
    /// - `handle` is a live allocation handle that nothing else releases (one `cuMemCreate`
    ///   or one `cuMemImportFromShareableHandle` of its own);
    /// - `size` is the size it was created with or, for an imported allocation, the size its
    ///   importer was given (a size past the allocation is refused by the driver at
    ///   `cuMemMap`, and reaches device memory only: see `memory/share.rs`);
    /// - the value's lifetime borrows a guard whose context is current on this thread while
    ///   the value lives.
    pub(in crate::memory) unsafe fn lent(
        handle: ffi::CUmemGenericAllocationHandle,
        size: usize,
        device: Device,
    ) -> Self {
        PhysicalMemory {
            home: PhantomData,
            handle,
            size,
            device,
            _marker: PhantomData,
        }
    }

    /// Sets the device the memory lives on (as the driver reports it, for imported memory).
    #[cfg(target_os = "linux")]
    pub(in crate::memory) fn set_device(&mut self, device: Device) {
        self.device = device;
    }
}

impl<H: VmmHome> PhysicalMemory<'_, H> {
    /// Its size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The device it lives on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The raw allocation handle (`CUmemGenericAllocationHandle`), e.g. to export it with
    /// `cuMemExportToShareableHandle`; custack releases it when this value drops.
    pub fn as_raw(&self) -> ffi::CUmemGenericAllocationHandle {
        self.handle
    }
}

impl<H: VmmHome> Drop for PhysicalMemory<'_, H> {
    fn drop(&mut self) {
        if !crate::error::left_behind::release_in_drop(Object::PhysicalMemory, self.handle) {
            return;
        }
        let handle = self.handle;
        let mut released = false;
        let release = || {
            // SAFETY: created by this value, released once; no mapping is alive (mappings
            // borrow it, or took it).
            let r = unsafe { ffi::cuMemRelease(handle) }.result();
            released = r.is_ok();
            r
        };
        // SAFETY: `in_home` requires a live home and an `f` that leaves the stack as it was:
        // - the home is live: guard-lent physical memory borrows its guard (whose context is
        //   current), multi-device physical memory its context;
        // - `release` pushes and pops nothing.
        let r = unsafe { H::in_home(self.home, release) };
        if !released {
            left_behind(Object::PhysicalMemory, handle);
        }
        if let Err(e) = r {
            record_drop_error(e);
        }
    }
}
