//! A scope's operations on memory kinds of `memory/` that only a stream can order: prefetching
//! managed memory, allocating from a memory pool, binding and copying pitched memory. (`memory/` sits below `asynchronous/`, so
//! these methods of [`StreamScope`] live here, beside the scope.)

use crate::asynchronous::scope::StreamScope;
use crate::error::Result;
use crate::ffi;
use crate::memory::check_alloc_len;
use crate::memory::managed::Location;
use crate::memory::pitched::{PitchedBuffer, ScopedPitched, Side2d, check_packed, copy2d};
use crate::memory::pool::MemPool;
use crate::vocabulary::binding::{ScopedAlloc, ScopedHost, ScopedHostMut, ScopedRead};
use crate::vocabulary::plain::DeviceCopy;

impl<'scope> StreamScope<'scope, '_> {
    /// `cuMemPrefetchAsync`—Enqueues moving managed memory to `location` (a device's memory
    /// or the host's), in stream order, so later work finds it there.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` for memory that is not managed; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    #[doc(alias = "cuMemPrefetchAsync")]
    pub fn prefetch<T: DeviceCopy>(
        &self,
        memory: impl ScopedRead<'scope, T>,
        location: Location,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let (ptr, len) = memory.raw_parts();
        // SAFETY: `memory` is live memory of the current context until this prefetch has run
        // (bound to the scope); a prefetch moves pages, it does not change their contents.
        unsafe { ffi::cuMemPrefetchAsync(ptr, len * size_of::<T>(), location.raw(), self.as_raw()) }
            .result()
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// `cuMemAllocFromPoolAsync`—Allocates `len` elements from `pool` on the scope's stream;
    /// otherwise as [`alloc`](Self::alloc): branded with the scope, freed on its stream when
    /// dropped.
    ///
    /// The pool is named only here, when the allocation is enqueued: it need not outlive the
    /// scope, so a submission allocates scratch memory from any pool it can name. A pool
    /// destroyed while its allocations or frees are pending is released by the driver once they
    /// complete (`cuMemPoolDestroy`).
    ///
    /// # Errors
    ///
    /// As [`alloc`](Self::alloc).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemAllocFromPoolAsync")]
    pub fn alloc_from_pool<T: DeviceCopy>(
        &self,
        pool: &MemPool<'_>,
        len: usize,
    ) -> Result<ScopedAlloc<'scope, T>> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        super::refuse_alloc_into_graph()?;
        let bytes = check_alloc_len::<T>(len)?;
        let mut ptr: ffi::CUdeviceptr = 0;
        // SAFETY: valid out-pointer; a live pool (borrowed for this call; the driver keeps what
        // its pending allocations need after it is destroyed) and a live stream of the current
        // context.
        unsafe { ffi::cuMemAllocFromPoolAsync(&raw mut ptr, bytes, pool.as_raw(), self.as_raw()) }
            .result()?;
        // SAFETY: allocated on this scope's stream, to be freed there.
        Ok(unsafe { ScopedAlloc::from_raw_parts(ptr, len, self.as_raw()) })
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// Binds a pitched array to this scope exclusively, until the scope ends.
    pub fn bind_pitched<T: DeviceCopy>(
        &self,
        memory: &'scope mut PitchedBuffer<'_, T>,
    ) -> ScopedPitched<'scope, T> {
        // SAFETY: `memory` is borrowed exclusively for 'scope, which the scope waits for.
        unsafe { ScopedPitched::bind(memory) }
    }

    /// `cuMemcpy2DAsync`—Enqueues a copy of packed host rows into a pitched array.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch) (no driver call); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy2DAsync")]
    pub fn copy_to_pitched<T: DeviceCopy>(
        &self,
        dst: &mut ScopedPitched<'scope, T>,
        src: impl Into<ScopedHost<'scope, T>>,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let src = src.into();
        check_packed(
            "copy_to_pitched",
            "pitched array",
            src.len(),
            [dst.width(), dst.height(), 1],
        )?;
        let row = dst.width() * size_of::<T>();
        let copy = copy2d(
            Side2d::Device(dst.device_ptr(), dst.pitch_bytes()),
            Side2d::Host(src.as_ptr().cast_mut().cast(), row),
            row,
            dst.height(),
        );
        // SAFETY: as in `PitchedBuffer::copy_from_host`; both stay borrowed until the scope has
        // waited for the stream; the descriptor is read during the call.
        unsafe { ffi::cuMemcpy2DAsync_v2(&raw const copy, self.as_raw()) }.result()
    }

    /// `cuMemcpy2DAsync`—Enqueues a copy of a pitched array into packed host rows.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch) (no driver call); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy2DAsync")]
    pub fn copy_from_pitched<T: DeviceCopy>(
        &self,
        dst: impl Into<ScopedHostMut<'scope, T>>,
        src: &ScopedPitched<'scope, T>,
    ) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let dst = dst.into();
        check_packed(
            "copy_from_pitched",
            "pitched array",
            dst.len(),
            [src.width(), src.height(), 1],
        )?;
        let row = src.width() * size_of::<T>();
        let copy = copy2d(
            Side2d::Host(dst.as_mut_ptr().cast(), row),
            Side2d::Device(src.device_ptr(), src.pitch_bytes()),
            row,
            src.height(),
        );
        // SAFETY: as in `copy_to_pitched`, the other way; any bit pattern is a valid `T`.
        unsafe { ffi::cuMemcpy2DAsync_v2(&raw const copy, self.as_raw()) }.result()
    }
}
