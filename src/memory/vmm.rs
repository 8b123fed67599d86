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
//! allocation cannot appear twice in it; a [`ReadOnlyMapping`] ([`Reservation::map_read_only`]) is
//! read-only device memory that borrows its allocations shared, so any number of them may
//! show the same bytes, as long as no writable mapping does.
//!
//! **Across devices.** VMM address ranges and physical allocations belong to the process, not to a
//! context: one range can be striped over the physical memory of several devices and mapped
//! readable, or readable and writable, for a chosen list of devices, so that kernels on each use
//! one pointer, with no peer copies (NVIDIA's `vectorAddMMAP`). The [`MultiDeviceReservation`],
//! [`MultiDevicePhysicalMemory`] and [`MultiDeviceMapping`] for that borrow only a [`Context`](crate::Context)
//! (as a [`ParkedBuffer`](crate::ParkedBuffer) does, and push it for their own driver calls), so
//! they outlive guards and nested pushes; a guard of any context on a device the mapping lets in
//! lends it as ordinary device memory ([`PushedGuard::lend`], [`PushedGuard::lend_mut`]), checked
//! against the mapping's access list. The same borrow rules hold: a writable mapping borrows its
//! allocations exclusively, a [`ReadOnlyMultiDeviceMapping`] shared, and a mapping made with
//! [`MultiDeviceReservation::map_owned`](MultiDeviceReservation#method.map_owned) (or [`Reservation::map_owned`])
//! takes its allocations and releases them right after mapping them, as C programs do
//! (`cuMemRelease`: the mapping keeps the memory alive until it is unmapped).
//!
//! **One type per kind.** Address ranges, physical memory and mappings are one type each, and
//! type parameters tell their variants apart: where a value lives, a [`VmmHome`] ([`Lent`] by a
//! guard, the default, or [`MultiDevice`]: borrowing only a context), and for a mapping who may write
//! it, a [`MappingMode`] ([`ReadWrite`], the default, or [`ReadOnly`]). The names above are
//! those types or aliases of them:
//!
//! | | lent by a guard | across devices |
//! | --- | --- | --- |
//! | address range | [`Reservation<'g>`](Reservation) | [`MultiDeviceReservation<'ctx>`](MultiDeviceReservation) = `Reservation<'ctx, MultiDevice>` |
//! | physical memory | [`PhysicalMemory<'g>`](PhysicalMemory) | [`MultiDevicePhysicalMemory<'ctx>`](MultiDevicePhysicalMemory) = `PhysicalMemory<'ctx, MultiDevice>` |
//! | writable mapping | [`Mapping<'r, T>`](Mapping) | [`MultiDeviceMapping<'r, T>`](MultiDeviceMapping) = `Mapping<'r, T, ReadWrite, MultiDevice>` |
//! | read-only mapping | [`ReadOnlyMapping<'r, T>`](ReadOnlyMapping) = `Mapping<'r, T, ReadOnly>` | [`ReadOnlyMultiDeviceMapping<'r, T>`](ReadOnlyMultiDeviceMapping) = `Mapping<'r, T, ReadOnly, MultiDevice>` |
//!
//! So a mapping is unmapped, a range freed and an allocation released by one `Drop` each, the
//! guard-lent values pushing nothing (their guard's context is current) and the multi-device ones
//! pushing their context; what differs (how a mapping is made, who may lend it) stays in the
//! methods of each kind.

use crate::context::raw::with_raw_current;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::driver::Device;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::memory::{DeviceMemory, DeviceMemoryMut, DeviceView, DeviceViewMut, sealed};
use crate::testing::left_behind::{Object, left_behind, left_behind_range};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::sync::atomic::{AtomicBool, Ordering};

// ---------------------------------------------------------------------------------------------
// The type parameters: where a value lives, and what a mapping lets its devices do.

mod vmm_sealed {
    use super::Result;

