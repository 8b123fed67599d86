//! Imported memory and what is mapped onto it: [`ExternalMemory`], [`MappedBuffer`], and
//! mipmapped arrays mapped onto it.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::left_behind::Object;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::{DeviceMemory, DeviceMemoryMut, device_memory, sealed};
use crate::texture::array::{ArrayElement, array_descriptor_with};
use crate::texture::mipmap::sealed::Sealed as MipmappedLevelsSealed;
use crate::texture::mipmap::{MipmappedArray, MipmappedLevels, check_shape_with, packed_bytes};
use crate::vocabulary::plain::DeviceCopy;
use core::cell::Cell;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd};

/// What kind of file descriptor [`PushedGuard::import_memory`] imports
/// (`CUexternalMemoryHandleType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[doc(alias = "CUexternalMemoryHandleType")]
pub enum MemoryHandle {
    /// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD`: an opaque file descriptor, e.g. Vulkan's
    /// `vkGetMemoryFdKHR` with `VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT`.
    OpaqueFd,
    /// The same, of a dedicated allocation (`CUDA_EXTERNAL_MEMORY_DEDICATED`: Vulkan memory
    /// allocated with `VkMemoryDedicatedAllocateInfo`).
    OpaqueFdDedicated,
    /// `CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD`: a Linux `dma_buf`. NVIDIA documents its
    /// import for Tegra platforms; other drivers refuse it, and the error says so. No mipmapped
    /// array can be mapped onto it.
    DmaBuf,
}

impl MemoryHandle {
    fn raw(self) -> (ffi::CUexternalMemoryHandleType, core::ffi::c_uint) {
        match self {
            Self::OpaqueFd => (ffi::CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD, 0),
            Self::OpaqueFdDedicated => (
                ffi::CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD,
                ffi::CUDA_EXTERNAL_MEMORY_DEDICATED,
            ),
            Self::DmaBuf => (ffi::CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD, 0),
        }
    }
}

bitflags::bitflags! {
    /// How a mipmapped array is mapped onto [`ExternalMemory`]
    /// ([`ExternalMemory::map_mipmapped_array_with`]): the `CUDA_ARRAY3D_*` flags of its
    /// descriptor that custack offers. They must match how the other API uses the image.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    #[doc(alias = "CUDA_ARRAY3D_SURFACE_LDST")]
    #[doc(alias = "CUDA_ARRAY3D_COLOR_ATTACHMENT")]
    #[doc(alias = "CUDA_ARRAY3D_LAYERED")]
    pub struct MappedArrayFlags: u32 {
        /// `CUDA_ARRAY3D_SURFACE_LDST`: its levels can be bound as surfaces
        /// ([`PushedGuard::surface_level`]), e.g. a Vulkan image with storage usage. Without
        /// it, custack refuses a surface over the array.
        const SURFACE_LDST = ffi::CUDA_ARRAY3D_SURFACE_LDST;
        /// `CUDA_ARRAY3D_COLOR_ATTACHMENT`: the other API binds the image as a color target
        /// (a Vulkan image with color-attachment usage); the driver documents the flag as
        /// required for such an image.
        const COLOR_ATTACHMENT = ffi::CUDA_ARRAY3D_COLOR_ATTACHMENT;
        /// `CUDA_ARRAY3D_LAYERED`: a layered image (a Vulkan image of several array layers):
        /// the extent's depth is its number of layers, each a 2D image (1D for a height of 1),
        /// and every level keeps all of them.
        const LAYERED = ffi::CUDA_ARRAY3D_LAYERED;
    }
}

