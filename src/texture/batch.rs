//! Batched 3D copies: many copies of a [`StreamScope`] between CUDA arrays, pitched device
//! memory and packed host memory in one driver call, `cuMemcpy3DBatchAsync` (CUDA 12.8, looked
//! up through `cuGetProcAddress` at 12.8's ABI).
//!
//! A [`Copy3dBatch`] takes each copy as the scope's single 3D copy takes it
//! ([`copy_to_array`](StreamScope::copy_to_array), [`copy_from_array`](StreamScope::copy_from_array),
//! [`copy_to_pitched`](StreamScope::copy_to_pitched),
//! [`copy_from_pitched`](StreamScope::copy_from_pitched)): an array or pitched destination
//! borrowed mutably, a source borrowed, host memory borrowed for the whole scope, every shape
//! checked as it is added. It borrows what it holds for its own lifetime `'b`, so an array or a
//! pitched buffer is a destination at most once per batch and never also a source of it (the
//! borrow checker refuses it, C33). What types cannot see (a host destination given twice, one
//! overlapping a host source) [`StreamScope::copy_3d_batch`] checks before the driver is
//! called, since the driver runs a batch's copies in no particular order (R31).
//! (`texture/` sits above `asynchronous/`, so this scope method lives beside the arrays.)

use crate::asynchronous::batch::{Side, Span, check_spans};
use crate::asynchronous::scope::StreamScope;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::pitched::{ScopedPitched, check_packed};
use crate::texture::array::{ArrayElement, check_scoped};
use crate::texture::scoped::ScopedArray;
use crate::vocabulary::binding::{ScopedHost, ScopedHostMut};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// One side of a 3D copy, for the driver and for the overlap check.
#[derive(Clone, Copy, Debug)]
struct Operand {
    raw: ffi::CUmemcpy3DOperand,
    span: Span,
}

/// A host or device address, rows `row` elements apart, layers `layer` rows apart.
#[inline]
fn pointer(at: u64, row: usize, layer: usize, bytes: usize, side: Side) -> Operand {
    Operand {
        raw: ffi::CUmemcpy3DOperand {
            type_: ffi::CU_MEMCPY_OPERAND_TYPE_POINTER,
            op: ffi::CUmemcpy3DOperandUnion {
                ptr: ffi::CUmemcpy3DOperandPtr {
                    ptr: at,
                    rowLength: row,
                    layerHeight: layer,
                    locHint: crate::asynchronous::batch::mem_location(
                        crate::memory::managed::Location::Host,
                    ),
                },
            },
        },
        span: Span { at, bytes, side },
    }
}

/// A whole array, from its origin.
#[inline]
fn array(a: &ScopedArray<'_>) -> Operand {
    Operand {
        raw: ffi::CUmemcpy3DOperand {
            type_: ffi::CU_MEMCPY_OPERAND_TYPE_ARRAY,
            op: ffi::CUmemcpy3DOperandUnion {
                array: ffi::CUmemcpy3DOperandArray {
                    array: a.raw,
                    offset: ffi::CUoffset3D::default(),
                },
            },
        },
        span: Span {
            at: a.raw as u64,
            bytes: 1,
            side: Side::Array,
        },
    }
}

