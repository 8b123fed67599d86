//! Batched prefetches and discards of managed memory in a [`StreamScope`], one driver call for
//! many ranges: `cuMemPrefetchBatchAsync`, `cuMemDiscardBatchAsync` and
//! `cuMemDiscardAndPrefetchBatchAsync` (CUDA 13.0, looked up through `cuGetProcAddress`).
//!
//! A [`PrefetchBatch`] takes what [`StreamScope::prefetch`] takes (memory bound to the scope,
//! read), each range with its own [`Location`]. A [`DiscardBatch`] takes only memory the scope
//! may **write** (`bind_mut`, `&mut` a stream-ordered allocation): discarding tells the driver the
//! contents are no longer needed, so after it the range holds unspecified values until it is
//! written or prefetched. That is a write of unknown values, hence the mutable borrow; reading
//! them back is the caller's own choice and never undefined behaviour (every bit pattern is a
//! valid [`DeviceCopy`] value). The driver runs a batch's operations in no order and calls a
//! read, write or prefetch concurrent with a discard of the same bytes undefined, so no two
//! ranges of one batch may overlap: that is checked before the driver is called (R31).

use crate::asynchronous::batch::{Side, Span, check_spans, mem_location};
use crate::asynchronous::scope::StreamScope;
use crate::error::Result;
use crate::ffi;
use crate::memory::managed::Location;
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// The ranges of a batch and a location for each (or none).
#[derive(Debug, Default)]
struct Ranges {
    ptrs: Vec<ffi::CUdeviceptr>,
    sizes: Vec<usize>,
    locs: Vec<ffi::CUmemLocation>,
}

impl Ranges {
    fn push(&mut self, (ptr, len): (ffi::CUdeviceptr, usize), bytes_per: usize) {
        self.ptrs.push(ptr);
        self.sizes.push(len.saturating_mul(bytes_per));
    }

    /// No two ranges overlap (each is checked as a destination against every other).
    fn check(&self, what: &str) -> Result<()> {
        let none = Span {
            at: 0,
            bytes: 0,
            side: Side::Device,
        };
        check_spans(
            what,
            self.ptrs.iter().zip(&self.sizes).map(|(&at, &bytes)| {
                (
                    Span {
                        at,
                        bytes,
                        side: Side::Device,
                    },
                    none,
                )
            }),
        )
    }

    /// The nonzero ranges, with one location index per run of equal locations (the driver's
    /// `prefetchLocIdxs`): `(ptrs, sizes, locs, loc_idxs)`.
    fn for_driver(&self) -> Raw {
        let mut raw = Raw::default();
        for (i, (&p, &s)) in self.ptrs.iter().zip(&self.sizes).enumerate() {
            if s == 0 {
                continue;
            }
            if let Some(&l) = self.locs.get(i) {
                let same = raw.locs.last().is_some_and(|last: &ffi::CUmemLocation| {
                    (last.type_, last.id) == (l.type_, l.id)
                });
                if !same {
                    raw.loc_idxs.push(raw.ptrs.len());
                    raw.locs.push(l);
                }
            }
            raw.ptrs.push(p);
            raw.sizes.push(s);
        }
        raw
    }
}

/// What the driver receives.
#[derive(Debug, Default)]
struct Raw {
    ptrs: Vec<ffi::CUdeviceptr>,
    sizes: Vec<usize>,
    locs: Vec<ffi::CUmemLocation>,
    loc_idxs: Vec<usize>,
}

/// Prefetches of one [`StreamScope`] enqueued together by one `cuMemPrefetchBatchAsync`; made
/// by [`StreamScope::prefetch_batch`], enqueued by [`StreamScope::prefetch_all`].
///
/// # Examples
///
/// ```no_run
/// # use custack::{Context, ContextFlags, Driver, Stack, Location};
/// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// # let mut stack = Stack::new()?;
/// # let guard = stack.push(&ctx)?;
/// let stream = guard.stream()?;
/// let (a, b) = (guard.alloc_managed::<f32>(1 << 20)?, guard.alloc_managed::<f32>(1 << 20)?);
/// let dev = Location::Device(guard.device()?);
/// stream.scope(|s| -> custack::Result<()> {
///     let mut batch = s.prefetch_batch();
///     batch.add(s.bind(&a), dev).add(s.bind(&b), dev);
///     s.prefetch_all(batch) // one cuMemPrefetchBatchAsync
/// })??;
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
#[doc(alias = "cuMemPrefetchBatchAsync")]
#[must_use = "a batch does nothing until `StreamScope::prefetch_all` enqueues it"]
pub struct PrefetchBatch<'b, 'scope: 'b> {
    ranges: Ranges,
    _scope: PhantomData<(&'b (), &'scope mut &'scope (), *const ())>,
}

impl core::fmt::Debug for PrefetchBatch<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PrefetchBatch")
            .field("ranges", &self.ranges.ptrs.len())
            .finish()
    }
}