/// Memory another API allocated and exported, imported into the current context
/// (`CUexternalMemory`), lent by a guard; destroyed on drop (`cuDestroyExternalMemory`).
///
/// Map a buffer onto it with [`map_buffer`](Self::map_buffer), or a mipmapped array with
/// [`map_mipmapped_array`](Self::map_mipmapped_array): either borrows the import exclusively,
/// so what is mapped is freed before the import is destroyed. A mapping leaked instead
/// (`mem::forget`) or whose release failed is never freed: the import then leaks too, left
/// behind on drop rather than destroyed under that mapping (C30).
#[derive(Debug)]
#[doc(alias = "CUexternalMemory")]
pub struct ExternalMemory<'g> {
    raw: ffi::CUexternalMemory,
    size: u64,
    handle: MemoryHandle,
    // The buffers and arrays mapped onto it that the driver may still hold: counted up when one
    // is mapped, down only when its release succeeds. A mapping whose release failed or was
    // refused, or one leaked (`mem::forget` of a `MappedBuffer` or `MappedArray`), keeps it
    // above 0, and the import is then left
    // behind, never destroyed under it (leaking the child leaks the parent).
    mappings: Cell<usize>,
    _marker: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(ExternalMemory<'static>: Send, Sync);

/// A buffer mapped onto [`ExternalMemory`] (`cuExternalMemoryGetMappedBuffer`): `len` elements
/// of `T`, device memory of the current context like a [`DeviceBuffer`](crate::DeviceBuffer)'s
/// ([`DeviceMemory`], [`DeviceMemoryMut`]); freed on drop (`cuMemFree`), before its import.
#[derive(Debug)]
#[doc(alias = "cuExternalMemoryGetMappedBuffer")]
pub struct MappedBuffer<'m, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    // The import's count of live mappings, counted down once this buffer is freed.
    mappings: &'m Cell<usize>,
    _marker: PhantomData<(&'m mut (), *const T)>,
}

/// A mipmapped array mapped onto [`ExternalMemory`]
/// (`cuExternalMemoryGetMappedMipmappedArray`): read as a [`MipmappedArray`] (it dereferences
/// to one, shared: textures take it as they take any), its levels written through
/// [`copy_level_from_host`](Self::copy_level_from_host), a surface
/// ([`PushedGuard::surface_level`]) or a scope's [`bind_level`](crate::StreamScope::bind_level),
/// which borrow it exclusively ([`MipmappedLevels`]); destroyed on drop
/// (`cuMipmappedArrayDestroy`), before its import. It never lends `&mut MipmappedArray`: safe
/// code could swap the mapped array out, and the import would then never learn that its
/// mapping was released.
#[derive(Debug)]
#[doc(alias = "cuExternalMemoryGetMappedMipmappedArray")]
pub struct MappedArray<'m, T: ArrayElement> {
    // Never lent mutably (no `DerefMut`), so it is the array the driver mapped until the drop.
    array: ManuallyDrop<MipmappedArray<'m, T>>,
    // The import's count of live mappings, counted down once the mapped array is destroyed.
    mappings: &'m Cell<usize>,
}

impl<'m, T: ArrayElement> core::ops::Deref for MappedArray<'m, T> {
    type Target = MipmappedArray<'m, T>;
    fn deref(&self) -> &Self::Target {
        &self.array
    }
}

impl<T: ArrayElement> MipmappedLevelsSealed for MappedArray<'_, T> {}

impl<T: ArrayElement> MipmappedLevels<T> for MappedArray<'_, T> {
    fn mipmapped(&self) -> &MipmappedArray<'_, T> {
        &self.array
    }
}

impl<T: ArrayElement> MappedArray<'_, T> {
    /// `cuMemcpy3D`—Copies packed host elements into level `level`, as
    /// [`MipmappedArray::copy_level_from_host`] does.
    ///
    /// # Errors
    ///
    /// As [`MipmappedArray::copy_level_from_host`]'s.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy3D")]
    pub fn copy_level_from_host(&mut self, level: u32, src: &[T]) -> Result<()> {
        self.array.copy_level_from_host(level, src)
    }
}