/// 3D copies of one [`StreamScope`] enqueued together by one `cuMemcpy3DBatchAsync`; made by
/// [`StreamScope::batch_3d`], enqueued by [`StreamScope::copy_3d_batch`].
///
/// Arrays and pitched buffers are borrowed for `'b` (a destination mutably), host memory for the
/// whole scope, as the single 3D copies borrow them; `'scope` is the scope's brand, invariant,
/// so a batch takes only what is bound to its own scope and is enqueued only by it.
///
/// # Examples
///
/// ```no_run
/// # use custack::{Context, ContextFlags, Driver, Stack};
/// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// # let mut stack = Stack::new()?;
/// # let guard = stack.push(&ctx)?;
/// let stream = guard.stream()?;
/// let mut a = guard.alloc_array_3d::<f32>(16, 8, 4)?;
/// let mut p = guard.alloc_pitched::<f32>(16, 8)?;
/// let (up_a, up_p) = (vec![1.0f32; 16 * 8 * 4], vec![2.0f32; 16 * 8]);
/// stream.scope(|s| -> custack::Result<()> {
///     let (mut sa, mut sp) = (s.bind_array(&mut a), s.bind_pitched(&mut p));
///     let mut batch = s.batch_3d();
///     batch.to_array(&mut sa, &up_a)?;
///     batch.to_pitched(&mut sp, &up_p)?;
///     s.copy_3d_batch(batch) // one cuMemcpy3DBatchAsync
/// })??;
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
#[doc(alias = "cuMemcpy3DBatchAsync")]
#[must_use = "a batch does nothing until `StreamScope::copy_3d_batch` enqueues it"]
pub struct Copy3dBatch<'b, 'scope: 'b> {
    /// The driver's descriptors in their final layout, filled as the copies are added (`flags`
    /// on each), so that the call copies and allocates nothing.
    raw: Vec<ffi::CUDA_MEMCPY3D_BATCH_OP>,
    /// Each copy's `(destination, source)` ranges, for the overlap check.
    spans: Vec<(Span, Span)>,
    /// Whether those ranges came in the order the check's merge needs.
    order: Order,
    flags: core::ffi::c_uint,
    // Invariant in 'scope (the scope's brand); borrows what it holds for 'b; `!Send`.
    _scope: PhantomData<(&'b (), &'scope mut &'scope (), *const ())>,
}

// A batch names arrays and memory bound to its scope's stream: it stays on the scope's thread.
static_assertions::assert_not_impl_any!(Copy3dBatch<'static, 'static>: Send, Sync);

impl core::fmt::Debug for Copy3dBatch<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Copy3dBatch")
            .field("copies", &self.raw.len())
            .field("flags", &self.flags)
            .finish()
    }
}

/// Bytes from the start of `rows` × `layers` rows `pitch` bytes apart to the end of the last
/// row of `row` bytes.
fn spanned(what: &str, pitch: usize, row: usize, rows: usize) -> Result<usize> {
    rows.checked_sub(1)
        .and_then(|r| r.checked_mul(pitch))
        .and_then(|b| b.checked_add(row))
        .ok_or_else(|| Error::custack(ErrorKind::SizeOverflow, format!("{what}: {rows} rows")))
}

