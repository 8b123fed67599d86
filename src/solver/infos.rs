//! An info array for many cuSOLVER calls of one scope ([`SolverInfos`], opened on a scope as an
//! [`InfoBatch`]): each call writes its info into its own slot of one device array, and the
//! used slots come back to pinned host memory with **one** stream-ordered copy, enqueued when
//! the batch is dropped at the scope's end; then read as typed results naming the call.
//!
//! Also the sealed [`InfoOut`] every call takes: one [`SolverInfo`] (its own copy after the
//! call) or a batch (a slot, no copy of its own).

use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::memory::{DeviceBuffer, DeviceMemory, PinnedBuffer};
use crate::solver::info::{Info, Meaning, NOT_WRITTEN, SolverInfo};
use core::cell::Cell;
use core::marker::PhantomData;

/// The call that took a slot, what its positive info means, and whether cuSOLVER accepted it
/// (only then does the GPU write the slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Taken {
    pub(crate) call: &'static str,
    pub(crate) meaning: Meaning,
    pub(crate) enqueued: bool,
}

/// The next free slot of `cap`, or [`ErrorKind::BufferTooShort`] naming the call: more calls
/// than slots are refused before cuSOLVER sees the call (see [`SolverInfos`] for why). Inside
/// a graph capture's closure (reached only through a leaked guard) the call is refused before
/// it takes a slot, as every library handle's call is there: then the batch has nothing to
/// copy back, and enqueues no copy into the captured graph, which could run after the array
/// is freed.
pub(crate) fn claim(used: &Cell<usize>, cap: usize, call: &str) -> Result<usize> {
    crate::asynchronous::refuse_inside_capture(call)?;
    let index = used.get();
    if index >= cap {
        return Err(Error::custack(
            ErrorKind::BufferTooShort,
            format!(
                "{call}: the info array holds {cap} slots, all taken by this scope's earlier \
                 calls; nothing was enqueued (make the array with more slots)"
            ),
        ));
    }
    used.set(index + 1);
    Ok(index)
}

/// Whether any of the first `used` slots was written by a call cuSOLVER accepted: only then
/// does a batch enqueue its copy back.
pub(crate) fn needs_copy(taken: &[Cell<Option<Taken>>], used: usize) -> bool {
    taken
        .iter()
        .take(used)
        .any(|t| t.get().is_some_and(|t| t.enqueued))
}

/// The raw info of slot `index` of the last batch: `taken` its slots, `used` as many as it
/// took (`None`: it was never dropped, so its copy back was never enqueued), `host` the words
/// its one copy brought back.
pub(crate) fn read(
    taken: &[Cell<Option<Taken>>],
    host: &[i32],
    used: Option<usize>,
    index: usize,
) -> Result<(Taken, i32)> {
    let used = used.ok_or_else(forgotten)?;
    let slot = if index < used {
        taken.get(index).and_then(Cell::get)
    } else {
        None
    };
    let Some(slot) = slot else {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            format!("call {index} of the scope: the last batch took only {used} slots"),
        ));
    };
    match host.get(index).copied().unwrap_or(NOT_WRITTEN) {
        value if slot.enqueued && value != NOT_WRITTEN => Ok((slot, value)),
        _ => Err(Error::custack(
            ErrorKind::InvalidValue,
            format!(
                "{} (call {index} of the scope): its info was not written (the call returned \
                 an error, or its scope's work or read-back did not complete)",
                slot.call
            ),
        )),
    }
}

/// The error of a read after a batch that was never dropped.
#[cold]
fn forgotten() -> Error {
    Error::custack(
        ErrorKind::InvalidValue,
        "the last info batch opened on this array was never dropped (`mem::forget`): its \
         copy back was never enqueued, so none of its infos is known"
            .to_owned(),
    )
}

