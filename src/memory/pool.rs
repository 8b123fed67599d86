//! Memory pools (`cuMemPool*`): the device's default pool, which [`StreamScope::alloc`] uses,
//! and pools of your own, allocated from in stream order by [`StreamScope::alloc_from_pool`].
//!
//! An allocation from a pool is a [`ScopedAlloc`]: branded with its scope and freed on the
//! scope's stream (`cuMemFreeAsync`), after every operation that used it, whichever pool it
//! came from. A pool borrows its guard; destroying one with allocations or frees still pending
//! is allowed by the driver (it releases the memory once they complete).

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::Result;
use crate::error::left_behind::Object;
use crate::ffi;
use core::ffi::c_void;
use core::marker::PhantomData;

/// A memory pool of the current context's device, lent by a guard: the device's default pool
/// ([`PushedGuard::default_mem_pool`], not destroyed) or one of your own
/// ([`PushedGuard::create_mem_pool`], destroyed on drop).
#[derive(Debug)]
#[doc(alias = "CUmemoryPool")]
pub struct MemPool<'g> {
    raw: ffi::CUmemoryPool,
    owned: bool,
    _marker: PhantomData<(&'g (), *const ())>,
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuDeviceGetDefaultMemPool`—The device's default pool (what [`StreamScope::alloc`](crate::StreamScope::alloc)
    /// allocates from).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceGetDefaultMemPool")]
    pub fn default_mem_pool(&self) -> Result<MemPool<'_>> {
        crate::error::poison::check()?;
        let device = self.device()?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; a device of an initialized driver.
        unsafe { ffi::cuDeviceGetDefaultMemPool(&raw mut raw, device.as_raw()) }.result()?;
        Ok(MemPool {
            raw,
            owned: false,
            _marker: PhantomData,
        })
    }

    /// `cuMemPoolCreate`—A new pool of pinned device memory on this context's device.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let pool = guard.create_mem_pool()?;
    /// pool.set_release_threshold(u64::MAX)?; // keep freed memory for reuse
    /// guard.stream()?.scope(|s| {
    ///     let mut scratch = s.alloc_from_pool::<f32>(&pool, 1 << 20)?;
    ///     s.fill_bytes(&mut scratch, 0)
    /// })??; // freed on the stream, back to the pool
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemPoolCreate")]
    pub fn create_mem_pool(&self) -> Result<MemPool<'_>> {
        crate::error::poison::check()?;
        let device = self.device()?;
        let props = ffi::CUmemPoolProps {
            allocType: ffi::CU_MEM_ALLOCATION_TYPE_PINNED,
            handleTypes: 0,
            location: ffi::CUmemLocation {
                type_: ffi::CU_MEM_LOCATION_TYPE_DEVICE,
                id: device.as_raw(),
            },
            win32SecurityAttributes: core::ptr::null_mut(),
            maxSize: 0,
            usage: 0,
            reserved: [0; 54],
        };
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; `props` is a fully initialized `CUmemPoolProps`.
        unsafe { ffi::cuMemPoolCreate(&raw mut raw, &raw const props) }.result()?;
        Ok(MemPool {
            raw,
            owned: true,
            _marker: PhantomData,
        })
    }
}

impl MemPool<'_> {
    /// The raw `CUmemoryPool`.
    pub fn as_raw(&self) -> ffi::CUmemoryPool {
        self.raw
    }

    fn get(&self, attribute: ffi::CUmemPool_attribute) -> Result<u64> {
        crate::error::poison::check()?;
        let mut v: u64 = 0;
        // SAFETY: a live pool; the attributes read here are `cuuint64_t`.
        unsafe { ffi::cuMemPoolGetAttribute(self.raw, attribute, (&raw mut v).cast::<c_void>()) }
            .result()?;
        Ok(v)
    }

    /// `cuMemPoolGetAttribute`—Bytes the pool keeps reserved before releasing memory to the OS.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemPoolGetAttribute")]
    pub fn release_threshold(&self) -> Result<u64> {
        self.get(ffi::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
    }

    /// `cuMemPoolSetAttribute`—Sets the release threshold (`u64::MAX`: keep everything).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemPoolSetAttribute")]
    pub fn set_release_threshold(&self, bytes: u64) -> Result<()> {
        crate::error::poison::check()?;
        let mut v = bytes;
        let attr = ffi::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD;
        // SAFETY: a live pool; the release threshold is a `cuuint64_t`, read by the call.
        unsafe { ffi::cuMemPoolSetAttribute(self.raw, attr, (&raw mut v).cast::<c_void>()) }
            .result()
    }

    /// `cuMemPoolGetAttribute`—`(used, reserved)`: bytes allocated from the pool now, and bytes
    /// it holds from the OS now.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemPoolGetAttribute")]
    pub fn usage(&self) -> Result<(u64, u64)> {
        Ok((
            self.get(ffi::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?,
            self.get(ffi::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?,
        ))
    }

    /// `cuMemPoolTrimTo`—Releases memory to the OS, keeping at least `keep_bytes` reserved.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemPoolTrimTo")]
    pub fn trim_to(&self, keep_bytes: usize) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live pool.
        unsafe { ffi::cuMemPoolTrimTo(self.raw, keep_bytes) }.result()
    }
}

impl Drop for MemPool<'_> {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        crate::error::left_behind::destroy_in_drop(Object::Untracked, self.raw as u64, || {
            // SAFETY: a pool this value created, destroyed once. Allocations or frees still pending
            // are allowed: the driver releases the pool's memory once they complete (Stream Ordered
            // Memory Allocator, cuMemPoolDestroy).
            unsafe { ffi::cuMemPoolDestroy(self.raw) }.result()
        });
    }
}