    /// The hidden half of [`VmmHome`](super::VmmHome).
    pub trait Home: 'static {
        /// What a value keeps to make its driver calls in the right place: nothing but a
        /// thread marker for a guard-lent value, the context it pushes for a multi-device one.
        type Home: Copy + core::fmt::Debug;
        /// The devices a mapping lets in: none kept for a guard-lent mapping (it is its
        /// guard's device's), the access list of a multi-device mapping.
        type Grants<M: super::MappingMode>: core::fmt::Debug;
        /// Runs `f` where a value of this home makes its driver calls, returning its value.
        ///
        /// # Safety
        ///
        /// `home` is the home of a live value (for a multi-device value, its context, live for the
        /// value's lifetime) and `f` leaves the stack as it found it.
        unsafe fn in_home<R>(home: Self::Home, f: impl FnOnce() -> Result<R>) -> Result<R>;
    }

    /// The hidden half of [`MappingMode`](super::MappingMode).
    pub trait Mode: 'static {
        /// One entry of a multi-device mapping's access list: `(Device, Access)` for a writable
        /// mapping, `Device` (reading) for a read-only one.
        type Grant: Copy + core::fmt::Debug;
    }
}

/// Where a [`Reservation`], [`PhysicalMemory`] or [`Mapping`] lives: [`Lent`] by a guard (the
/// default), or [`MultiDevice`], borrowing only a [`Context`](crate::Context). Sealed.
pub trait VmmHome: vmm_sealed::Home {}

/// [`VmmHome`] of a value lent by a guard ([`PushedGuard::reserve`],
/// [`PushedGuard::create_physical`], [`Reservation::map`]): it borrows the guard, stays on its
/// thread (`!Send`, `!Sync`), and makes its driver calls (and its drop's) under the guard's
/// context, current while the value lives (nothing can be pushed over a borrowed guard). A
/// writable or shared mapping of this home is [`DeviceMemory`](crate::DeviceMemory) of the
/// guard. Never constructed.
#[derive(Debug)]
pub enum Lent {}

/// [`VmmHome`] of a value for several devices ([`PushedGuard::reserve_multi_device`],
/// [`PushedGuard::create_physical_on`], [`MultiDeviceReservation::map`](MultiDeviceReservation#method.map)): it
/// borrows only the [`Context`](crate::Context) and pushes it around its own driver calls, so it
/// outlives guards and nested pushes and is `Send` and `Sync`; a guard of a device it lets in lends
/// a mapping of this home ([`PushedGuard::lend`], [`PushedGuard::lend_mut`],
/// [`PushedGuard::lend_read_only`]). Never constructed.
#[derive(Debug)]
pub enum MultiDevice {}

/// A guard-lent value's home: the guard's context, current on the guard's thread, so nothing
/// to keep but a marker that keeps the value on that thread (`!Send`, `!Sync`).
type OnGuardThread = PhantomData<*const ()>;

impl vmm_sealed::Home for Lent {
    type Home = OnGuardThread;
    type Grants<M: MappingMode> = ();
    unsafe fn in_home<R>(_: OnGuardThread, f: impl FnOnce() -> Result<R>) -> Result<R> {
        // The guard's context is current: nothing to push.
        f()
    }
}
impl VmmHome for Lent {}

impl vmm_sealed::Home for MultiDevice {
    type Home = ffi::CUcontext;
    type Grants<M: MappingMode> = Vec<M::Grant>;
    unsafe fn in_home<R>(ctx: ffi::CUcontext, f: impl FnOnce() -> Result<R>) -> Result<R> {
        // SAFETY: `in_context` requires a live context and an `f` that leaves the stack as it
        // found it: both are this function's own requirements, passed on by the caller.
        unsafe { in_context(ctx, f) }
    }
}
impl VmmHome for MultiDevice {}

/// What a [`Mapping`] lets its devices do: [`ReadWrite`] (the default) or [`ReadOnly`]. Sealed.
pub trait MappingMode: vmm_sealed::Mode {}

/// [`MappingMode`] of a writable mapping ([`Reservation::map`],
/// [`MultiDeviceReservation::map`](MultiDeviceReservation#method.map), the `map_owned`s): it borrows each
/// allocation behind it exclusively (or owns it), so no other mapping shows its bytes (C14); the
/// guard-lent one is [`DeviceMemoryMut`](crate::DeviceMemoryMut), the multi-device one is lent writable by
/// [`PushedGuard::lend_mut`]. Never constructed.
#[derive(Debug)]
pub enum ReadWrite {}

/// [`MappingMode`] of a read-only mapping ([`Reservation::map_read_only`],
/// [`MultiDeviceReservation::map_read_only`](MultiDeviceReservation#method.map_read_only)): it borrows its allocations
/// shared, so other read-only mappings may show the same bytes (even twice in one), but no writable
/// one can while it lives; device memory that is only read. Never constructed.
#[derive(Debug)]
pub enum ReadOnly {}