/// `Ok` when the info of slot `index` says success, else its typed error naming the call and
/// its index in the scope.
pub(crate) fn ensure(
    taken: &[Cell<Option<Taken>>],
    host: &[i32],
    used: Option<usize>,
    index: usize,
) -> Result<()> {
    let (slot, value) = read(taken, host, used, index)?;
    Info::interpret(slot.meaning, value)
        .into_result(&format!("{} (call {index} of the scope)", slot.call), value)
}

/// The info words of up to `capacity` cuSOLVER calls of one scope: lent by a guard
/// ([`PushedGuard::solver_infos`]), opened on a scope ([`open`](Self::open)) as an
/// [`InfoBatch`] that every call of the scope takes (`&batch`), read after the scope.
///
/// Call `i` of the scope (0-based, in the order the calls were made; [`InfoBatch::calls`]
/// says which index the next call gets) writes its info on the GPU into slot `i` of one device
/// array; the batch, dropped at the end of the scope's closure, enqueues **one** copy of the
/// used slots into pinned host memory on the scope's stream, so `N` calls cost `N` cuSOLVER
/// calls and one copy, where a [`SolverInfo`] each costs `N` copies. The scope's one wait
/// brings the words home; reading them makes no driver call and never waits.
///
/// What the types and the checks keep:
/// - the batch borrows the array for the whole scope (`&'scope mut`): reading it inside the
///   scope is a borrow error, as is opening a second batch on it in the same scope;
/// - opening a batch forgets what the last one read (every host word `NOT_WRITTEN`, no slot
///   taken), and until the batch is dropped every read is an error: a batch that never
///   enqueued its copy (`mem::forget`) reads as "never dropped", never as an earlier scope's
///   info, nor as success;
/// - a call cuSOLVER refused (its status) keeps its slot, marked not written, so the indices
///   of later calls do not shift and nothing the GPU did not write is read;
/// - more calls than slots: the call is refused ([`ErrorKind::BufferTooShort`], nothing
///   enqueued). The array is not grown inside a scope, because its earlier slots are still
///   being written by the GPU (it cannot be freed before the wait), and a second copy would
///   silently break the one-copy cost; make the array with as many slots as the scope has
///   calls.
///
/// Borrows the guard (`'g`); `!Send` and `!Sync`.
#[derive(Debug)]
#[doc(alias = "devInfo")]
pub struct SolverInfos<'g> {
    device: DeviceBuffer<'g, i32>,
    host: PinnedBuffer<'g, i32>,
    taken: Box<[Cell<Option<Taken>>]>,
    /// The slots the last batch used: set when it is dropped, `None` from its opening until
    /// then (for ever if it was forgotten).
    used: Option<usize>,
    /// The read-back copies enqueued so far.
    read_backs: u64,
}

