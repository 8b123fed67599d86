//! Batched copies in the restricted profile's run phase (P15): several of a frame's copies in
//! one `cuMemcpyBatchAsync` where they would be as many enqueues.
//!
//! The entry point is looked up in the init phase ([`InitPhase::batch_copies`]), so a driver
//! older than 12.8 is refused there and the run phase makes no first lookup. A
//! [`RestrictedBatch`] holds at most `N` copies, stated in its type, in place: neither adding
//! a copy, nor the overlap check (every pair compared), nor the call allocates (the run phase
//! allocates nothing, `tests/zero_alloc.rs`). Its copies take what the restricted scope's
//! single copies take: device memory bound to the scope, page-locked host memory
//! ([`PinnedHost`], [`PinnedHostMut`]), never pageable memory; every source is read in stream
//! order. The batch is an enqueue: it waits for nothing.

use crate::asynchronous::batch::{Pair, Side, check_disjoint_in_place, enqueue, mem_location};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::check_same_len;
use crate::memory::managed::Location;
use crate::safety::phase::InitPhase;
use crate::safety::scope::{PinnedHost, PinnedHostMut, RestrictedScope};
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// `cuMemcpyBatchAsync`, looked up in the init phase for the run phase's batches
/// ([`RestrictedScope::copy_batch`]). Borrows the guard (`'g`); not `Send`.
#[doc(alias = "cuMemcpyBatchAsync")]
pub struct BatchCopies<'g> {
    f: ffi::PFN_cuMemcpyBatchAsync,
    _guard: PhantomData<(&'g (), *const ())>,
}

// Lent by an init phase, used by the run phase of the same thread.
static_assertions::assert_not_impl_any!(BatchCopies<'static>: Send, Sync);

impl core::fmt::Debug for BatchCopies<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BatchCopies").finish_non_exhaustive()
    }
}

impl<'g> InitPhase<'g> {
    /// `cuGetProcAddress_v2`—Looks up `cuMemcpyBatchAsync` (CUDA 12.8's form) now, for the run
    /// phase's batches of copies. Creates nothing and counts against no budget.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`] before driver 12.8 ("cuMemcpyBatchAsync needs driver ≥
    /// 12.8"); the process's poison (R20).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DRIVER__ENTRY__POINT.html>
    #[doc(alias = "cuGetProcAddress")]
    pub fn batch_copies(&self) -> Result<BatchCopies<'g>> {
        crate::error::poison::check()?;
        Ok(BatchCopies {
            f: crate::driver::lookup::MEMCPY_BATCH_ASYNC.get()?,
            _guard: PhantomData,
        })
    }
}

/// A copy that moves nothing, for the unused places of a batch.
const NONE: Pair = Pair {
    dst: 0,
    src: 0,
    bytes: 0,
    dst_side: Side::Device,
    src_side: Side::Device,
};

/// At most `N` copies of one [`RestrictedScope`] for one `cuMemcpyBatchAsync`, held in place;
/// made by [`RestrictedScope::batch`], enqueued by [`RestrictedScope::copy_batch`].
///
/// Borrows what it holds as [`CopyBatch`](crate::CopyBatch) does (device memory for `'b`,
/// host memory for the scope); `'scope` is the scope's brand, invariant.
///
/// # Examples
///
/// ```no_run
/// # use custack::safety::{Budget, Profile, RestrictedContext};
/// # use custack::Stack;
/// let profile = Profile::init(1)?;
/// let mut ctx = RestrictedContext::new(
///     &profile,
///     profile.device(0)?,
///     Budget::page_locked(2 * 4096).device_bytes(2 * 4096).streams(1),
/// )?;
/// let mut stack = Stack::new()?;
/// let mut guard = ctx.push(&mut stack)?;
/// let init = guard.init()?;
/// let copies = init.batch_copies()?; // driver 12.8 or newer, checked here
/// let stream = init.stream()?;
/// let (mut a, mut b) = (init.alloc::<u32>(1024)?, init.alloc::<u32>(1024)?);
/// let (up_a, up_b) = (init.alloc_pinned::<u32>(1024)?, init.alloc_pinned::<u32>(1024)?);
/// let run = init.seal();
/// stream.scope(|s| -> custack::Result<()> {
///     let mut batch = s.batch::<2>();
///     batch.to_device(s.bind_mut(&mut a), &up_a)?;
///     batch.to_device(s.bind_mut(&mut b), &up_b)?;
///     s.copy_batch(&copies, batch) // one call where there were two
/// })??;
/// # drop(run);
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
#[doc(alias = "cuMemcpyBatchAsync")]
#[must_use = "a batch does nothing until `RestrictedScope::copy_batch` enqueues it"]
pub struct RestrictedBatch<'b, 'scope: 'b, const N: usize> {
    pairs: [Pair; N],
    len: usize,
    // Invariant in 'scope (the scope's brand); borrows what it holds for 'b; `!Send`.
    _scope: PhantomData<(&'b (), &'scope mut &'scope (), *const ())>,
}