impl vmm_sealed::Mode for ReadWrite {
    type Grant = (Device, Access);
}
impl MappingMode for ReadWrite {}
impl vmm_sealed::Mode for ReadOnly {
    type Grant = Device;
}
impl MappingMode for ReadOnly {}

// ---------------------------------------------------------------------------------------------
// The three kinds, each one type for both homes (and, for mappings, both modes).

/// Borrows the guard or the context for `'a`, which it must not outlive; names the home.
type HomeMarker<'a, H> = PhantomData<(&'a (), fn() -> H)>;

/// A reserved range of device virtual addresses; freed on drop (`cuMemAddressFree`).
///
/// `H` says where it lives ([`VmmHome`]). With the default, [`Lent`], it is lent by a guard
/// ([`PushedGuard::reserve`]) and [`map`](Self::map) lets that guard's device use what it
/// maps. A [`MultiDeviceReservation`] (of the [`MultiDevice`] home) is for memory of several devices: it
/// borrows only its context and maps for a chosen list of devices.
#[derive(Debug)]
#[doc(alias = "cuMemAddressReserve")]
pub struct Reservation<'a, H: VmmHome = Lent> {
    home: H::Home,
    base: ffi::CUdeviceptr,
    size: usize,
    stuck: Stuck,
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

/// Set when a mapping in a reservation could not be unmapped (the driver failed the call, or
/// its context could not be pushed): the range is still mapped, so the reservation maps
/// nothing more and is not freed on drop (the failed unmap's error was recorded; the driver
/// releases both with the context or the process).
#[derive(Debug, Default)]
struct Stuck(AtomicBool);

impl Stuck {
    fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    /// Unmaps `ptr..ptr + bytes` (recording a failure as a drop error) and marks the
    /// reservation stuck if that failed; whether it unmapped.
    fn unmap(&self, ptr: ffi::CUdeviceptr, bytes: usize) -> bool {
        let unmapped = unmap(ptr, bytes);
        if !unmapped {
            self.set();
            // Still mapped: left, with its reservation, for the context to release.
            left_behind_range(Object::Mapping, ptr, bytes as u64);
        }
        unmapped
    }
    /// Refuses a new mapping in a stuck reservation.
    fn check(&self) -> Result<()> {
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
    handle: ffi::CUmemGenericAllocationHandle,
    size: usize,
    device: Device,
    _marker: HomeMarker<'a, H>,
}

/// Physical memory on a chosen device ([`PushedGuard::create_physical_on`]), to map into a
/// [`MultiDeviceReservation`]; borrows only its context. Released on drop (`cuMemRelease`). A
/// [`PhysicalMemory`] of the [`MultiDevice`] home.
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

/// Borrows the reservation (and the physical memory); owns no `T`; names the mode and the home.
type MappingMarker<'r, T, M, H> = PhantomData<(&'r (), fn() -> (T, M, H))>;

/// Physical memory mapped into a reservation: `len` elements of `T` at one device address.
/// Borrows the reservation and the physical memory; unmapped on drop (`cuMemUnmap`).
///
/// `M` says who may write ([`MappingMode`]): a [`ReadWrite`] mapping (the default) borrows
/// each allocation behind it exclusively, or owns it, so no other mapping shows its bytes
/// while it lives (C14); a [`ReadOnly`] one ([`ReadOnlyMapping`], [`ReadOnlyMultiDeviceMapping`]) borrows
/// them shared, so other read-only mappings may show the same bytes (even twice in one
/// mapping) but no writable one can.
///
/// `H` says where it lives ([`VmmHome`]). With the default, [`Lent`], a mapping made by
/// [`Reservation::map`] is readable and writable by the guard's (this context's) device:
/// device memory ([`DeviceMemoryMut`](crate::DeviceMemoryMut) if writable,
/// [`DeviceMemory`](crate::DeviceMemory) if read-only). A [`MultiDevice`] mapping ([`MultiDeviceMapping`],
/// [`ReadOnlyMultiDeviceMapping`]) is readable, or readable and writable, by each device of its access
/// list, at one address for all of them; a guard of a context on one of those devices lends it
/// ([`PushedGuard::lend`], [`PushedGuard::lend_mut`], [`PushedGuard::lend_read_only`]).
#[derive(Debug)]
#[doc(alias = "cuMemMap")]
pub struct Mapping<'r, T: DeviceCopy, M: MappingMode = ReadWrite, H: VmmHome = Lent> {
    home: H::Home,
    ptr: ffi::CUdeviceptr,
    len: usize,
    bytes: usize,
    stuck: &'r Stuck,
    grants: H::Grants<M>,
    _marker: MappingMarker<'r, T, M, H>,
}