impl<'b, 'scope: 'b> Copy3dBatch<'b, 'scope> {
    fn new() -> Self {
        Self {
            raw: Vec::new(),
            spans: Vec::new(),
            order: Order::default(),
            flags: ffi::CU_MEMCPY_FLAG_DEFAULT,
            _scope: PhantomData,
        }
    }

    /// The number of copies added.
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// Whether no copy was added.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Adds one copy of `extent` from `src` to `dst`: its descriptor as the driver takes it
    /// (sources read in stream order, the batch's flags), its ranges, their order.
    #[inline]
    fn push(&mut self, dst: Operand, src: Operand, [width, height, depth]: [usize; 3]) {
        self.raw.push(ffi::CUDA_MEMCPY3D_BATCH_OP {
            src: src.raw,
            dst: dst.raw,
            extent: ffi::CUextent3D {
                width,
                height,
                depth,
            },
            srcAccessOrder: ffi::CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
            flags: self.flags,
        });
        self.order.push(dst.span, src.span);
        self.spans.push((dst.span, src.span));
    }

    /// [`check_spans`] of the copies (the same verdict and message), without its sort and
    /// allocation when the ranges came in order ([`Order::in_order`]) and [`disjoint_in_order`]
    /// finds no overlap; the sort runs otherwise, to decide, or to name the overlap found.
    fn check(&self, what: &str) -> Result<()> {
        if self.order.in_order() && disjoint_in_order(&self.spans) {
            return Ok(());
        }
        check_spans(what, self.spans.iter().copied())
    }

    /// Adds a copy of packed host elements into a whole array, as
    /// [`StreamScope::copy_to_array`] takes it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] if the host elements are not the array's, packed; nothing
    /// is added then.
    pub fn to_array<T: ArrayElement>(
        &mut self,
        dst: &'b mut ScopedArray<'scope>,
        src: impl Into<ScopedHost<'scope, T>>,
    ) -> Result<&mut Self> {
        let src = src.into();
        check_scoped::<T>("Copy3dBatch::to_array", dst, src.len())?;
        let [w, h, d] = dst.extent;
        let bytes = src.len() * size_of::<T>();
        self.push(
            array(dst),
            pointer(src.as_ptr() as u64, w, h, bytes, Side::Host),
            [w, h, d],
        );
        Ok(self)
    }

    /// Adds a copy of a whole array into packed host elements, as
    /// [`StreamScope::copy_from_array`] takes it.
    ///
    /// # Errors
    ///
    /// As [`to_array`](Self::to_array).
    pub fn from_array<T: ArrayElement>(
        &mut self,
        dst: impl Into<ScopedHostMut<'scope, T>>,
        src: &'b ScopedArray<'scope>,
    ) -> Result<&mut Self> {
        let dst = dst.into();
        check_scoped::<T>("Copy3dBatch::from_array", src, dst.len())?;
        let [w, h, d] = src.extent;
        let bytes = dst.len() * size_of::<T>();
        self.push(
            pointer(dst.as_mut_ptr() as u64, w, h, bytes, Side::Host),
            array(src),
            [w, h, d],
        );
        Ok(self)
    }

    /// Adds a copy of packed host rows into a pitched buffer, as
    /// [`StreamScope::copy_to_pitched`] takes it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] if the host elements are not the buffer's rows, packed;
    /// nothing is added then.
    pub fn to_pitched<T: DeviceCopy>(
        &mut self,
        dst: &'b mut ScopedPitched<'scope, T>,
        src: impl Into<ScopedHost<'scope, T>>,
    ) -> Result<&mut Self> {
        const WHAT: &str = "Copy3dBatch::to_pitched";
        let src = src.into();
        let (w, h) = (dst.width(), dst.height());
        check_packed(WHAT, "pitched array", src.len(), [w, h, 1])?;
        let row = w * size_of::<T>();
        let device = spanned(WHAT, dst.pitch_bytes(), row, h)?;
        self.push(
            pointer(dst.device_ptr(), dst.pitch_bytes(), h, device, Side::Device),
            pointer(src.as_ptr() as u64, row, h, row * h, Side::Host),
            [row, h, 1],
        );
        Ok(self)
    }

    /// Adds a copy of a pitched buffer into packed host rows, as
    /// [`StreamScope::copy_from_pitched`] takes it.
    ///
    /// # Errors
    ///
    /// As [`to_pitched`](Self::to_pitched).
    pub fn from_pitched<T: DeviceCopy>(
        &mut self,
        dst: impl Into<ScopedHostMut<'scope, T>>,
        src: &'b ScopedPitched<'scope, T>,
    ) -> Result<&mut Self> {
        const WHAT: &str = "Copy3dBatch::from_pitched";
        let dst = dst.into();
        let (w, h) = (src.width(), src.height());
        check_packed(WHAT, "pitched array", dst.len(), [w, h, 1])?;
        let row = w * size_of::<T>();
        let device = spanned(WHAT, src.pitch_bytes(), row, h)?;
        self.push(
            pointer(dst.as_mut_ptr() as u64, row, h, row * h, Side::Host),
            pointer(src.device_ptr(), src.pitch_bytes(), h, device, Side::Device),
            [row, h, 1],
        );
        Ok(self)
    }

    /// Asks the driver to prefer overlapping the copies with compute work
    /// (`CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE` on every copy).
    pub fn prefer_overlap_with_compute(&mut self) -> &mut Self {
        self.flags |= ffi::CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE;
        // Copies added from now on take the flags as they are added; those added before, here.
        for op in &mut self.raw {
            op.flags = self.flags;
        }
        self
    }
}

/// The end of a range, saturated at the end of the address space (as in [`check_spans`]).
#[inline]
fn end(x: Span) -> u64 {
    x.at.saturating_add(x.bytes as u64)
}

