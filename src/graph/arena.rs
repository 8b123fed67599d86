//! A replay arena: device memory reserved once ([`PushedGuard::replay_arena`], one
//! `cuMemAlloc`) and lent out as typed buffers ([`ArenaBuffer`]) that graphs, built or
//! captured, take as their payload. The graph replays at the same addresses every launch, with
//! no allocation or free node and no allocation between launches: the memory is the arena's.
//!
//! Where other crates ask for an `unsafe` session around such memory, here it is a borrow: an
//! [`ArenaBuffer<'a, T>`](ArenaBuffer) borrows its arena for `'a`, and a graph or executable
//! graph whose payload holds it borrows the arena as long. So the arena is not dropped (freed)
//! nor [`reset`](ReplayArena::reset) (its memory lent again) while any of them lives: a compile
//! error (C28.6).
//!
//! ```text
//!   let arena = guard.replay_arena(1 << 20)?;            cuMemAlloc, once
//!   let x = arena.buffer::<u32>(n)?;                      carved, no driver call
//!   let exec = guard.build_graph((x, add), |b, (mut x, add)| …)?.instantiate()?;
//!   … launched many times: every node names the same addresses
//!   drop(exec); drop(arena);                              cuCtxSynchronize, cuMemFree
//! ```

use crate::asynchronous::payload::{Payload, sealed as payload_sealed};
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::left_behind::{Object, left_behind};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::{
    DeviceMemory, DeviceMemoryMut, DeviceView, DeviceViewMut, check_alloc_len, free_device_in_drop,
    sealed,
};
use crate::vocabulary::binding::ScopedSliceMut;
use crate::vocabulary::plain::DeviceCopy;
use core::cell::Cell;
use core::marker::PhantomData;

/// The alignment of every buffer an arena lends: `cuMemAlloc`'s own, enough for any element
/// type and for vectorized kernel loads.
pub const ARENA_ALIGN: usize = 256;

/// Device memory reserved once by [`PushedGuard::replay_arena`] and lent out as typed
/// [`ArenaBuffer`]s, each carved from it at the next aligned offset without a driver call.
///
/// What the types promise (C28.6):
///
/// - **Each buffer is lent once.** [`buffer`](Self::buffer) carves a range no other buffer of
///   the arena covers; an [`ArenaBuffer`] is not `Clone`, so its memory is written through one
///   handle (a payload moves it; a scope binds it exclusively).
/// - **The buffers outlive every graph over them.** A buffer borrows the arena (`&'a self`); a
///   [`Graph`](crate::graph::Graph) or [`GraphExec`](crate::graph::GraphExec) (or a
///   [`SharedExec`](crate::graph::SharedExec) of it) whose payload holds one borrows it as long. So
///   the arena cannot be dropped, which frees the memory, nor [`reset`](Self::reset), which
///   lends it again, while any of them lives (a compile error).
/// - **A leaked graph leaks nothing unsound.** An executable graph forgotten (`mem::forget`)
///   ends its borrow with work possibly in flight, so dropping or resetting the arena first
///   synchronizes its context (`cuCtxSynchronize`), as unloading a [`Module`](crate::Module)
///   does; after a sticky error the memory is left to the context, never freed under work.
///
/// Tied to the guard that made it, as a [`DeviceBuffer`](crate::DeviceBuffer) is: it frees in
/// the context that is current. Not `Send` or `Sync`.
#[derive(Debug)]
#[doc(alias = "cuMemAlloc")]
pub struct ReplayArena<'g> {
    base: ffi::CUdeviceptr,
    bytes: usize,
    /// The next free offset from `base`, a multiple of [`ARENA_ALIGN`] or `bytes`.
    next: Cell<usize>,
    _marker: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(ReplayArena<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(ArenaBuffer<'static, u8>: Send, Sync, Clone);

/// A typed buffer lent by a [`ReplayArena`]: device memory like a
/// [`DeviceBuffer`](crate::DeviceBuffer) (it implements [`DeviceMemory`] and
/// [`DeviceMemoryMut`], and is a [`Payload`] a graph or submission can own), but its memory is
/// the arena's: dropping it frees nothing, and the arena outlives it (`'a`).
#[derive(Debug)]
pub struct ArenaBuffer<'a, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: PhantomData<(&'a (), *const T)>,
}