device_memory!(MappedBuffer, mut_);
static_assertions::assert_not_impl_any!(MappedBuffer<'static, u8>: Send, Sync);
// A mapped array is destroyed in its import's context and counts itself released in the import
// (a `Cell`): neither sent nor shared across threads.
static_assertions::assert_not_impl_any!(MappedArray<'static, f32>: Send, Sync);

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuImportExternalMemory`—Imports `size` bytes of memory another API exported as `fd`
    /// into this guard's context.
    ///
    /// The descriptor is moved in: the driver owns it once the import succeeds; if it fails,
    /// custack closes it (it is never closed twice, and never leaks).
    ///
    /// # Safety
    ///
    /// What no type can see across APIs: `fd` names memory of at least `size` bytes (for
    /// Vulkan, the `VkMemoryRequirements::size` of the allocation exported, which the driver
    /// trusts), exported as `handle` says, of this guard's device; and the other API does not
    /// read or write the bytes a [`MappedBuffer`] or mipmapped array of this import reaches
    /// while custack may (a scope's work, a copy), unless that is ordered by a semaphore
    /// ([`StreamScope::wait_semaphore`](crate::StreamScope::wait_semaphore)) or by waiting on
    /// the other API's side: a mapped buffer is exclusive device memory (C14), as an
    /// [`IpcBuffer`](crate::IpcBuffer) is. Nor may the same memory be imported twice while an
    /// import of it lives with a mapping over bytes another mapping reaches.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for a `size` of zero (no driver call; `fd` closed); the
    /// driver's error (e.g. `fd` is no such memory, or of another device), with `fd` closed.
    /// A [`MemoryHandle::DmaBuf`] the driver does not accept comes back with the driver's kind
    /// and a detail that says so.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, Driver, MemoryHandle, Stack};
    /// use std::os::fd::OwnedFd;
    /// # fn exported_by_vulkan() -> OwnedFd { unimplemented!() }
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let fd: OwnedFd = exported_by_vulkan(); // vkGetMemoryFdKHR, 4 KiB
    /// // SAFETY: the fd is a 4 KiB opaque-fd export of this device's memory, which Vulkan
    /// // touches only after waiting on a semaphore CUDA signals.
    /// let mut memory = unsafe { guard.import_memory(fd, 4096, MemoryHandle::OpaqueFd)? };
    /// let buffer = memory.map_buffer::<f32>(0, 1024)?;
    /// assert_eq!(buffer.len(), 1024);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXTRES__INTEROP.html>
    #[doc(alias = "cuImportExternalMemory")]
    pub unsafe fn import_memory(
        &self,
        fd: OwnedFd,
        size: u64,
        handle: MemoryHandle,
    ) -> Result<ExternalMemory<'_>> {
        crate::error::poison::check()?;
        if size == 0 {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "importing external memory of 0 bytes",
            ));
        }
        let (type_, flags) = handle.raw();
        let desc = ffi::CUDA_EXTERNAL_MEMORY_HANDLE_DESC {
            type_,
            handle: ffi::CUDA_EXTERNAL_HANDLE { fd: fd.as_raw_fd() },
            size,
            flags,
            reserved: [0; 16],
        };
        let mut raw = core::ptr::null_mut();
        // SAFETY: a valid out-pointer and a fully initialized descriptor whose `fd` is open
        // (`fd` is owned here until the call returns); this guard's context is current; the
        // caller vouches for what the descriptor names.
        let result = unsafe { ffi::cuImportExternalMemory(&raw mut raw, &raw const desc) }.result();
        match result {
            Ok(()) => {
                // The driver owns the descriptor now: forget it without closing it.
                let _ = fd.into_raw_fd();
                Ok(ExternalMemory {
                    raw,
                    size,
                    handle,
                    mappings: Cell::new(0),
                    _marker: PhantomData,
                })
            }
            // `fd` drops here, closed once: the driver took nothing.
            Err(e) if handle == MemoryHandle::DmaBuf => Err(e.with_detail(
                "the driver refused to import a dma-buf (NVIDIA documents \
                 CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD for Tegra platforms); import an \
                 opaque fd instead",
            )),
            Err(e) => Err(e),
        }
    }
}

impl ExternalMemory<'_> {
    /// The size in bytes given at the import.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The raw handle, valid while the import lives.
    pub fn as_raw(&self) -> ffi::CUexternalMemory {
        self.raw
    }

    /// `cuExternalMemoryGetMappedBuffer`—Maps `len` elements of `T` at byte `offset` of the
    /// imported memory as device memory of the current context.
    ///
    /// The buffer borrows the import exclusively: it is freed before the import is destroyed,
    /// and no second mapping reaches the same bytes while it lives.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for an empty buffer, a range past the import's size or an
    /// `offset` not aligned to `T` (no driver call); the driver's error.
    ///
    /// # Examples
    ///
    /// See [`PushedGuard::import_memory`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXTRES__INTEROP.html>
    #[doc(alias = "cuExternalMemoryGetMappedBuffer")]
    pub fn map_buffer<T: DeviceCopy>(
        &mut self,
        offset: u64,
        len: usize,
    ) -> Result<MappedBuffer<'_, T>> {
        crate::error::poison::check()?;
        let bytes = checked_range::<T>(offset, len, self.size)?;
        let desc = ffi::CUDA_EXTERNAL_MEMORY_BUFFER_DESC {
            offset,
            size: bytes,
            flags: 0,
            reserved: [0; 16],
        };
        let mut ptr = 0;
        // SAFETY: valid out-pointer; a live import of the current context (the guard it
        // borrows is on top); a fully initialized descriptor within the import's size.
        unsafe { ffi::cuExternalMemoryGetMappedBuffer(&raw mut ptr, self.raw, &raw const desc) }
            .result()?;
        self.mappings.set(self.mappings.get().saturating_add(1));
        Ok(MappedBuffer {
            ptr,
            len,
            mappings: &self.mappings,
            _marker: PhantomData,
        })
    }

    /// `cuExternalMemoryGetMappedMipmappedArray`—Maps a `width` × `height` × `depth` mipmapped
    /// array of `T` with `levels` levels at byte `offset` of the imported memory
    /// (surface-capable, as [`PushedGuard::alloc_mipmapped_array_3d`]'s): as
    /// [`map_mipmapped_array_with`](Self::map_mipmapped_array_with) with
    /// [`MappedArrayFlags::SURFACE_LDST`].
    ///
    /// The array borrows the import exclusively and is destroyed (`cuMipmappedArrayDestroy`)
    /// before it. The layout must be the one the other API gave the image (for Vulkan, an
    /// optimal-tiling image of the same format, extent and levels).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for an empty extent, no level or too many, levels that,
    /// packed, do not fit between `offset` and the end of the import, or a
    /// [`MemoryHandle::DmaBuf`] import (the driver maps none); the driver's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXTRES__INTEROP.html>
    #[doc(alias = "cuExternalMemoryGetMappedMipmappedArray")]
    pub fn map_mipmapped_array<T: ArrayElement>(
        &mut self,
        offset: u64,
        extent: [usize; 3],
        levels: u32,
    ) -> Result<MappedArray<'_, T>> {
        self.map_mipmapped_array_with(offset, extent, levels, MappedArrayFlags::SURFACE_LDST)
    }

    /// `cuExternalMemoryGetMappedMipmappedArray`—Maps a `width` × `height` × `depth` mipmapped
    /// array of `T` with `levels` levels at byte `offset` of the imported memory, with the
    /// array flags `flags`, which must say how the other API uses the image: an image it binds
    /// as a color target needs [`MappedArrayFlags::COLOR_ATTACHMENT`], a layered one
    /// [`MappedArrayFlags::LAYERED`] (`depth` is then its number of layers, which every level
    /// keeps), and only one mapped with [`MappedArrayFlags::SURFACE_LDST`] can be bound as a
    /// surface ([`PushedGuard::surface_level`]; custack refuses it otherwise). Textures, level
    /// copies and [`bind_level`](crate::StreamScope::bind_level) take the array whatever its
    /// flags.
    ///
    /// The array borrows the import exclusively and is destroyed (`cuMipmappedArrayDestroy`)
    /// before it. The layout must be the one the other API gave the image (for Vulkan, an
    /// optimal-tiling image of the same format, extent, layers and levels).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for an empty extent (a layered array of no layer among
    /// them), no level or too many (a layered array's levels halve its width and height only),
    /// flags custack does not name (made by `from_bits_retain`), levels that, packed, do not
    /// fit between `offset` and the end of the import (the least the array can occupy), or a
    /// [`MemoryHandle::DmaBuf`] import (the driver maps none), each with a detail and no driver
    /// call; the driver's error.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, MappedArrayFlags, MemoryHandle, Stack};
    /// use std::os::fd::OwnedFd;
    /// # fn exported_by_vulkan() -> OwnedFd { unimplemented!() }
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// // A 256 × 256 `R8G8B8A8_UINT` image of 4 array layers and 1 level, which Vulkan
    /// // renders into (color-attachment usage) in a dedicated allocation of 1 MiB.
    /// let fd: OwnedFd = exported_by_vulkan();
    /// // SAFETY: the fd is that allocation's opaque-fd export, of this device; Vulkan touches
    /// // it only after waiting on a semaphore CUDA signals.
    /// let mut memory =
    ///     unsafe { guard.import_memory(fd, 1 << 20, MemoryHandle::OpaqueFdDedicated)? };
    /// let flags = MappedArrayFlags::COLOR_ATTACHMENT | MappedArrayFlags::LAYERED;
    /// let image = memory.map_mipmapped_array_with::<[u8; 4]>(0, [256, 256, 4], 1, flags)?;
    /// let layers = image.level_to_vec(0)?; // 4 layers of 256 × 256, packed
    /// assert_eq!(layers.len(), 256 * 256 * 4);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXTRES__INTEROP.html>
    #[doc(alias = "cuExternalMemoryGetMappedMipmappedArray")]
    pub fn map_mipmapped_array_with<T: ArrayElement>(
        &mut self,
        offset: u64,
        extent: [usize; 3],
        levels: u32,
        flags: MappedArrayFlags,
    ) -> Result<MappedArray<'_, T>> {
        crate::error::poison::check()?;
        if self.handle == MemoryHandle::DmaBuf {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "a mipmapped array mapped onto a dma-buf import: the driver maps none",
            ));
        }
        let flags = checked_flags(flags)?;
        check_shape_with(extent, levels, flags)?;
        // The array's levels, packed, are the least it can occupy: an array whose packed
        // levels do not fit between `offset` and the import's end would reach memory the
        // import does not own (its real, tiled layout is larger still, and the driver is not
        // documented to check it).
        let packed = packed_bytes(extent, levels, flags, size_of::<T>());
        let room = self.size.checked_sub(offset).filter(|&room| room > 0);
        let fits = match (packed, room) {
            (Some(packed), Some(room)) => u64::try_from(packed).is_ok_and(|p| p <= room),
            _ => false,
        };
        if !fits {
            let need = packed.map_or_else(|| "more than usize::MAX".to_owned(), |p| p.to_string());
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "a {}x{}x{} mipmapped array of {levels} levels of {}-byte elements (at least \
                     {need} bytes) at offset {offset} of {} imported bytes",
                    extent[0],
                    extent[1],
                    extent[2],
                    size_of::<T>(),
                    self.size
                ),
            ));
        }
        let desc = ffi::CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC {
            offset,
            arrayDesc: array_descriptor_with::<T>(extent, flags),
            numLevels: levels,
            reserved: [0; 16],
        };
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; a live import of the current context; a fully
        // initialized descriptor.
        unsafe {
            ffi::cuExternalMemoryGetMappedMipmappedArray(&raw mut raw, self.raw, &raw const desc)
        }
        .result()?;
        // SAFETY: the driver made `raw` over `extent` with `levels` levels of `T`'s format,
        // with `flags` (`array_descriptor_with`); it is never dropped as a `MipmappedArray`
        // (`ManuallyDrop`): `MappedArray`'s drop destroys it, and it borrows the import it lies
        // in exclusively.
        let array = unsafe { MipmappedArray::from_raw_parts(raw, extent, levels, flags) };
        self.mappings.set(self.mappings.get().saturating_add(1));
        Ok(MappedArray {
            array: ManuallyDrop::new(array),
            mappings: &self.mappings,
        })
    }
}

/// `flags` as `CUDA_ARRAY3D_*` bits, refusing any bit no flag of [`MappedArrayFlags`] names
/// (`from_bits_retain` makes such values): a cubemap, sparse or deferred-mapping array would be
/// one custack's level extents, copies and surfaces do not describe.
fn checked_flags(flags: MappedArrayFlags) -> Result<core::ffi::c_uint> {
    let unknown = flags.bits() & !MappedArrayFlags::all().bits();
    if unknown != 0 {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            format!("mipmapped array flags {unknown:#x} custack does not name"),
        ));
    }
    Ok(flags.bits())
}

/// The byte length of `len` elements of `T` at `offset`, within `size` bytes and aligned.
fn checked_range<T>(offset: u64, len: usize, size: u64) -> Result<u64> {
    let bytes = u64::try_from(len)
        .ok()
        .and_then(|n| n.checked_mul(size_of::<T>() as u64));
    let end = bytes.and_then(|b| b.checked_add(offset));
    match (bytes, end) {
        (Some(b), Some(end)) if b > 0 && end <= size && offset % align_of::<T>() as u64 == 0 => {
            Ok(b)
        }
        _ => Err(Error::custack(
            ErrorKind::InvalidValue,
            format!(
                "a buffer of {len} elements of {} bytes at offset {offset} of {size} imported \
                 bytes: it must be non-empty, inside the import and aligned to {}",
                size_of::<T>(),
                align_of::<T>()
            ),
        )),
    }
}

impl Drop for ExternalMemory<'_> {
    fn drop(&mut self) {
        if self.mappings.get() > 0 {
            // A mapping the driver may still hold (its release failed or was refused, or it was
            // leaked): destroying the import under it is what `cuDestroyExternalMemory`
            // forbids. Left behind, told to the checking driver.
            crate::error::left_behind::left_behind(Object::ExternalMemory, self.raw as u64);
            return;
        }
        crate::error::left_behind::destroy_in_drop(Object::ExternalMemory, self.raw as u64, || {
            // SAFETY: a live import of the current context (its guard is on top), destroyed
            // once; every buffer and array mapped onto it borrowed it and was released, each
            // release counted (`mappings` is 0).
            unsafe { ffi::cuDestroyExternalMemory(self.raw) }.result()
        });
    }
}

/// A mapping's release in its drop: only where it happens is the import's count of live
/// mappings counted down; where it does not (the process leaves it behind, or the driver's
/// release fails), the count stays, so that its import is left behind too.
fn release_mapping(
    mappings: &Cell<usize>,
    object: Object,
    handle: u64,
    release: impl FnOnce() -> Result<()>,
) {
    if !crate::error::left_behind::release_in_drop(object, handle) {
        return;
    }
    match release() {
        Ok(()) => mappings.set(mappings.get().saturating_sub(1)),
        Err(e) => crate::error::record_drop_error(e),
    }
}

impl<T: DeviceCopy> Drop for MappedBuffer<'_, T> {
    fn drop(&mut self) {
        let ptr = self.ptr;
        release_mapping(self.mappings, Object::DeviceMemory, ptr, || {
            // SAFETY: `ptr` was mapped by `cuExternalMemoryGetMappedBuffer` in the current
            // context (its import's guard is on top), which the driver frees with `cuMemFree`,
            // once; no asynchronous work uses it: scopes borrow it until their work is over.
            unsafe { ffi::cuMemFree_v2(ptr) }.result()
        });
    }
}

impl<T: ArrayElement> Drop for MappedArray<'_, T> {
    fn drop(&mut self) {
        let raw = self.array.as_raw();
        release_mapping(self.mappings, Object::MipmappedArray, raw as u64, || {
            // SAFETY: mapped by `cuExternalMemoryGetMappedMipmappedArray` in the current context
            // (its import's guard is on top), destroyed once, here (the `MipmappedArray` is
            // never dropped); no texture, surface or copy uses it (they borrow it).
            unsafe { ffi::cuMipmappedArrayDestroy(raw) }.result()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{MappedArrayFlags, checked_flags, checked_range};
    use crate::error::ErrorKind;
    use crate::ffi;

    #[test]
    fn a_mapped_range_lies_inside_the_import_and_is_aligned() {
        assert_eq!(checked_range::<f32>(0, 1024, 4096).ok(), Some(4096));
        assert_eq!(checked_range::<f32>(4, 1023, 4096).ok(), Some(4092));
        assert!(checked_range::<f32>(4, 1024, 4096).is_err(), "past the end");
        assert!(checked_range::<f32>(0, 0, 4096).is_err(), "empty");
        assert!(checked_range::<f32>(2, 1, 4096).is_err(), "misaligned");
        assert!(
            checked_range::<u64>(0, usize::MAX, u64::MAX).is_err(),
            "overflow"
        );
    }

    #[test]
    fn mapped_array_flags_are_the_driver_bits_and_no_others() {
        assert_eq!(
            checked_flags(MappedArrayFlags::SURFACE_LDST).ok(),
            Some(ffi::CUDA_ARRAY3D_SURFACE_LDST)
        );
        assert_eq!(checked_flags(MappedArrayFlags::empty()).ok(), Some(0));
        assert_eq!(
            checked_flags(MappedArrayFlags::COLOR_ATTACHMENT | MappedArrayFlags::LAYERED).ok(),
            Some(ffi::CUDA_ARRAY3D_COLOR_ATTACHMENT | ffi::CUDA_ARRAY3D_LAYERED)
        );
        assert_eq!(ffi::CUDA_ARRAY3D_COLOR_ATTACHMENT, 0x20, "cuda.h's value");
        assert_eq!(ffi::CUDA_ARRAY3D_LAYERED, 0x01, "cuda.h's value");
        // Cubemap (0x04), sparse (0x40), deferred mapping (0x80): refused before the driver.
        for bits in [0x04, 0x40, 0x80, 0x02 | 0x04] {
            let e = checked_flags(MappedArrayFlags::from_bits_retain(bits)).err();
            assert_eq!(
                e.as_ref().map(crate::error::Error::kind),
                Some(ErrorKind::InvalidValue),
                "{bits:#x}"
            );
        }
    }
}