/// Whether a 3D batch's ranges came in the order [`disjoint_in_order`] needs, decided in O(1) a
/// copy as copies are added; ranges of zero bytes (which overlap nothing) are left out.
#[derive(Clone, Copy, Debug, Default)]
struct Order {
    /// Whether a destination started before the end of the one before; if not, the
    /// destinations are sorted and pairwise disjoint. `dst_end`: the last one's end.
    dsts_unsorted: bool,
    dst_end: u64,
    /// Whether a source started before the start of the one before; if not, the sources are
    /// sorted by start. `src_start`: the last one's start.
    srcs_unsorted: bool,
    src_start: u64,
}

impl Order {
    #[inline]
    fn push(&mut self, dst: Span, src: Span) {
        if dst.bytes > 0 {
            self.dsts_unsorted |= dst.at < self.dst_end;
            self.dst_end = end(dst);
        }
        if src.bytes > 0 {
            self.srcs_unsorted |= src.at < self.src_start;
            self.src_start = src.at;
        }
    }

    /// Destinations sorted and pairwise disjoint, sources sorted by start.
    #[inline]
    fn in_order(&self) -> bool {
        !self.dsts_unsorted && !self.srcs_unsorted
    }
}

/// Whether no destination overlaps another destination or any source, for `(destination,
/// source)` ranges in order ([`Order::in_order`]); `false` also for ranges not in that order
/// (never `true` for an overlap of ranges in order). Destinations in order are pairwise
/// disjoint already and sorted by end too, so one merge decides the rest: for each source, in
/// increasing order, the first destination ending after its start is the only one that can
/// overlap it without an earlier one doing so, and a destination ending at or before a
/// source's start ends before every later source's. No sort, no allocation.
fn disjoint_in_order(spans: &[(Span, Span)]) -> bool {
    let mut j = 0;
    for (_, s) in spans.iter().filter(|(_, s)| s.bytes > 0) {
        while spans
            .get(j)
            .is_some_and(|(d, _)| d.bytes == 0 || end(*d) <= s.at)
        {
            j += 1;
        }
        if spans.get(j).is_some_and(|(d, _)| d.at < end(*s)) {
            return false;
        }
    }
    true
}