static_assertions::assert_not_impl_any!(SolverInfos<'static>: Send, Sync);

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemAlloc` and `cuMemHostAlloc`—An info array for up to `capacity` cuSOLVER calls
    /// of one scope of this guard's context: `capacity` device words cuSOLVER writes, as many
    /// pinned host words one copy brings them back into.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for no slot; [`ErrorKind::SizeOverflow`];
    /// `CUDA_ERROR_OUT_OF_MEMORY`; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let infos = guard.solver_infos(100)?;
    /// assert_eq!((infos.capacity(), infos.len()), (100, 0));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemAlloc")]
    #[doc(alias = "cuMemHostAlloc")]
    pub fn solver_infos(&self, capacity: usize) -> Result<SolverInfos<'_>> {
        if capacity == 0 {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "solver_infos: an info array needs at least one slot".to_owned(),
            ));
        }
        let device = self.alloc_zeroed::<i32>(capacity)?;
        let mut host = self.alloc_pinned::<i32>(capacity)?;
        host.fill(NOT_WRITTEN);
        Ok(SolverInfos {
            device,
            host,
            taken: (0..capacity).map(|_| Cell::new(None)).collect(),
            used: Some(0),
            read_backs: 0,
        })
    }
}

impl<'g> SolverInfos<'g> {
    /// Opens the array on scope `s` for its calls: forgets what the last batch read, and
    /// borrows the array until the scope ends. Dropping the batch (at the latest at the end
    /// of the scope's closure) enqueues the one copy back.
    pub fn open<'scope>(&'scope mut self, s: &StreamScope<'scope, '_>) -> InfoBatch<'scope, 'g> {
        self.host.fill(NOT_WRITTEN);
        for slot in &*self.taken {
            slot.set(None);
        }
        self.used = None;
        InfoBatch {
            stream: s.as_raw(),
            infos: self,
            used: Cell::new(0),
            _scope: PhantomData,
        }
    }

    /// How many slots the array holds.
    pub fn capacity(&self) -> usize {
        self.taken.len()
    }

    /// How many calls the last batch took slots for (0 if none was opened, or if it was
    /// forgotten: then every read is an error).
    pub fn len(&self) -> usize {
        self.used.unwrap_or(0)
    }

    /// Whether the last batch took no slot.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many read-back copies (`cuMemcpyDtoHAsync`) the array's batches have enqueued:
    /// one per batch that took a slot, whatever its number of calls.
    pub fn read_backs(&self) -> u64 {
        self.read_backs
    }

    /// The C name of call `index` of the last batch (`"cusolverDnDgetrf"`), if it took one.
    pub fn call(&self, index: usize) -> Option<&'static str> {
        (index < self.len())
            .then(|| self.taken.get(index).and_then(Cell::get))
            .flatten()
            .map(|t| t.call)
    }

    /// The raw info of call `index` of the last batch, read after its scope with no driver
    /// call and no wait.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] when the last batch took no slot `index`, or when its call
    /// did not write it (cuSOLVER refused it, or the scope's work or read-back did not
    /// complete: then the scope's own error says why); when the last batch was never dropped
    /// (`mem::forget`), so nothing of it was read back.
    pub fn raw(&self, index: usize) -> Result<i32> {
        read(&self.taken, &self.host, self.used, index).map(|(_, v)| v)
    }

    /// What call `index`'s info word said, typed by its call.
    ///
    /// # Errors
    ///
    /// As [`raw`](Self::raw).
    pub fn outcome(&self, index: usize) -> Result<Info> {
        let (slot, value) = read(&self.taken, &self.host, self.used, index)?;
        Ok(Info::interpret(slot.meaning, value))
    }

    /// `Ok` when every call of the last batch succeeded, else the typed error of the first
    /// that did not, naming the call and its index in the scope (`cusolverDnDgetrf (call 37
    /// of the scope): U(3,3) is exactly zero`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::SingularMatrix`], [`ErrorKind::NotPositiveDefinite`],
    /// [`ErrorKind::NotConverged`], [`ErrorKind::InvalidValue`] as
    /// [`SolverInfo::ensure_success`]; as [`raw`](Self::raw) for a slot not written, or a
    /// last batch that was forgotten.
    pub fn ensure_success(&self) -> Result<()> {
        let used = self.used.ok_or_else(forgotten)?;
        (0..used).try_for_each(|i| ensure(&self.taken, &self.host, self.used, i))
    }
}

/// An info array opened on one scope ([`SolverInfos::open`]): every cuSOLVER call of the scope
/// takes it shared (`&batch`) and writes its info into the next slot; dropped, it enqueues the
/// one copy of the used slots back, on the scope's stream.
///
/// Branded with the scope (`'scope`, invariant): it cannot be given to a call on another
/// scope's stream, nor leave the scope's closure. `!Send` and `!Sync`.
#[derive(Debug)]
pub struct InfoBatch<'scope, 'g> {
    infos: &'scope mut SolverInfos<'g>,
    stream: ffi::CUstream,
    used: Cell<usize>,
    _scope: PhantomData<&'scope mut &'scope ()>,
}

static_assertions::assert_not_impl_any!(InfoBatch<'static, 'static>: Send, Sync);

impl InfoBatch<'_, '_> {
    /// How many calls have taken slots so far: the index the next call gets.
    pub fn calls(&self) -> usize {
        self.used.get()
    }
}

impl Drop for InfoBatch<'_, '_> {
    fn drop(&mut self) {
        let used = self.used.get();
        if !needs_copy(&self.infos.taken, used) {
            // No call reached the GPU: nothing to read back, every read says so.
            self.infos.used = Some(used);
            return;
        }
        // Poisoned, forked or inside a driver callback (R20, R22, R35): no copy is enqueued; the
        // host words stay `NOT_WRITTEN`, so every read says "not written".
        if let Err(e) = crate::error::poison::check() {
            record_drop_error(e);
            self.infos.used = Some(used);
            return;
        }
        let bytes = used * size_of::<i32>();
        // SAFETY: the host words are pinned memory of the array, borrowed exclusively for the
        // scope (through `infos`), so nothing reads or frees them until the scope has waited
        // for its stream, which this copy is on; `used ≤ capacity` words on both sides; the
        // device array is live device memory of the scope's context until then; the stream is
        // the scope's, live for the scope, and the batch cannot leave the scope's closure.
        let copied = unsafe {
            ffi::cuMemcpyDtoHAsync_v2(
                self.infos.host.as_mut_ptr().cast(),
                self.infos.device.device_ptr(),
                bytes,
                self.stream,
            )
        }
        .result();
        match copied {
            Ok(()) => self.infos.read_backs += 1,
            // The host words stay `NOT_WRITTEN`: every read says "not written".
            Err(e) => record_drop_error(e),
        }
        self.infos.used = Some(used);
    }
}

mod sealed {
    use super::{Meaning, Result, StreamScope};

    pub trait Target<'scope> {
        /// Runs `f` with the device word the call writes its info into, then makes sure the
        /// info comes back: a copy of its own, or a slot of the batch's one copy.
        fn enqueue_with(
            self,
            s: &StreamScope<'scope, '_>,
            call: &'static str,
            meaning: Meaning,
            f: impl FnOnce(crate::ffi::CUdeviceptr) -> Result<()>,
        ) -> Result<()>;
    }
}