// A restricted batch names memory bound to its scope's stream: it stays on the scope's thread.
static_assertions::assert_not_impl_any!(RestrictedBatch<'static, 'static, 1>: Send, Sync);

impl<const N: usize> core::fmt::Debug for RestrictedBatch<'_, '_, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RestrictedBatch")
            .field("copies", &self.len)
            .field("capacity", &N)
            .finish()
    }
}

impl<'b, 'scope: 'b, const N: usize> RestrictedBatch<'b, 'scope, N> {
    /// The number of copies added.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no copy was added.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn add<T>(
        &mut self,
        what: &str,
        (dst, dst_side): (u64, Side),
        (src, src_side): (u64, Side),
        len: usize,
    ) -> Result<()> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(|| {
            Error::custack(ErrorKind::SizeOverflow, format!("{what}: {len} elements"))
        })?;
        let Some(slot) = self.pairs.get_mut(self.len) else {
            return Err(Error::custack(
                ErrorKind::OutsideProfile,
                format!("{what}: the batch holds {N} copies, all taken; state a larger N"),
            ));
        };
        *slot = Pair {
            dst,
            src,
            bytes,
            dst_side,
            src_side,
        };
        // At most N (the slot above exists).
        self.len = self.len.saturating_add(1);
        Ok(())
    }

    /// Adds a copy from page-locked host memory to device memory, as
    /// [`RestrictedScope::copy_to_device`] takes it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`], [`ErrorKind::SizeOverflow`],
    /// [`ErrorKind::OutsideProfile`] past `N` copies; nothing is added then.
    pub fn to_device<T: DeviceCopy>(
        &mut self,
        dst: impl ScopedWrite<'scope, T> + 'b,
        src: impl Into<PinnedHost<'scope, T>>,
    ) -> Result<&mut Self> {
        const WHAT: &str = "RestrictedBatch::to_device";
        let ((ptr, len), src) = (dst.raw_parts(), src.into().0);
        check_same_len(WHAT, len, src.len())?;
        self.add::<T>(
            WHAT,
            (ptr, Side::Device),
            (src.as_ptr() as u64, Side::Host),
            len,
        )?;
        Ok(self)
    }

    /// Adds a copy from device memory to page-locked host memory, as
    /// [`RestrictedScope::copy_to_host`] takes it.
    ///
    /// # Errors
    ///
    /// As [`to_device`](Self::to_device).
    pub fn to_host<T: DeviceCopy>(
        &mut self,
        dst: impl Into<PinnedHostMut<'scope, T>>,
        src: impl ScopedRead<'scope, T> + 'b,
    ) -> Result<&mut Self> {
        const WHAT: &str = "RestrictedBatch::to_host";
        let (dst, (ptr, len)) = (dst.into().0, src.raw_parts());
        check_same_len(WHAT, dst.len(), len)?;
        self.add::<T>(
            WHAT,
            (dst.as_mut_ptr() as u64, Side::Host),
            (ptr, Side::Device),
            len,
        )?;
        Ok(self)
    }

    /// Adds a device-to-device copy, as [`RestrictedScope::copy_device`] takes it.
    ///
    /// # Errors
    ///
    /// As [`to_device`](Self::to_device).
    pub fn device<T: DeviceCopy>(
        &mut self,
        dst: impl ScopedWrite<'scope, T> + 'b,
        src: impl ScopedRead<'scope, T> + 'b,
    ) -> Result<&mut Self> {
        const WHAT: &str = "RestrictedBatch::device";
        let ((dst, len), (src, src_len)) = (dst.raw_parts(), src.raw_parts());
        check_same_len(WHAT, len, src_len)?;
        self.add::<T>(WHAT, (dst, Side::Device), (src, Side::Device), len)?;
        Ok(self)
    }
}

