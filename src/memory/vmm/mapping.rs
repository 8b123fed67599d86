//! Mappings of physical memory into a reservation (`cuMemUnmap` on drop): one type for both
//! modes and both homes, device memory of its guard when lent by one, lent by a guard of a device
//! it lets in when made for several devices ([`PushedGuard::lend`], [`PushedGuard::lend_mut`],
//! [`PushedGuard::lend_read_only`]). The calls that make mappings are in `map.rs`.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::driver::Device;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::vmm::markers::{
    Access, Lent, MappingMode, MultiDevice, ReadOnly, ReadWrite, VmmHome,
};
use crate::memory::vmm::reservation::{Reservation, Stuck, unmap_in};
use crate::memory::{
    DeviceMemory, DeviceMemoryMut, DeviceView, DeviceViewMut, device_memory, sealed,
};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

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
/// [`Reservation::map`] is readable and writable by the guard's (this context's) device: device
/// memory ([`DeviceMemoryMut`] if writable, [`DeviceMemory`] if read-only). A [`MultiDevice`]
/// mapping ([`MultiDeviceMapping`], [`ReadOnlyMultiDeviceMapping`]) is readable, or readable and
/// writable, by each device of its access list, at one address for all of them; a guard of a
/// context on one of those devices lends it ([`PushedGuard::lend`], [`PushedGuard::lend_mut`],
/// [`PushedGuard::lend_read_only`]).
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

/// Physical memory of one or more devices mapped into a
/// [`MultiDeviceReservation`](crate::MultiDeviceReservation), readable or readable and writable by
/// each device of its access list: `len` elements of `T` at one address for all of them. Borrows
/// the reservation (and, unless it owns them, the physical memory exclusively); a guard of a
/// context on one of its devices lends it ([`PushedGuard::lend`], [`PushedGuard::lend_mut`]).
/// Unmapped on drop (`cuMemUnmap`). A [`Mapping`] of the [`ReadWrite`] mode and the [`MultiDevice`]
/// home.
#[doc(alias = "cuMemMap")]
#[doc(alias = "cuMemSetAccess")]
pub type MultiDeviceMapping<'r, T> = Mapping<'r, T, ReadWrite, MultiDevice>;

/// Physical memory mapped into a [`MultiDeviceReservation`](crate::MultiDeviceReservation) for
/// reading only, by each device of its list; borrows the physical memory shared, so other shared
/// mappings may show the same bytes but no writable one can. Lent by
/// [`PushedGuard::lend_read_only`]. Unmapped on drop. A [`Mapping`] of the [`ReadOnly`] mode and
/// the [`MultiDevice`] home.
#[doc(alias = "cuMemMap")]
pub type ReadOnlyMultiDeviceMapping<'r, T> = Mapping<'r, T, ReadOnly, MultiDevice>;

// A guard-lent mapping is device memory of its guard, written only in the `ReadWrite` mode
// (C14). A multi-device mapping is not: a guard of a device it lets in lends it (`lend`, `lend_mut`,
// `lend_read_only`), after checking its access list.
device_memory!([M: MappingMode] Mapping<'_, T, M, Lent>);
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

// SAFETY: (the multi-device home only, either mode; guard-lent mappings stay `!Send` and
// `!Sync`, their home being a thread marker) VMM mappings belong to the process, not to a thread
// or a context (CUDA Virtual Memory Management); the value only holds the mapped range, the
// context it pushes for its own calls (a context may be current on several threads at once), a
// reference to its reservation's `Stuck` record (an atomic and a mutex), and its access list, plain data. It
// offers no access to the memory except through a guard of the thread that lends it (`lend`,
// `lend_mut`, `lend_read_only`), which checks the device and ties the view to itself; `&self`
// methods read plain fields only. `T` is plain data, never read or written on the host through
// this value. Dropping one on any thread pushes its context there.
unsafe impl<T: DeviceCopy, M: MappingMode> Send for Mapping<'_, T, M, MultiDevice> {}
// SAFETY: as above: `&Mapping` of the multi-device home lends read-only views only (`lend` of a
// writable mapping, `lend_read_only` of a read-only one); a writable view needs `&mut` of a
// writable mapping (`lend_mut`).
unsafe impl<T: DeviceCopy, M: MappingMode> Sync for Mapping<'_, T, M, MultiDevice> {}

impl<'r, T: DeviceCopy, M: MappingMode, H: VmmHome> Mapping<'r, T, M, H> {
    /// The mapping of `bytes` at `ptr`, just mapped in `reservation`, letting in `grants`
    /// (unmapped when it drops).
    pub(super) fn new(
        reservation: &'r Reservation<'_, H>,
        ptr: ffi::CUdeviceptr,
        bytes: usize,
        grants: H::Grants<M>,
    ) -> Self {
        Mapping {
            home: reservation.home,
            ptr,
            len: bytes / size_of::<T>().max(1),
            bytes,
            stuck: &reservation.stuck,
            grants,
            _marker: PhantomData,
        }
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

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// Lends a [`MultiDeviceMapping`] to this guard for reading, as device memory of this context.
    /// Checked (one `cuCtxGetDevice`): this guard's device must be in the mapping's access
    /// list. The view borrows the guard and the mapping.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::PeerAccessNotEnabled`](crate::ErrorKind::PeerAccessNotEnabled) if this guard's
    /// device may not access the mapping.
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
    /// [`ErrorKind::PeerAccessNotEnabled`](crate::ErrorKind::PeerAccessNotEnabled) if this guard's
    /// device may not write the mapping.
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
    /// [`ErrorKind::PeerAccessNotEnabled`](crate::ErrorKind::PeerAccessNotEnabled) if this guard's
    /// device may not read the mapping.
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
            Error::from_kind(ErrorKind::PeerAccessNotEnabled).with_detail(format!(
                "the mapping does not let device {} {what} it",
                me.as_raw()
            )),
        )
    }
}

impl<T: DeviceCopy, M: MappingMode, H: VmmHome> Drop for Mapping<'_, T, M, H> {
    fn drop(&mut self) {
        unmap_in::<H>(self.home, self.ptr, self.bytes, self.stuck);
    }
}