/// Physical memory mapped into a reservation for reading: device memory of `len` elements of
/// `T` that no one writes while it lives. Borrows the reservation and the physical memory
/// *shared*, so other shared mappings may show the same bytes (even twice in one mapping) but
/// no writable [`Mapping`] can; unmapped on drop (`cuMemUnmap`). A [`Mapping`] of the
/// [`ReadOnly`] mode.
#[doc(alias = "cuMemMap")]
pub type ReadOnlyMapping<'r, T> = Mapping<'r, T, ReadOnly>;

/// Physical memory of one or more devices mapped into a [`MultiDeviceReservation`], readable or
/// readable and writable by each device of its access list: `len` elements of `T` at one
/// address for all of them. Borrows the reservation (and, unless it owns them, the physical
/// memory exclusively); a guard of a context on one of its devices lends it
/// ([`PushedGuard::lend`], [`PushedGuard::lend_mut`]). Unmapped on drop (`cuMemUnmap`). A
/// [`Mapping`] of the [`ReadWrite`] mode and the [`MultiDevice`] home.
#[doc(alias = "cuMemMap")]
#[doc(alias = "cuMemSetAccess")]
pub type MultiDeviceMapping<'r, T> = Mapping<'r, T, ReadWrite, MultiDevice>;

/// Physical memory mapped into a [`MultiDeviceReservation`] for reading only, by each device of its
/// list; borrows the physical memory shared, so other shared mappings may show the same bytes
/// but no writable one can. Lent by [`PushedGuard::lend_read_only`]. Unmapped on drop. A
/// [`Mapping`] of the [`ReadOnly`] mode and the [`MultiDevice`] home.
#[doc(alias = "cuMemMap")]
pub type ReadOnlyMultiDeviceMapping<'r, T> = Mapping<'r, T, ReadOnly, MultiDevice>;

// A guard-lent mapping is device memory of its guard, written only in the `ReadWrite` mode
// (C14). A multi-device mapping is not: a guard of a device it lets in lends it (`lend`, `lend_mut`,
// `lend_read_only`), after checking its access list.
impl<T: DeviceCopy, M: MappingMode> sealed::Sealed for Mapping<'_, T, M, Lent> {}
impl<T: DeviceCopy, M: MappingMode> DeviceMemory<T> for Mapping<'_, T, M, Lent> {
    #[inline]
    fn device_ptr(&self) -> ffi::CUdeviceptr {
        self.ptr
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
}
impl<T: DeviceCopy> DeviceMemoryMut<T> for Mapping<'_, T, ReadWrite, Lent> {}

