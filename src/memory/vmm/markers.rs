//! The type parameters of the VMM types, sealed zero-sized markers: where a value lives
//! ([`VmmHome`]: [`Lent`] by a guard, or [`MultiDevice`], borrowing only a context, with the
//! push such a value makes for its own driver calls), what a mapping lets its devices do
//! ([`MappingMode`]: [`ReadWrite`] or [`ReadOnly`]), and the [`Access`] a multi-device mapping
//! grants each device.

use crate::context::raw::with_raw_current;
use crate::driver::Device;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use core::marker::PhantomData;

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

/// Where a [`Reservation`](crate::Reservation), [`PhysicalMemory`](crate::PhysicalMemory) or
/// [`Mapping`](crate::Mapping) lives: [`Lent`] by a guard (the default), or [`MultiDevice`],
/// borrowing only a [`Context`](crate::Context). Sealed.
pub trait VmmHome: vmm_sealed::Home {}

/// [`VmmHome`] of a value lent by a guard ([`PushedGuard::reserve`](crate::PushedGuard::reserve),
/// [`PushedGuard::create_physical`](crate::PushedGuard::create_physical),
/// [`Reservation::map`](crate::Reservation::map)): it borrows the guard, stays on its thread
/// (`!Send`, `!Sync`), and makes its driver calls (and its drop's) under the guard's context,
/// current while the value lives (nothing can be pushed over a borrowed guard). A writable or
/// shared mapping of this home is [`DeviceMemory`](crate::DeviceMemory) of the guard. Never
/// constructed.
#[derive(Debug)]
pub enum Lent {}

/// [`VmmHome`] of a value for several devices
/// ([`PushedGuard::reserve_multi_device`](crate::PushedGuard::reserve_multi_device),
/// [`PushedGuard::create_physical_on`](crate::PushedGuard::create_physical_on),
/// [`MultiDeviceReservation::map`](crate::MultiDeviceReservation#method.map)): it borrows only the
/// [`Context`](crate::Context) and pushes it around its own driver calls, so it outlives guards and
/// nested pushes and is `Send` and `Sync`; a guard of a device it lets in lends a mapping of this
/// home ([`PushedGuard::lend`](crate::PushedGuard::lend),
/// [`PushedGuard::lend_mut`](crate::PushedGuard::lend_mut),
/// [`PushedGuard::lend_read_only`](crate::PushedGuard::lend_read_only)). Never constructed.
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

/// What a [`Mapping`](crate::Mapping) lets its devices do: [`ReadWrite`] (the default) or
/// [`ReadOnly`]. Sealed.
pub trait MappingMode: vmm_sealed::Mode {}

/// [`MappingMode`] of a writable mapping ([`Reservation::map`](crate::Reservation::map),
/// [`MultiDeviceReservation::map`](crate::MultiDeviceReservation#method.map), the `map_owned`s): it
/// borrows each allocation behind it exclusively (or owns it), so no other mapping shows its bytes
/// (C14); the guard-lent one is [`DeviceMemoryMut`](crate::DeviceMemoryMut), the multi-device one
/// is lent writable by [`PushedGuard::lend_mut`](crate::PushedGuard::lend_mut). Never constructed.
#[derive(Debug)]
pub enum ReadWrite {}

/// [`MappingMode`] of a read-only mapping
/// ([`Reservation::map_read_only`](crate::Reservation::map_read_only),
/// [`MultiDeviceReservation::map_read_only`](crate::MultiDeviceReservation#method.map_read_only)):
/// it borrows its allocations shared, so other read-only mappings may show the same bytes (even
/// twice in one), but no writable one can while it lives; device memory that is only read. Never
/// constructed.
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

/// What a device may do with mapped memory (`CUmemAccess_flags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[doc(alias = "CUmemAccess_flags")]
pub enum Access {
    /// Read only (`CU_MEM_ACCESS_FLAGS_PROT_READ`).
    Read,
    /// Read and write (`CU_MEM_ACCESS_FLAGS_PROT_READWRITE`).
    ReadWrite,
}

static_assertions::assert_impl_all!(Access: Send, Sync);
static_assertions::assert_impl_all!(Lent: Send, Sync);
static_assertions::assert_impl_all!(MultiDevice: Send, Sync);
static_assertions::assert_impl_all!(ReadWrite: Send, Sync);
static_assertions::assert_impl_all!(ReadOnly: Send, Sync);

/// Borrows the guard or the context for `'a`, which it must not outlive; names the home.
pub(super) type HomeMarker<'a, H> = PhantomData<(&'a (), fn() -> H)>;

/// Runs `f` with `ctx` pushed on this thread, returning its value: where a [`MultiDevice`]
/// value makes its driver calls.
///
/// # Safety
///
/// `ctx` is a live context and `f` leaves the stack as it found it.
pub(super) unsafe fn in_context<R>(
    ctx: ffi::CUcontext,
    f: impl FnOnce() -> Result<R>,
) -> Result<R> {
    let mut out = None;
    // SAFETY: the caller's.
    unsafe {
        with_raw_current(ctx, || {
            out = Some(f()?);
            Ok(())
        })
    }?;
    out.ok_or_else(|| Error::from_kind(ErrorKind::Unknown))
}