/// Where a cuSOLVER call writes its info: `&mut` a [`SolverInfo`] (one word, its own copy
/// back after the call) or `&` an [`InfoBatch`] (a slot of the scope's one array and copy).
/// Sealed.
pub trait InfoOut<'scope>: sealed::Target<'scope> {}

impl<'scope> InfoOut<'scope> for &'scope mut SolverInfo<'_> {}
impl<'scope> sealed::Target<'scope> for &'scope mut SolverInfo<'_> {
    fn enqueue_with(
        self,
        s: &StreamScope<'scope, '_>,
        call: &'static str,
        meaning: Meaning,
        f: impl FnOnce(ffi::CUdeviceptr) -> Result<()>,
    ) -> Result<()> {
        let (device, host) = self.take_for(call, meaning);
        f(device.device_ptr())?;
        // The answer comes back in stream order: the scope's wait brings it home.
        s.copy_to_host(host, s.bind(device))
    }
}

impl<'scope> InfoOut<'scope> for &InfoBatch<'scope, '_> {}
impl<'scope> sealed::Target<'scope> for &InfoBatch<'scope, '_> {
    fn enqueue_with(
        self,
        _s: &StreamScope<'scope, '_>,
        call: &'static str,
        meaning: Meaning,
        f: impl FnOnce(ffi::CUdeviceptr) -> Result<()>,
    ) -> Result<()> {
        // The brand (`'scope`, invariant) makes `s` the scope the batch was opened on, so the
        // call and the copy back at the batch's drop are on one stream, in this order.
        let index = claim(&self.used, self.infos.capacity(), call)?;
        let slot = self.infos.taken.get(index);
        let mut taken = Taken {
            call,
            meaning,
            enqueued: false,
        };
        if let Some(slot) = slot {
            slot.set(Some(taken));
        }
        let word = self.infos.device.device_ptr() + (index * size_of::<i32>()) as ffi::CUdeviceptr;
        f(word)?;
        taken.enqueued = true;
        if let Some(slot) = slot {
            slot.set(Some(taken));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(call: &'static str, meaning: Meaning, enqueued: bool) -> Cell<Option<Taken>> {
        Cell::new(Some(Taken {
            call,
            meaning,
            enqueued,
        }))
    }

    #[test]
    fn calls_beyond_the_capacity_are_refused_without_a_panic() {
        let used = Cell::new(0);
        assert_eq!(claim(&used, 2, "cusolverDnDgetrf").unwrap(), 0);
        assert_eq!(claim(&used, 2, "cusolverDnDgetrf").unwrap(), 1);
        let e = claim(&used, 2, "cusolverDnDgetrf").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BufferTooShort);
        assert!(e.detail().unwrap().contains("holds 2 slots"), "{e}");
        assert_eq!(used.get(), 2, "a refused call takes no slot");
    }

    #[test]
    fn a_call_inside_a_capture_takes_no_slot() {
        let used = Cell::new(0);
        let inside = crate::asynchronous::InCapture::enter();
        let e = claim(&used, 2, "cusolverDnDgetrf").unwrap_err();
        drop(inside);
        assert_eq!(e.kind(), ErrorKind::NotSupported, "{e}");
        assert_eq!(used.get(), 0);
    }

    #[test]
    fn only_a_batch_with_a_call_on_the_gpu_copies_back() {
        let slots = [
            taken("cusolverDnDgetrf", Meaning::Pivot, false),
            taken("cusolverDnDgetrf", Meaning::Pivot, true),
        ];
        assert!(!needs_copy(&slots, 0));
        assert!(!needs_copy(&slots, 1));
        assert!(needs_copy(&slots, 2));
    }

    #[test]
    fn a_failed_call_in_the_middle_is_named_by_its_index() {
        let slots = [
            taken("cusolverDnDgetrf", Meaning::Pivot, true),
            taken("cusolverDnDgetrf", Meaning::Pivot, true),
            taken("cusolverDnDpotrf", Meaning::Minor, true),
        ];
        let host = [0, 3, 0];
        assert!(ensure(&slots, &host, Some(3), 0).is_ok());
        let e = ensure(&slots, &host, Some(3), 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SingularMatrix);
        assert_eq!(
            e.detail(),
            Some(
                "cusolverDnDgetrf (call 1 of the scope): U(3,3) is exactly zero: the matrix is \
                 singular (info = 3)"
            )
        );
        assert!(ensure(&slots, &host, Some(3), 2).is_ok());
    }

    #[test]
    fn nothing_unwritten_or_beyond_the_last_batch_is_read() {
        let slots = [
            taken("cusolverDnDpotrf", Meaning::Minor, true),
            taken("cusolverDnDpotrf", Meaning::Minor, false),
            taken("cusolverDnDpotrf", Meaning::Minor, true),
        ];
        // A call cuSOLVER refused: its word is whatever the device held; never read.
        let host = [0, 0, NOT_WRITTEN];
        assert_eq!(read(&slots, &host, Some(3), 0).unwrap().1, 0);
        let e = read(&slots, &host, Some(3), 1).unwrap_err();
        assert!(e.detail().unwrap().contains("not written"), "{e}");
        // A copy that did not run.
        assert!(read(&slots, &host, Some(3), 2).is_err());
        // Slots beyond what the last batch used, and a batch that was forgotten.
        assert!(read(&slots, &host, Some(0), 0).is_err());
        let e = read(&slots, &host, None, 0).unwrap_err();
        assert!(e.detail().unwrap().contains("never dropped"), "{e}");
        assert!(read(&slots, &host, Some(3), 3).is_err());
    }
}