crate::memory::device_memory!(ArenaBuffer, mut_);

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemAlloc`—Reserves `bytes` of device memory as a [`ReplayArena`], whose
    /// [`buffer`](ReplayArena::buffer)s graphs replay over at stable addresses (C28.6).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for zero bytes; the driver's errors (out of memory).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, Driver, LaunchConfig, Stack};
    ///
    /// custack::kernel_contract! {
    ///     /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    ///     pub unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
    /// }
    ///
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let arena = guard.replay_arena(1 << 20)?;
    /// let x = arena.buffer::<u32>(1024)?;
    /// let at = x.device_ptr();
    /// let graph = guard.build_graph((x, module.declared::<AddU32>()?), move |b, (mut x, add)| {
    ///     let set = b.fill_u32(&mut x, 40, &[])?;
    ///     b.kernel(&add, LaunchConfig::for_elements(1024), (&mut x, 2u32, 1024u32), &[set])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// let stream = guard.stream()?;
    /// for _ in 0..100 {
    ///     stream.scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))??;
    /// }
    /// assert_eq!(exec.payload().0.device_ptr(), at);
    /// assert!(exec.payload().0.to_vec()?.iter().all(|&v| v == 42));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemAlloc")]
    pub fn replay_arena(&self, bytes: usize) -> Result<ReplayArena<'_>> {
        crate::error::poison::check()?;
        let bytes = check_alloc_len::<u8>(bytes)?;
        let mut base: ffi::CUdeviceptr = 0;
        // SAFETY: a valid out-pointer; this guard's context is current.
        unsafe { ffi::cuMemAlloc_v2(&raw mut base, bytes) }.result()?;
        Ok(ReplayArena {
            base,
            bytes,
            next: Cell::new(0),
            _marker: PhantomData,
        })
    }
}

impl ReplayArena<'_> {
    /// The device address of the reservation.
    pub fn device_ptr(&self) -> ffi::CUdeviceptr {
        self.base
    }

    /// The size of the reservation in bytes.
    pub fn capacity(&self) -> usize {
        self.bytes
    }

    /// The bytes not yet lent (past the next aligned offset).
    pub fn remaining(&self) -> usize {
        self.bytes - Cell::get(&self.next)
    }

    /// Lends `len` elements of `T` from the next [`ARENA_ALIGN`]-aligned offset: no driver call
    /// and no host allocation. The memory is not initialized by the arena: it holds whatever
    /// was written there before (any bit pattern is a valid `T`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for zero elements, [`ErrorKind::SizeOverflow`], and
    /// [`ErrorKind::OutOfMemory`] when the arena has fewer than `len` elements left (nothing is
    /// lent then).
    pub fn buffer<T: DeviceCopy>(&self, len: usize) -> Result<ArenaBuffer<'_, T>> {
        let need = check_alloc_len::<T>(len)?;
        let at = Cell::get(&self.next);
        let end = at.checked_add(need).filter(|&end| end <= self.bytes);
        let Some(end) = end else {
            return Err(
                Error::from_kind(ErrorKind::OutOfMemory).with_detail(format!(
                    "the replay arena has {} of {} bytes left, {need} asked for",
                    self.bytes - at,
                    self.bytes
                )),
            );
        };
        let next = end
            .checked_next_multiple_of(ARENA_ALIGN)
            .map_or(self.bytes, |n| n.min(self.bytes));
        self.next.set(next);
        Ok(ArenaBuffer {
            ptr: self.base + at as ffi::CUdeviceptr,
            len,
            _marker: PhantomData,
        })
    }

    /// `cuCtxSynchronize`—Takes every buffer back, so that the whole arena is lent again.
    /// `&mut self` proves no buffer, and so no graph over one, lives; the context is
    /// synchronized first, for work of an executable graph that was leaked.
    ///
    /// # Errors
    ///
    /// The wait's error: then nothing is taken back (the work may still use the memory).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxSynchronize")]
    pub fn reset(&mut self) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: the arena's guard keeps its context current.
        unsafe { ffi::cuCtxSynchronize() }.result()?;
        self.next.set(0);
        Ok(())
    }
}

impl Drop for ReplayArena<'_> {
    fn drop(&mut self) {
        // No buffer lives (each borrows the arena), but a leaked executable graph may still run
        // over the memory: wait for the context first. A sticky error (R20) or a failed wait
        // leaves the memory to the context, never freed under work.
        let idle = crate::error::poison::may_release().is_ok()
            // SAFETY: the arena's guard keeps its context current.
            && unsafe { ffi::cuCtxSynchronize() }.result().is_ok();
        if idle {
            // SAFETY: `base` was allocated by `cuMemAlloc` in the current context, is freed
            // once, and no work uses it (above).
            unsafe { free_device_in_drop(self.base) }
        } else {
            left_behind(Object::DeviceMemory, self.base);
        }
    }
}

impl<T: DeviceCopy> payload_sealed::Sealed for ArenaBuffer<'_, T> {}
/// An arena buffer moved into a graph or submission: bound as a [`ScopedSliceMut`], read and
/// reached between launches as a [`DeviceView`] and a [`DeviceViewMut`]. The memory stays the
/// arena's, which the payload's borrow keeps alive.
impl<T: DeviceCopy> Payload for ArenaBuffer<'_, T> {
    type Bound<'scope> = ScopedSliceMut<'scope, T>;
    type Access<'b>
        = DeviceViewMut<'b, T>
    where
        Self: 'b;
    type Read<'b>
        = DeviceView<'b, T>
    where
        Self: 'b;
    crate::asynchronous::payload::held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> ScopedSliceMut<'scope, T> {
        // SAFETY: the arena's memory lives while the buffer borrows the arena, and the caller
        // promises the buffer is neither dropped nor reached until the scope's work is complete;
        // `&mut` and the caller's promise give the scope exclusive access.
        unsafe { ScopedSliceMut::from_raw_parts(held.ptr, held.len) }
    }
    #[inline]
    fn access<'b>(held: &'b mut Self) -> DeviceViewMut<'b, T>
    where
        Self: 'b,
    {
        held.as_view_mut()
    }
    #[inline]
    fn read<'b>(held: &'b Self) -> DeviceView<'b, T>
    where
        Self: 'b,
    {
        held.as_view()
    }
}
