//! Unified (managed) memory (`cuMemAllocManaged`): one allocation the device and the host both
//! address, migrated by the driver.
//!
//! A [`ManagedBuffer`] is device memory to every operation (it implements [`DeviceMemory`]
//! and [`DeviceMemoryMut`], scopes bind it, submissions own it) and a slice to the host
//! (`Deref<Target = [T]>`). The host reaches it only through `&`/`&mut` of the buffer, which a
//! scope's binding or a submission's ownership rules out while device work may use it (C21).
//! custack allocates managed memory only on devices with concurrent managed access (Pascal and
//! later on Linux): on older ones any host access while *any* kernel runs faults.

use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::{
    DeviceMemory, DeviceMemoryMut, check_alloc_len, device_memory, free_device,
    free_device_in_drop, sealed,
};

static_assertions::assert_not_impl_any!(ManagedBuffer<'static, u8>: Send, Sync);

use crate::context::stack::{ContextKind, PushedGuard};
use crate::driver::Device;
use crate::vocabulary::plain::DeviceCopy;
use core::ffi::c_int;
use core::marker::PhantomData;

/// Managed memory of `len` elements of `T`, lent by a guard; freed on drop (`cuMemFree`).
/// Device memory to the GPU, a slice to the host.
#[derive(Debug)]
#[doc(alias = "cuMemAllocManaged")]
pub struct ManagedBuffer<'g, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: PhantomData<(&'g (), *const T)>,
}

device_memory!(ManagedBuffer, mut_);

/// Where a prefetch moves managed memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CUmemLocation")]
pub enum Location {
    /// A device's memory.
    Device(Device),
    /// Host memory (`CU_DEVICE_CPU`).
    Host,
}

impl Location {
    pub(crate) fn raw(self) -> ffi::CUdevice {
        match self {
            Self::Device(d) => d.as_raw(),
            Self::Host => ffi::CU_DEVICE_CPU,
        }
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemAllocManaged`—Allocates `len` zeroed elements of managed memory, attached
    /// globally (usable from any stream).
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_NOT_SUPPORTED` on a device without concurrent managed access (see the
    /// module docs); as [`alloc`](Self::alloc).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Location, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut data = guard.alloc_managed::<u32>(1 << 20)?;
    /// data.fill(3); // on the host
    /// let device = guard.device()?;
    /// guard.stream()?.scope(|s| {
    ///     let d = s.bind_mut(&mut data);
    ///     s.prefetch(&d, Location::Device(device))?; // then kernels use it on the device
    ///     s.prefetch(&d, Location::Host)
    /// })??;
    /// assert_eq!(data[0], 3); // on the host again, after the scope
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemAllocManaged")]
    pub fn alloc_managed<T: DeviceCopy>(&self, len: usize) -> Result<ManagedBuffer<'_, T>> {
        crate::error::poison::check()?;
        let bytes = check_alloc_len::<T>(len)?;
        let device = self.device()?;
        if device.attribute(crate::driver::attribute::DeviceAttribute::ConcurrentManagedAccess)?
            == 0
        {
            return Err(Error::from_kind(ErrorKind::NotSupported).with_detail(
                "managed memory needs concurrent managed access (the host may touch it while kernels run)",
            ));
        }
        let mut ptr: ffi::CUdeviceptr = 0;
        // SAFETY: valid out-pointer; this guard's context is current.
        unsafe { ffi::cuMemAllocManaged(&raw mut ptr, bytes, ffi::CU_MEM_ATTACH_GLOBAL) }
            .result()?;
        // Counted before the value exists, whose drop or free counts it out.
        crate::memory::managed_live::made();
        let mut buffer = ManagedBuffer {
            ptr,
            len,
            _marker: PhantomData,
        };
        // The host sees it as initialized `T`s: zero it (on the device, synchronously).
        buffer.fill_bytes(0)?;
        Ok(buffer)
    }
}

impl<T: DeviceCopy> core::ops::Deref for ManagedBuffer<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialized (zeroed at allocation, then only written as `T`) elements at
        // an address valid on the host (managed memory); no device work uses it while `&self`
        // exists (scopes bind it by borrow, submissions own it); concurrent managed access was
        // checked at allocation, so unrelated kernels do not make host access fault.
        unsafe {
            core::slice::from_raw_parts(
                core::ptr::with_exposed_provenance(self.ptr as usize),
                self.len,
            )
        }
    }
}

impl<T: DeviceCopy> core::ops::DerefMut for ManagedBuffer<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` gives exclusive access.
        unsafe {
            core::slice::from_raw_parts_mut(
                core::ptr::with_exposed_provenance_mut(self.ptr as usize),
                self.len,
            )
        }
    }
}

impl<T: DeviceCopy> ManagedBuffer<'_, T> {
    /// `cuMemAdvise`—Advice about how the memory will be used (`ffi::CUmem_advise`), for
    /// `location` where the advice names one.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    #[doc(alias = "cuMemAdvise")]
    pub fn advise(&self, advice: ffi::CUmem_advise, location: Location) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live managed allocation of the current context, `byte_len` bytes.
        unsafe { ffi::cuMemAdvise(self.ptr, self.byte_len(), advice, location.raw()) }.result()
    }

    /// `cuMemRangeGetAttribute`—A single-`int` attribute of the memory (read-mostly, preferred
    /// location, last prefetch location: a device ordinal, -1 for the host).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    #[doc(alias = "cuMemRangeGetAttribute")]
    pub fn range_attribute(&self, attribute: ffi::CUmem_range_attribute) -> Result<i32> {
        crate::error::poison::check()?;
        let mut v: c_int = 0;
        // SAFETY: a writable `int` of its size; a live managed allocation, `byte_len` bytes.
        unsafe {
            ffi::cuMemRangeGetAttribute(
                (&raw mut v).cast(),
                size_of::<c_int>(),
                attribute,
                self.ptr,
                self.byte_len(),
            )
        }
        .result()?;
        Ok(v)
    }

    /// `cuMemFree`—Frees the memory, returning the driver's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemFree")]
    pub fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: allocated by `cuMemAllocManaged`, freed once (`this` never drops).
        let freed = unsafe { free_device(this.ptr) };
        crate::memory::managed_live::ended();
        freed
    }
}

impl<T: DeviceCopy> Drop for ManagedBuffer<'_, T> {
    fn drop(&mut self) {
        // SAFETY: allocated in the current context (the guard that lent it is on top), freed
        // once; no device work uses it (scopes borrow it until complete, submissions own it).
        unsafe { free_device_in_drop(self.ptr) };
        crate::memory::managed_live::ended();
    }
}