static_assertions::assert_not_impl_any!(Mapping<'static, u32>: Send, Sync);
static_assertions::assert_not_impl_any!(ReadOnlyMapping<'static, u32>: Send, Sync);
static_assertions::assert_impl_all!(MultiDeviceMapping<'static, u32>: Send, Sync);
static_assertions::assert_impl_all!(ReadOnlyMultiDeviceMapping<'static, u32>: Send, Sync);
static_assertions::assert_impl_all!(Mapping<'static, u32>: DeviceMemoryMut<u32>);
static_assertions::assert_impl_all!(ReadOnlyMapping<'static, u32>: DeviceMemory<u32>);
static_assertions::assert_not_impl_any!(ReadOnlyMapping<'static, u32>: DeviceMemoryMut<u32>);
static_assertions::assert_not_impl_any!(MultiDeviceMapping<'static, u32>: DeviceMemory<u32>);
static_assertions::assert_not_impl_any!(ReadOnlyMultiDeviceMapping<'static, u32>: DeviceMemory<u32>);
static_assertions::assert_eq_size!(
    Mapping<'static, u32>,
    (ffi::CUdeviceptr, usize, usize, &'static Stuck)
);
static_assertions::assert_eq_size!(ReadOnlyMapping<'static, u32>, Mapping<'static, u32>);
static_assertions::assert_eq_size!(
    MultiDeviceMapping<'static, u32>,
    (ffi::CUcontext, Mapping<'static, u32>, Vec<(Device, Access)>)
);
static_assertions::assert_eq_size!(
    ReadOnlyMultiDeviceMapping<'static, u32>,
    (ffi::CUcontext, Mapping<'static, u32>, Vec<Device>)
);
static_assertions::assert_impl_all!(Access: Send, Sync);
static_assertions::assert_impl_all!(Lent: Send, Sync);
static_assertions::assert_impl_all!(MultiDevice: Send, Sync);
static_assertions::assert_impl_all!(ReadWrite: Send, Sync);
static_assertions::assert_impl_all!(ReadOnly: Send, Sync);

// SAFETY: (for the six impls below, the values of the `MultiDevice` home; guard-lent ones stay `!Send`
// and `!Sync`, their home being a thread marker) VMM address ranges, physical allocations and
// mappings belong to the process, not to a thread or a context (CUDA Virtual Memory
// Management); each value only holds the handle or address and the context it pushes for its
// own calls (a context may be current on several threads at once), and a mapping a reference
// to its reservation's `Stuck` flag, an atomic, and its access list, plain data. It offers no
// access to the memory except through a guard of the thread that lends it (`lend`, `lend_mut`,
// `lend_read_only`), which checks the device and ties the view to itself; `&self` methods read
// plain fields only. Dropping one on any thread pushes its context there.
unsafe impl Send for MultiDeviceReservation<'_> {}
// SAFETY: as above.
unsafe impl Sync for MultiDeviceReservation<'_> {}
// SAFETY: as above.
unsafe impl Send for MultiDevicePhysicalMemory<'_> {}
// SAFETY: as above.
unsafe impl Sync for MultiDevicePhysicalMemory<'_> {}
// SAFETY: as above, for either mode; `T` is plain data, never read or written on the host
// through this value.
unsafe impl<T: DeviceCopy, M: MappingMode> Send for Mapping<'_, T, M, MultiDevice> {}
// SAFETY: as above: `&Mapping` of the multi-device home lends read-only views only (`lend` of a
// writable mapping, `lend_read_only` of a read-only one); a writable view needs `&mut` of a
// writable mapping (`lend_mut`).
unsafe impl<T: DeviceCopy, M: MappingMode> Sync for Mapping<'_, T, M, MultiDevice> {}

fn device_prop(device: crate::driver::Device) -> ffi::CUmemAllocationProp {
    exportable_prop(device, ffi::CU_MEM_HANDLE_TYPE_NONE)
}

/// The properties of pinned memory on `device` that can be exported to the OS handles
/// `requested` (a `CUmemAllocationHandleType` mask; none for `CU_MEM_HANDLE_TYPE_NONE`).
pub(super) fn exportable_prop(
    device: crate::driver::Device,
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
            home: PhantomData,
            base,
            size,
            stuck: Stuck::default(),
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
        self.create_physical_as(size, ffi::CU_MEM_HANDLE_TYPE_NONE)
    }

    /// `cuMemCreate` of `size` bytes on this context's device that can be exported to the OS
    /// handles `requested` (a `CUmemAllocationHandleType` mask).
    pub(super) fn create_physical_as(
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
    pub(super) unsafe fn lent(
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
    pub(super) fn set_device(&mut self, device: Device) {
        self.device = device;
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

    /// The mapping of `bytes` at `ptr`, just mapped in this reservation, letting in `grants`.
    fn mapping<T: DeviceCopy, M: MappingMode>(
        &self,
        ptr: ffi::CUdeviceptr,
        bytes: usize,
        grants: H::Grants<M>,
    ) -> Mapping<'_, T, M, H> {
        Mapping {
            home: self.home,
            ptr,
            len: bytes / size_of::<T>().max(1),
            bytes,
            stuck: &self.stuck,
            grants,
            _marker: PhantomData,
        }
    }

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
        let bytes = self.map_raw(guard, pieces.iter().copied())?;
        Ok(self.mapping(self.base, bytes, ()))
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
        let bytes = self.map_raw(guard, physical.iter().map(|p| (p.handle, p.size)))?;
        Ok(self.mapping(self.base, bytes, ()))
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
        let bytes = self.map_raw(guard, physical.iter().map(|p| (p.handle, p.size)))?;
        self.release_mapped(physical, self.base, bytes)?;
        Ok(self.mapping(self.base, bytes, ()))
    }

    /// Maps `(handle, size)` one after the other from the start of the reservation and grants
    /// `guard`'s device access; returns the bytes mapped. The callers' borrows of the physical
    /// memory say who may write it.
    fn map_raw<K: ContextKind>(
        &self,
        guard: &PushedGuard<'_, '_, K>,
        physical: impl Iterator<Item = (ffi::CUmemGenericAllocationHandle, usize)> + Clone,
    ) -> Result<usize> {
        let access = [access_desc(guard.device()?, Access::ReadWrite)];
        map_pieces(self.base, self.size, 0, physical, &access, &self.stuck).map(|(_, bytes)| bytes)
    }
}

/// What a device may do with mapped memory (`CUmemAccess_flags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[doc(alias = "CUmemAccess_flags")]
pub enum Access {
    /// Read only (`CU_MEM_ACCESS_FLAGS_PROT_READ`).
    Read,
    /// Read and write (`CU_MEM_ACCESS_FLAGS_PROT_READWRITE`).
    ReadWrite,
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

/// Maps `(handle, size)` one after the other from `base + offset` of a reservation of `size`
/// bytes at `base`, then grants `access`; returns the first address and the bytes mapped. On an
/// error nothing stays mapped (or, if the clean-up's unmap failed too, the reservation is
/// `stuck`).
fn map_pieces(
    base: ffi::CUdeviceptr,
    size: usize,
    offset: usize,
    physical: impl Iterator<Item = (ffi::CUmemGenericAllocationHandle, usize)> + Clone,
    access: &[ffi::CUmemAccessDesc],
    stuck: &Stuck,
) -> Result<(ffi::CUdeviceptr, usize)> {
    stuck.check()?;
    let bytes = physical
        .clone()
        .try_fold(0usize, |sum, (_, size)| sum.checked_add(size))
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
    let mut done = 0usize;
    for (handle, size) in physical {
        let at = start + done as u64;
        // SAFETY: `at..at + size` lies in the live reservation (checked above) and is not
        // mapped (the driver refuses overlaps); `handle` is live physical memory, borrowed or
        // owned by the caller for the mapping's life.
        let r = unsafe { ffi::cuMemMap(at, size, 0, handle, 0) }.result();
        if let Err(e) = r {
            stuck.unmap(start, done);
            return Err(e);
        }
        done += size;
    }
    // SAFETY: the range was just mapped; `access.len()` descriptors.
    let granted = unsafe { ffi::cuMemSetAccess(start, bytes, access.as_ptr(), access.len()) };
    if let Err(e) = granted.result() {
        stuck.unmap(start, bytes);
        return Err(e);
    }
    Ok((start, bytes))
}

/// `cuMemRelease` of each handle, once; the first error.
fn release_all(handles: &[ffi::CUmemGenericAllocationHandle]) -> Result<()> {
    let mut first = Ok(());
    for &h in handles {
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

/// Unmaps `ptr..ptr + bytes`; false (the error recorded as a drop error) if the driver failed.
#[must_use]
fn unmap(ptr: ffi::CUdeviceptr, bytes: usize) -> bool {
    if bytes == 0 {
        return true;
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
fn unmap_in<H: VmmHome>(home: H::Home, ptr: ffi::CUdeviceptr, bytes: usize, stuck: &Stuck) {
    let mut ran = false;
    // SAFETY: `in_home` requires a live home and an `f` that leaves the stack as it was:
    // - the home is live: the mapping borrows its reservation, which borrows its guard (whose
    //   context is current) or its context;
    // - unmapping pushes and pops nothing.
    let pushed = unsafe {
        H::in_home(home, || {
            ran = true;
            // (A failed unmap names the mapping left behind itself.)
            let _ = stuck.unmap(ptr, bytes);
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

impl<T: DeviceCopy, M: MappingMode, H: VmmHome> Drop for Mapping<'_, T, M, H> {
    fn drop(&mut self) {
        unmap_in::<H>(self.home, self.ptr, self.bytes, self.stuck);
    }
}

impl<H: VmmHome> Drop for Reservation<'_, H> {
    fn drop(&mut self) {
        if self.stuck.is_set() {
            // Still mapped: the failed unmap was recorded; freeing would pull the range.
            left_behind(Object::Reservation, self.base);
            return;
        }
        let (base, size) = (self.base, self.size);
        let mut freed = false;
        let free = || {
            // SAFETY: reserved by this value, freed once; no mapping is alive (mappings borrow
            // it) and none is left over (not stuck).
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

// ---------------------------------------------------------------------------------------------
// Across devices: address ranges and physical memory that borrow only a context.

/// Runs `f` with `ctx` pushed on this thread, returning its value.
///
/// # Safety
///
/// `ctx` is a live context and `f` leaves the stack as it found it.
unsafe fn in_context<R>(ctx: ffi::CUcontext, f: impl FnOnce() -> Result<R>) -> Result<R> {
    let mut out = None;
    // SAFETY: the caller's.
    unsafe {
        with_raw_current(ctx, || {
            out = Some(f()?);
            Ok(())
        })
    }?;
    out.ok_or_else(|| Error::from_code(ffi::CUresult::CUDA_ERROR_UNKNOWN))
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
    pub fn reserve_multi_device(&self, size: usize) -> Result<MultiDeviceReservation<'ctx>> {
        let mut base = 0;
        // SAFETY: valid out-pointer; the driver checks the size; this guard's context is current.
        unsafe { ffi::cuMemAddressReserve(&raw mut base, size, 0, 0, 0) }.result()?;
        Ok(MultiDeviceReservation {
            home: self.as_raw(),
            base,
            size,
            stuck: Stuck::default(),
            _marker: PhantomData,
        })
    }

    /// `cuMemCreate`—Creates `size` bytes of physical memory on `device` (any device of this
    /// driver; a multiple of [`granularity_on`](Self::granularity_on) that device), to map into
    /// a [`MultiDeviceReservation`]. It borrows only this guard's context.
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

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemGetAllocationGranularity`—The granularity (bytes) of physical memory on `device`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemGetAllocationGranularity")]
    pub fn granularity_on(&self, device: Device) -> Result<usize> {
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

    /// Lends a [`MultiDeviceMapping`] to this guard for reading, as device memory of this context.
    /// Checked (one `cuCtxGetDevice`): this guard's device must be in the mapping's access
    /// list. The view borrows the guard and the mapping.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::PeerAccessNotEnabled`] if this guard's device may not access the mapping.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetDevice")]
    pub fn lend<'a, T: DeviceCopy>(
        &'a self,
        mapping: &'a MultiDeviceMapping<'_, T>,
    ) -> Result<DeviceView<'a, T>> {
        self.check_access(mapping.grants.iter().map(|(d, _)| *d), false)?;
        // SAFETY: the mapping is live for 'a and this guard's device may read it (checked);
        // nothing writes it meanwhile (writing needs `&mut` of the mapping); the view cannot
        // outlive this guard.
        Ok(unsafe { DeviceView::from_raw_parts(mapping.ptr, mapping.len) })
    }

    /// Lends a [`MultiDeviceMapping`] to this guard for reading and writing, as device memory of this
    /// context. Checked: this guard's device must have [`Access::ReadWrite`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::PeerAccessNotEnabled`] if this guard's device may not write the mapping.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetDevice")]
    pub fn lend_mut<'a, T: DeviceCopy>(
        &'a self,
        mapping: &'a mut MultiDeviceMapping<'_, T>,
    ) -> Result<DeviceViewMut<'a, T>> {
        let writers = mapping
            .grants
            .iter()
            .filter(|(_, a)| *a == Access::ReadWrite)
            .map(|(d, _)| *d);
        self.check_access(writers, true)?;
        // SAFETY: the mapping is live for 'a, this guard's device may write it (checked), and
        // it is borrowed exclusively (no other view of it exists; its physical memory is
        // borrowed exclusively or owned by it); the view cannot outlive this guard.
        Ok(unsafe { DeviceViewMut::from_raw_parts(mapping.ptr, mapping.len) })
    }

    /// Lends a [`ReadOnlyMultiDeviceMapping`] to this guard for reading. Checked as [`lend`](Self::lend).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::PeerAccessNotEnabled`] if this guard's device may not read the mapping.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetDevice")]
    pub fn lend_read_only<'a, T: DeviceCopy>(
        &'a self,
        mapping: &'a ReadOnlyMultiDeviceMapping<'_, T>,
    ) -> Result<DeviceView<'a, T>> {
        self.check_access(mapping.grants.iter().copied(), false)?;
        // SAFETY: as in `lend`: no writable mapping of this physical memory exists while the
        // shared one lives.
        Ok(unsafe { DeviceView::from_raw_parts(mapping.ptr, mapping.len) })
    }

    fn check_access(&self, mut allowed: impl Iterator<Item = Device>, write: bool) -> Result<()> {
        let me = self.device()?;
        if allowed.any(|d| d == me) {
            return Ok(());
        }
        let what = if write { "write" } else { "read" };
        Err(
            Error::from_code(ffi::CUresult::CUDA_ERROR_PEER_ACCESS_NOT_ENABLED).with_detail(
                format!("the mapping does not let device {} {what} it", me.as_raw()),
            ),
        )
    }
}

impl MultiDeviceReservation<'_> {
    /// `cuMemMap`, `cuMemSetAccess`—Maps `physical` one after the other from `offset` bytes
    /// into the reservation and grants each device of `access` its access to all of it: one
    /// range holding as many `T` as fit. Several mappings may lie side by side in one
    /// reservation (the driver refuses overlaps).
    ///
    /// Each allocation is borrowed exclusively while the mapping lives, as for
    /// [`Reservation::map`] (C14). Every device of `access` must be able to reach every
    /// allocation: its own, or a peer's it can access (`cuDeviceCanAccessPeer`), checked first.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] if the allocations do not fit, `InvalidValue` for an empty
    /// access list, [`ErrorKind::PeerAccessUnsupported`] if a device cannot reach an
    /// allocation's device (no mapping call made); driver errors (sizes not multiples of the
    /// granularity, a range mapped already). On an error nothing stays mapped.
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
        Ok(self.mapping(ptr, bytes, access.to_vec()))
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
        Ok(self.mapping(ptr, bytes, access.to_vec()))
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
        Ok(self.mapping(ptr, bytes, devices.to_vec()))
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
            return Err(Error::from_code(ffi::CUresult::CUDA_ERROR_INVALID_VALUE)
                .with_detail("a mapping with no device to access it"));
        }
        for &(device, _) in access {
            for &(_, _, home) in pieces {
                if device != home && !device.can_access_peer(home)? {
                    return Err(Error::from_code(
                        ffi::CUresult::CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
                    )
                    .with_detail(format!(
                        "device {} cannot access memory of device {}",
                        device.as_raw(),
                        home.as_raw()
                    )));
                }
            }
        }
        let descs: Vec<_> = access.iter().map(|&(d, a)| access_desc(d, a)).collect();
        let handles = pieces.iter().map(|&(h, size, _)| (h, size));
        let mut mapped = None;
        let total: usize = pieces.iter().map(|&(_, size, _)| size).sum();
        // SAFETY: the reservation's context is live (borrowed for 'ctx); mapping leaves the
        // stack as it was.
        let r = unsafe {
            in_context(self.home, || {
                let m = map_pieces(self.base, self.size, offset, handles, &descs, &self.stuck)?;
                mapped = Some(m.0);
                Ok(m)
            })
        };
        if let (Err(_), Some(start)) = (&r, mapped) {
            // Mapped, but the context could not be popped: no value owns the range now, so
            // it stays mapped and the reservation is stuck.
            self.stuck.set();
            left_behind_range(Object::Mapping, start, total as u64);
        }
        r
    }
}

impl<T: DeviceCopy, M: MappingMode> Mapping<'_, T, M, MultiDevice> {
    /// The device address of the first element, the same on every device of the mapping.
    pub fn device_ptr(&self) -> ffi::CUdeviceptr {
        self.ptr
    }
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The bytes mapped.
    pub fn byte_len(&self) -> usize {
        self.bytes
    }
}

impl<T: DeviceCopy> MultiDeviceMapping<'_, T> {
    /// Which devices may read or write it.
    pub fn access(&self) -> &[(Device, Access)] {
        &self.grants
    }
}

impl<T: DeviceCopy> ReadOnlyMultiDeviceMapping<'_, T> {
    /// The devices that may read it.
    pub fn devices(&self) -> &[Device] {
        &self.grants
    }
}