impl<'b, 'scope: 'b> PrefetchBatch<'b, 'scope> {
    /// Adds moving `memory` (managed memory bound to the scope) to `to`.
    pub fn add<T: DeviceCopy>(
        &mut self,
        memory: impl ScopedRead<'scope, T> + 'b,
        to: Location,
    ) -> &mut Self {
        self.ranges.push(memory.raw_parts(), size_of::<T>());
        self.ranges.locs.push(mem_location(to));
        self
    }

    /// The number of ranges added.
    pub fn len(&self) -> usize {
        self.ranges.ptrs.len()
    }

    /// Whether no range was added.
    pub fn is_empty(&self) -> bool {
        self.ranges.ptrs.is_empty()
    }
}

/// Discards of one [`StreamScope`] enqueued together by one `cuMemDiscardBatchAsync` or
/// `cuMemDiscardAndPrefetchBatchAsync`; made by [`StreamScope::discard_batch`].
///
/// Each range is memory the scope may write: after the batch runs it holds **unspecified
/// values** (any bit pattern, a valid `T` since `T: DeviceCopy`) until written or prefetched.
///
/// # Examples
///
/// ```no_run
/// # use custack::{Context, ContextFlags, Driver, Stack, Location};
/// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// # let mut stack = Stack::new()?;
/// # let guard = stack.push(&ctx)?;
/// let stream = guard.stream()?;
/// let mut scratch = guard.alloc_managed::<f32>(1 << 20)?;
/// stream.scope(|s| -> custack::Result<()> {
///     let mut out = s.bind_mut(&mut scratch);
///     let mut batch = s.discard_batch();
///     batch.add(&mut out);
///     // The old contents are not migrated: the next kernel overwrites them.
///     s.discard_and_prefetch_all(batch, Location::Device(guard.device()?))
/// })??;
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
#[doc(
    alias = "cuMemDiscardBatchAsync",
    alias = "cuMemDiscardAndPrefetchBatchAsync"
)]
#[must_use = "a batch does nothing until `StreamScope::discard_all` enqueues it"]
pub struct DiscardBatch<'b, 'scope: 'b> {
    ranges: Ranges,
    _scope: PhantomData<(&'b (), &'scope mut &'scope (), *const ())>,
}

// Batches name memory bound to their scope's stream: they stay on the scope's thread.
static_assertions::assert_not_impl_any!(PrefetchBatch<'static, 'static>: Send, Sync);
static_assertions::assert_not_impl_any!(DiscardBatch<'static, 'static>: Send, Sync);

impl core::fmt::Debug for DiscardBatch<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DiscardBatch")
            .field("ranges", &self.ranges.ptrs.len())
            .finish()
    }
}

impl<'b, 'scope: 'b> DiscardBatch<'b, 'scope> {
    /// Adds discarding `memory` (managed memory the scope may write): its contents are
    /// unspecified once the batch has run.
    pub fn add<T: DeviceCopy>(&mut self, memory: impl ScopedWrite<'scope, T> + 'b) -> &mut Self {
        self.ranges.push(memory.raw_parts(), size_of::<T>());
        self
    }

    /// The number of ranges added.
    pub fn len(&self) -> usize {
        self.ranges.ptrs.len()
    }

    /// Whether no range was added.
    pub fn is_empty(&self) -> bool {
        self.ranges.ptrs.is_empty()
    }
}

/// `e` with the batch's call named, for a driver error.
fn prefetch_call(
    what: &str,
    f: ffi::PFN_cuMemPrefetchBatchAsync,
    mut raw: Raw,
    stream: ffi::CUstream,
) -> Result<()> {
    // SAFETY: `ptrs` and `sizes` hold `ptrs.len()` elements each, `locs` and `loc_idxs` as
    // many as each other, the first index 0 (set by `for_driver` for a nonempty batch); every
    // range is live memory bound to the scope (borrowed for the batch's 'b at least, which
    // ends after this call, and kept by the scope until its stream is synchronized); no two
    // overlap (checked); flags 0. `f` has the 13.0 signature, looked up at 13000.
    unsafe {
        f(
            raw.ptrs.as_mut_ptr(),
            raw.sizes.as_mut_ptr(),
            raw.ptrs.len(),
            raw.locs.as_mut_ptr(),
            raw.loc_idxs.as_mut_ptr(),
            raw.locs.len(),
            0,
            stream,
        )
    }
    .result()
    .map_err(|e| e.with_detail(what))
}