impl<'scope> StreamScope<'scope, '_> {
    /// An empty batch of 3D copies for this scope; see [`Copy3dBatch`] and
    /// [`copy_3d_batch`](Self::copy_3d_batch).
    pub fn batch_3d<'b>(&self) -> Copy3dBatch<'b, 'scope> {
        Copy3dBatch::new()
    }

    /// `cuMemcpy3DBatchAsync`—Enqueues every copy of `batch` with one driver call (CUDA 12.8's
    /// form, looked up through `cuGetProcAddress`); the batch runs in stream order as a whole,
    /// its copies in no order among themselves, each reading its source in stream order. An
    /// empty batch calls nothing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if a destination overlaps another destination or a source of
    /// the batch (R31), before the driver is called; [`ErrorKind::DriverTooOld`] before driver
    /// 12.8 ("cuMemcpy3DBatchAsync needs driver ≥ 12.8"); the driver's errors (the copy it
    /// blames, where it names one, in the error's detail).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let mut a = guard.alloc_array::<u32>(64, 64)?;
    /// let host = vec![7u32; 64 * 64];
    /// let mut back = vec![0u32; 64 * 64];
    /// stream.scope(|s| -> custack::Result<()> {
    ///     let mut sa = s.bind_array(&mut a);
    ///     let mut up = s.batch_3d();
    ///     up.to_array(&mut sa, &host)?;
    ///     s.copy_3d_batch(up)?;
    ///     let mut down = s.batch_3d();
    ///     down.from_array(&mut back, &sa)?;
    ///     s.copy_3d_batch(down)
    /// })??;
    /// assert_eq!(back, host);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy3DBatchAsync")]
    pub fn copy_3d_batch(&self, batch: Copy3dBatch<'_, 'scope>) -> Result<()> {
        const WHAT: &str = "cuMemcpy3DBatchAsync";
        // Poisoned or forked (R20, R22): refused without the driver, as every enqueue.
        crate::error::poison::check()?;
        // Taken by value: the batch's borrows end once its copies are enqueued.
        batch.check(WHAT)?;
        // The descriptors, kept in their final layout as the copies were added.
        let Copy3dBatch { mut raw, .. } = batch;
        if raw.is_empty() {
            return Ok(());
        }
        let batch_fn = crate::driver::lookup::MEMCPY_3D_BATCH_ASYNC.get()?;
        let mut fail = usize::MAX;
        // SAFETY: `raw` holds `raw.len()` descriptors, each of a copy that a single 3D copy of
        // this scope would enqueue (an array or pitched buffer bound to the scope and borrowed
        // for the batch's 'b, host memory borrowed for 'scope, shapes checked, no extent 0: an
        // array's extent is at least 1 in each dimension, a pitched buffer's too); the
        // destinations overlap no other side of the batch (checked above, on the ranges pushed
        // with each descriptor, one pair a descriptor), so the copies' lack
        // of order among themselves cannot race; sources are read in stream order; `fail` is a
        // valid out-pointer; flags 0. `batch_fn` has the 12.8 signature: looked up at 12080.
        let r = unsafe { batch_fn(raw.len(), raw.as_mut_ptr(), &raw mut fail, 0, self.as_raw()) }
            .result();
        r.map_err(|e| match fail {
            usize::MAX => e,
            i => {
                let detail = match e.detail() {
                    Some(d) => format!("{d}; {WHAT}: the driver blamed copy {i} of the batch"),
                    None => format!("{WHAT}: the driver blamed copy {i} of the batch"),
                };
                e.with_detail(detail)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_name_each_side_as_cuda_h_does() {
        let host = pointer(0x7000, 16, 8, 16 * 8 * 4, Side::Host);
        let dev = pointer(0xd000, 512, 8, 512 * 7 + 64, Side::Device);
        let mut batch = Copy3dBatch::new();
        batch.push(dev, host, [64, 8, 1]);
        batch.prefer_overlap_with_compute();
        // A copy added after the flag is set takes it too.
        batch.push(host, dev, [64, 8, 1]);
        assert_eq!(batch.len(), 2);
        assert_eq!(batch.spans.len(), 2);
        assert!(
            batch
                .raw
                .iter()
                .all(|r| r.flags == ffi::CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE)
        );
        let r = batch.raw[0];
        assert_eq!(r.src.type_, ffi::CU_MEMCPY_OPERAND_TYPE_POINTER);
        // SAFETY: the type says `ptr`.
        let s = unsafe { r.src.op.ptr };
        // SAFETY: as above.
        let d = unsafe { r.dst.op.ptr };
        assert_eq!((s.ptr, s.rowLength, s.layerHeight), (0x7000, 16, 8));
        assert_eq!((d.ptr, d.rowLength, d.layerHeight), (0xd000, 512, 8));
        assert_eq!(
            (r.extent.width, r.extent.height, r.extent.depth),
            (64, 8, 1)
        );
        assert_eq!(r.srcAccessOrder, ffi::CU_MEMCPY_SRC_ACCESS_ORDER_STREAM);
        assert_eq!(r.flags, ffi::CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE);
    }

    #[test]
    fn a_pitched_side_spans_its_padding() {
        // 4 rows of 64 bytes, 512 apart: from the first byte to the last row's end.
        assert_eq!(spanned("t", 512, 64, 4).unwrap(), 3 * 512 + 64);
        assert_eq!(spanned("t", 512, 64, 1).unwrap(), 64);
        let e = spanned("t", usize::MAX, 64, 3).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
    }

    #[test]
    fn host_destinations_overlapping_in_a_3d_batch_are_refused() {
        let (a, b) = (
            pointer(0x7000, 16, 8, 512, Side::Host),
            pointer(0x71ff, 16, 8, 512, Side::Host),
        );
        let arr = Span {
            at: 0x5000,
            bytes: 1,
            side: Side::Array,
        };
        // Two downloads whose host ranges overlap by one byte.
        let e = check_spans("t", [(a.span, arr), (b.span, arr)].into_iter()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(
            e.to_string().contains(
                "the destination of copy 0 (host 0x7000..0x7200) overlaps the destination of copy 1"
            ),
            "{e}"
        );
        // The same array read twice is fine; written and read is not.
        check_spans(
            "t",
            [
                (a.span, arr),
                (pointer(0x9000, 1, 1, 8, Side::Host).span, arr),
            ]
            .into_iter(),
        )
        .unwrap();
        let e = check_spans("t", [(arr, a.span), (b.span, arr)].into_iter()).unwrap_err();
        assert!(e.to_string().contains("(array 0x5000..0x5001)"), "{e}");
    }

    fn span(at: u64, bytes: usize, side: Side) -> Span {
        Span { at, bytes, side }
    }

    /// A batch of copies with these `(destination, source)` ranges, added in order (each
    /// side's descriptor a pointer; only the ranges matter to the check).
    fn batch_of(spans: &[(Span, Span)]) -> Copy3dBatch<'static, 'static> {
        let side = |x: Span| Operand {
            raw: pointer(x.at, 1, 1, x.bytes, x.side).raw,
            span: x,
        };
        let mut batch = Copy3dBatch::new();
        for &(d, s) in spans {
            batch.push(side(d), side(s), [1, 1, 1]);
        }
        batch
    }

    /// Whether a destination overlaps another destination or any source, every pair of
    /// nonempty ranges compared: the reference of the agreement test.
    fn overlap_by_pairs(spans: &[(Span, Span)]) -> bool {
        let ranges: Vec<(Span, bool, usize)> = spans
            .iter()
            .enumerate()
            .flat_map(|(i, &(d, s))| [(d, true, i), (s, false, i)])
            .filter(|x| x.0.bytes > 0)
            .collect();
        ranges.iter().enumerate().any(|(a, x)| {
            ranges[a + 1..].iter().any(|y| {
                let same_copy_and_role = x.2 == y.2 && x.1 == y.1;
                (x.1 || y.1) && !same_copy_and_role && x.0.at < end(y.0) && y.0.at < end(x.0)
            })
        })
    }

    #[test]
    fn the_3d_merge_agrees_with_the_sort_on_random_batches() {
        // Batches of 1 to 6 copies on a grid of 16-byte slots, from a fixed pseudo-random
        // sequence, half of them added in order (destinations increasing and disjoint, sources
        // increasing, both from a common base so that they interleave), half anywhere; sides
        // host, device (any length, as a pitched side spanning its padding) or an array (one
        // byte at its handle); ranges of zero bytes among them. On every batch the verdict of
        // `check_spans` is the pairwise reference's and the batch's check gives its verdict and
        // message; on every batch in order the merge alone decides as the reference does.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        // [in order, not in order] × [accepted, refused]
        let mut seen = [[0usize; 2]; 2];
        // Under Miri (scripts/miri.sh runs the unit tests there, about a thousand times slower)
        // a two-hundred-and-fiftieth of the batches, the same sequence's start: the property is
        // the same.
        let batches = if cfg!(miri) { 80 } else { 20_000 };
        for b in 0..batches {
            let n = 1 + next(6) as usize;
            let ordered = b % 2 == 0;
            let base = next(8) * 16;
            let (mut dst_at, mut src_at) = (base, base + next(4) * 16);
            let side = |next: &mut dyn FnMut(u64) -> u64, at: u64| match next(3) {
                0 => span(at, 1, Side::Array),
                1 => span(at, (next(4) * 16) as usize, Side::Device),
                _ => span(at, (next(4) * 16) as usize, Side::Host),
            };
            let mut spans = Vec::with_capacity(n);
            for _ in 0..n {
                let (d, s) = if ordered {
                    let d = side(&mut next, dst_at);
                    let s = side(&mut next, src_at);
                    dst_at = end(d) + next(3) * 16;
                    src_at += next(3) * 16;
                    (d, s)
                } else {
                    let (dat, sat) = (next(24) * 16, next(24) * 16);
                    (side(&mut next, dat), side(&mut next, sat))
                };
                spans.push((d, s));
            }
            let reference = !overlap_by_pairs(&spans);
            let sorting = check_spans("t", spans.iter().copied()).map_err(|e| e.to_string());
            assert_eq!(sorting.is_ok(), reference, "{spans:?}");
            let batch = batch_of(&spans);
            assert_eq!(
                batch.check("t").map_err(|e| e.to_string()),
                sorting,
                "{spans:?}"
            );
            let in_order = batch.order.in_order();
            if in_order {
                assert_eq!(disjoint_in_order(&spans), reference, "{spans:?}");
            }
            // Built in order: the flags say so (destinations disjoint) or a destination
            // overlaps the one before.
            if ordered && !in_order {
                assert!(!reference, "{spans:?}");
            }
            seen[usize::from(!in_order)][usize::from(!reference)] += 1;
        }
        assert!(seen.iter().flatten().all(|&k| k > batches / 40), "{seen:?}");
    }

    #[test]
    fn an_overlap_only_the_merge_of_an_in_order_batch_sees_is_refused() {
        // Destinations and sources both increasing as added, so no sort runs to decide: copy
        // 1's host destination (a download from pitched memory) overlaps copy 0's host source
        // (an upload into pitched memory), and the merge must see it.
        let spans = [
            (
                span(0x1000, 3 * 0x200 + 0x40, Side::Device),
                span(0x3000, 0x100, Side::Host),
            ),
            (
                span(0x30f0, 0x100, Side::Host),
                span(0x8000, 3 * 0x200 + 0x40, Side::Device),
            ),
        ];
        let batch = batch_of(&spans);
        assert!(batch.order.in_order());
        assert!(!disjoint_in_order(&spans));
        let e = batch.check("t").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(
            e.to_string().contains(
                "the source of copy 0 (host 0x3000..0x3100) overlaps the destination of copy 1 \
                 (host 0x30f0..0x31f0)"
            ),
            "{e}"
        );
        // A source in a pitched destination's padding (rows of 0x40 bytes 0x200 apart: 0x1100
        // is between rows 0 and 1), in order too.
        let spans = [
            (
                span(0x1000, 3 * 0x200 + 0x40, Side::Device),
                span(0x900, 0x100, Side::Host),
            ),
            (
                span(0x2000, 0x40, Side::Host),
                span(0x1100, 0x40, Side::Device),
            ),
        ];
        let batch = batch_of(&spans);
        assert!(batch.order.in_order());
        assert!(!disjoint_in_order(&spans));
        let e = batch.check("t").unwrap_err();
        assert!(
            e.to_string().contains(
                "the destination of copy 0 (device 0x1000..0x1640) overlaps the source of copy \
                 1 (device 0x1100..0x1140)"
            ),
            "{e}"
        );
        // The same ranges with copy 1's source moved past copy 0's last row: in order, and
        // accepted by the merge alone.
        let spans = [spans[0], (spans[1].0, span(0x1640, 0x40, Side::Device))];
        let batch = batch_of(&spans);
        assert!(batch.order.in_order() && disjoint_in_order(&spans));
        batch.check("t").unwrap();
    }

    #[test]
    fn one_array_named_by_two_copies_of_a_batch_is_refused_in_either_order() {
        // What the borrows already forbid (an array bound once per scope, `&mut` for a
        // destination), checked again at run time: two copies naming one array handle.
        let arr = span(0x5000, 1, Side::Array);
        // Written twice, the copies added in order of their sources: the destinations' order
        // sees it (the second starts before the first ends), and the sort names it.
        let spans = [
            (arr, span(0x7000, 0x200, Side::Host)),
            (arr, span(0x9000, 0x200, Side::Host)),
        ];
        let batch = batch_of(&spans);
        assert!(!batch.order.in_order());
        let e = batch.check("t").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(
            e.to_string().contains(
                "the destination of copy 0 (array 0x5000..0x5001) overlaps the destination of \
                 copy 1 (array 0x5000..0x5001)"
            ),
            "{e}"
        );
        // Read into the host by copy 0 and written by copy 1, both sides increasing as added:
        // in order, so only the merge can see it.
        let spans = [
            (span(0x1000, 0x200, Side::Host), arr),
            (arr, span(0x9000, 0x200, Side::Host)),
        ];
        let batch = batch_of(&spans);
        assert!(batch.order.in_order());
        assert!(!disjoint_in_order(&spans));
        let e = batch.check("t").unwrap_err();
        assert!(
            e.to_string().contains(
                "the source of copy 0 (array 0x5000..0x5001) overlaps the destination of copy 1 \
                 (array 0x5000..0x5001)"
            ),
            "{e}"
        );
    }
}
