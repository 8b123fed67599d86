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
//! [`MultiDevicePhysicalMemory`] and [`MultiDeviceMapping`] for that borrow only a
//! [`Context`](crate::Context) (as a [`ParkedBuffer`](crate::ParkedBuffer) does, and push it for
//! their own driver calls), so they outlive guards and nested pushes; a guard of any context on a
//! device the mapping lets in lends it as ordinary device memory
//! ([`PushedGuard::lend`](crate::PushedGuard::lend),
//! [`PushedGuard::lend_mut`](crate::PushedGuard::lend_mut)), checked against the mapping's access
//! list. The same borrow rules hold: a writable mapping borrows its allocations exclusively, a
//! [`ReadOnlyMultiDeviceMapping`] shared, and a mapping made with
//! [`MultiDeviceReservation::map_owned`](MultiDeviceReservation#method.map_owned) (or
//! [`Reservation::map_owned`]) takes its allocations and releases them right after mapping them, as
//! C programs do (`cuMemRelease`: the mapping keeps the memory alive until it is unmapped).
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
//!
//! **Files.** The type parameters and [`Access`] are in `markers.rs`; each kind has its file,
//! both homes in it, with the guard's `impl PushedGuard` methods that make or lend it:
//! `reservation.rs` (with the flag a reservation keeps when an unmap failed), `physical.rs`,
//! `mapping.rs` (and lending multi-device mappings); `map.rs` maps physical memory into a
//! reservation. They use one another in that order, never back.

pub(crate) mod map;
pub(crate) mod mapping;
pub(crate) mod markers;
pub(crate) mod physical;
pub(crate) mod reservation;

pub use mapping::{Mapping, MultiDeviceMapping, ReadOnlyMapping, ReadOnlyMultiDeviceMapping};
pub use markers::{Access, Lent, MappingMode, MultiDevice, ReadOnly, ReadWrite, VmmHome};
pub use physical::{MultiDevicePhysicalMemory, PhysicalMemory};
pub use reservation::{MultiDeviceReservation, Reservation};
// For `memory/share.rs` (Linux only), which makes its exportable physical memory with the same
// properties.
#[cfg(target_os = "linux")]
pub(in crate::memory) use physical::exportable_prop;