impl<'scope> StreamScope<'scope, '_> {
    /// An empty batch of prefetches for this scope; see [`PrefetchBatch`].
    pub fn prefetch_batch<'b>(&self) -> PrefetchBatch<'b, 'scope> {
        PrefetchBatch {
            ranges: Ranges::default(),
            _scope: PhantomData,
        }
    }

    /// An empty batch of discards for this scope; see [`DiscardBatch`].
    pub fn discard_batch<'b>(&self) -> DiscardBatch<'b, 'scope> {
        DiscardBatch {
            ranges: Ranges::default(),
            _scope: PhantomData,
        }
    }

    /// `cuMemPrefetchBatchAsync`—Enqueues every prefetch of `batch` with one driver call, in
    /// stream order as a whole. A batch with no range of a nonzero size calls nothing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) if two ranges overlap (R31),
    /// before the driver is called; [`ErrorKind::DriverTooOld`](crate::ErrorKind::DriverTooOld)
    /// before driver 13.0 ("cuMemPrefetchBatchAsync needs driver ≥ 13.0"); the driver's errors
    /// (`CUDA_ERROR_INVALID_VALUE` for memory that is not managed).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    #[doc(alias = "cuMemPrefetchBatchAsync")]
    pub fn prefetch_all(&self, batch: PrefetchBatch<'_, 'scope>) -> Result<()> {
        const WHAT: &str = "cuMemPrefetchBatchAsync";
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        // Taken by value: the batch's borrows end once its ranges are enqueued.
        let PrefetchBatch { ranges, .. } = batch;
        ranges.check(WHAT)?;
        let raw = ranges.for_driver();
        if raw.ptrs.is_empty() {
            return Ok(());
        }
        let f = crate::driver::lookup::MEM_PREFETCH_BATCH_ASYNC.get()?;
        prefetch_call(WHAT, f, raw, self.as_raw())
    }

    /// `cuMemDiscardBatchAsync`—Enqueues discarding every range of `batch` with one driver
    /// call, in stream order as a whole: afterwards each holds unspecified values until written
    /// or prefetched. A batch with no range of a nonzero size calls nothing.
    ///
    /// # Errors
    ///
    /// As [`prefetch_all`](Self::prefetch_all) ("cuMemDiscardBatchAsync needs driver ≥ 13.0").
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    #[doc(alias = "cuMemDiscardBatchAsync")]
    pub fn discard_all(&self, batch: DiscardBatch<'_, 'scope>) -> Result<()> {
        const WHAT: &str = "cuMemDiscardBatchAsync";
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        let DiscardBatch { ranges, .. } = batch;
        ranges.check(WHAT)?;
        let mut raw = ranges.for_driver();
        if raw.ptrs.is_empty() {
            return Ok(());
        }
        let f = crate::driver::lookup::MEM_DISCARD_BATCH_ASYNC.get()?;
        // SAFETY: as in `prefetch_call`, without locations; each range is memory this scope
        // may write (bound mutably), so nothing else reads, writes or prefetches it while the
        // discard may run, and its values afterwards are unspecified `T`s (any bit pattern).
        unsafe {
            f(
                raw.ptrs.as_mut_ptr(),
                raw.sizes.as_mut_ptr(),
                raw.ptrs.len(),
                0,
                self.as_raw(),
            )
        }
        .result()
    }

    /// `cuMemDiscardAndPrefetchBatchAsync`—Enqueues discarding every range of `batch` and
    /// prefetching it to `to`, with one driver call: the pages are made resident at `to`
    /// without their old contents, which are unspecified afterwards.
    ///
    /// # Errors
    ///
    /// As [`prefetch_all`](Self::prefetch_all) ("cuMemDiscardAndPrefetchBatchAsync needs
    /// driver ≥ 13.0").
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    #[doc(alias = "cuMemDiscardAndPrefetchBatchAsync")]
    pub fn discard_and_prefetch_all(
        &self,
        mut batch: DiscardBatch<'_, 'scope>,
        to: Location,
    ) -> Result<()> {
        const WHAT: &str = "cuMemDiscardAndPrefetchBatchAsync";
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        batch.ranges.check(WHAT)?;
        let n = batch.ranges.ptrs.len();
        batch.ranges.locs = vec![mem_location(to); n];
        let raw = batch.ranges.for_driver();
        if raw.ptrs.is_empty() {
            return Ok(());
        }
        let f = crate::driver::lookup::MEM_DISCARD_AND_PREFETCH_BATCH_ASYNC.get()?;
        // The same signature as `cuMemPrefetchBatchAsync`'s; the discard's conditions are
        // `discard_all`'s (ranges the scope may write).
        prefetch_call(WHAT, f, raw, self.as_raw())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn loc(id: i32) -> ffi::CUmemLocation {
        ffi::CUmemLocation {
            type_: ffi::CU_MEM_LOCATION_TYPE_DEVICE,
            id,
        }
    }

    #[test]
    fn locations_are_grouped_by_runs_and_empty_ranges_dropped() {
        let mut r = Ranges::default();
        for (p, n, l) in [
            (0x1000, 4, 0),
            (0x2000, 0, 1),
            (0x3000, 4, 0),
            (0x4000, 4, 1),
        ] {
            r.push((p, n), 4);
            r.locs.push(loc(l));
        }
        let raw = r.for_driver();
        assert_eq!(raw.ptrs, [0x1000, 0x3000, 0x4000]);
        assert_eq!(raw.sizes, [16, 16, 16]);
        assert_eq!(raw.loc_idxs, [0, 2]);
        assert_eq!(raw.locs.iter().map(|l| l.id).collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn overlapping_ranges_are_refused() {
        let mut r = Ranges::default();
        r.push((0x1000, 16), 4);
        r.push((0x1100, 16), 4);
        r.check("t").unwrap();
        r.push((0x103c, 1), 4);
        let e = r.check("t").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(
            e.to_string().contains("copy 0") && e.to_string().contains("copy 2"),
            "{e}"
        );
    }
}