impl<'scope> RestrictedScope<'scope, '_> {
    /// An empty batch of at most `N` copies for this scope; see [`RestrictedBatch`].
    pub fn batch<'b, const N: usize>(&self) -> RestrictedBatch<'b, 'scope, N> {
        RestrictedBatch {
            pairs: [NONE; N],
            len: 0,
            _scope: PhantomData,
        }
    }

    /// `cuMemcpyBatchAsync`—Enqueues every copy of `batch` with one driver call, as
    /// [`StreamScope::copy_batch`](crate::StreamScope::copy_batch) does, allocating nothing;
    /// `copies` is the entry point the init phase looked up. A batch with no copy of a nonzero
    /// size calls nothing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if a destination overlaps another destination or a source of
    /// the batch (R27), before the driver is called;
    /// [`ErrorKind::ForkedProcess`] in a child forked after `Profile::init`, which holds the
    /// scope too (R22), and the first sticky error once the process is poisoned (R20), the
    /// driver not called; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyBatchAsync")]
    #[allow(
        clippy::needless_pass_by_value,
        reason = "taken by value so that a batch is enqueued once and its borrows end with it"
    )]
    pub fn copy_batch<const N: usize>(
        &self,
        copies: &BatchCopies<'_>,
        batch: RestrictedBatch<'_, 'scope, N>,
    ) -> Result<()> {
        // A child forked inside the scope holds it too, and must make no driver call (R22); a
        // poisoned process makes none either (R20).
        crate::error::poison::check()?;
        // Taken by value: the batch's borrows end once its copies are enqueued.
        let RestrictedBatch { pairs, len, .. } = batch;
        let pairs = pairs.get(..len).unwrap_or_default();
        check_disjoint_in_place("cuMemcpyBatchAsync", pairs)?;
        let (mut dsts, mut srcs, mut sizes) = ([0u64; N], [0u64; N], [0usize; N]);
        let mut n = 0;
        for p in pairs.iter().filter(|p| p.bytes > 0) {
            // `n` < N: at most `batch.len` ≤ N pairs pass.
            if let (Some(d), Some(s), Some(z)) =
                (dsts.get_mut(n), srcs.get_mut(n), sizes.get_mut(n))
            {
                (*d, *s, *z) = (p.dst, p.src, p.bytes);
                n = n.saturating_add(1);
            }
        }
        if n == 0 {
            return Ok(());
        }
        let mut attrs = ffi::CUmemcpyAttributes {
            srcAccessOrder: ffi::CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
            srcLocHint: mem_location(Location::Host),
            dstLocHint: mem_location(Location::Host),
            flags: ffi::CU_MEMCPY_FLAG_DEFAULT,
        };
        let (Some(d), Some(s), Some(z)) =
            (dsts.get_mut(..n), srcs.get_mut(..n), sizes.get_mut(..n))
        else {
            return Ok(());
        };
        // SAFETY: three slices of `n` ≥ 1 elements; each copy is one the restricted scope's
        // single copies would enqueue (device memory bound to this scope, page-locked host
        // memory borrowed for it, lengths equal), borrowed until the scope has synchronized
        // its stream; no destination overlaps another side (checked above); sources read in
        // stream order; `copies.f` was looked up at 12080 by the init phase.
        unsafe { enqueue(copies.f, (d, s, z), &mut attrs, self.stream_raw()) }
    }
}
