//! The communicator and its lifetime: [`Comm`] made by [`PushedGuard::nccl_comm`] in a primary
//! context (or, in the opt-in [`NcclCalls::Blocking`] mode, split from one), every call's
//! result settled (polled until NCCL has enqueued it), never more than its cap of calls
//! un-waited, aborted on an error or past its timeout, [`Comm::wait`] as the bounded end of a
//! scope, and its finalize and destroy.

use super::check;
use super::group::Member;
use super::id::UniqueId;
use super::op::Op;
use super::options::{CommOptions, NcclCalls, Pace, require_runtime_connect_off};
use super::status::{
    Stalled, ask, not_linked, poll, rank_timed_out, status, status_error, timed_out,
};
use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::deadline::{Deadline, Polled, poll_until};
use crate::error::left_behind::Object;
use crate::error::{Error, ErrorKind, Observer, Result, record_drop_error};
use crate::ffi;
use crate::ffi::nccl::{ncclComm_t, ncclResult_t};
use core::cell::Cell;
use core::ffi::c_int;
use core::marker::PhantomData;
use core::panic::Location;
use core::sync::atomic::{AtomicPtr, Ordering};
use std::time::Duration;

/// One rank of an NCCL clique, a communicator of the guard's context; see the
/// [module docs](crate::nccl).
///
/// Borrows the guard that lent it (`'g`), so it cannot outlive the pop or be used while
/// another context is pushed on top (C25); `!Send` and `!Sync`. Finalized and destroyed on drop
/// (bounded by its timeout, then aborted; errors recorded, see
/// [`take_drop_errors`](crate::take_drop_errors)), or by [`Comm::destroy`].
#[doc(alias = "ncclComm_t")]
pub struct Comm<'g> {
    /// Null once destroyed or aborted. In the [`NcclCalls::Blocking`] mode, the blocking child.
    pub(super) raw: Cell<ncclComm_t>,
    /// The non-blocking communicator the blocking child was split from, kept until the child is
    /// destroyed; null in the [`NcclCalls::Settled`] mode, and once destroyed or aborted.
    pub(super) parent: Cell<ncclComm_t>,
    /// Its mode, its cap on un-waited calls and how many are un-waited.
    pub(super) pace: Pace,
    pub(super) rank: usize,
    pub(super) nranks: usize,
    pub(super) timeout: Duration,
    /// Why the communicator was aborted, repeated by every later call.
    pub(super) aborted: Cell<Option<ErrorKind>>,
    // Borrowed from the guard; the communicator is bound to the guard's context, current on
    // this thread only: `!Send`, `!Sync`.
    pub(super) _guard: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(Comm<'static>: Send, Sync);

impl core::fmt::Debug for Comm<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Comm")
            .field("raw", &self.raw.get())
            .field("rank", &self.rank)
            .field("nranks", &self.nranks)
            .field("timeout", &self.timeout)
            .field("calls", &self.pace.calls)
            .field("unwaited", &self.pace.unwaited.get())
            .finish_non_exhaustive()
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `ncclCommInitRankConfig`—Makes rank `rank` of a clique of `nranks` on this guard's
    /// device, every rank with the same `id`; waits until every rank has arrived, at most
    /// `timeout`, which also bounds every later wait of the communicator (see the
    /// [module docs](crate::nccl)).
    ///
    /// # Errors
    ///
    /// Before NCCL is called: [`ErrorKind::LibraryNotLinked`] in a build without NCCL;
    /// [`ErrorKind::InvalidValue`] unless `rank < nranks` (C `int`s); `CUDA_ERROR_INVALID_CONTEXT`
    /// unless this guard's context is its device's primary context. Then
    /// [`ErrorKind::DeadlinePassed`] if the clique was not complete within `timeout` (a rank that
    /// never arrived, or died; the attempt is aborted, nothing is leaked); NCCL's status
    /// (`NcclInvalidUsage` for two ranks on one GPU, `NcclRemoteError`, …).
    ///
    /// # Examples
    ///
    /// A clique of one (every collective is then a copy):
    ///
    /// ```no_run
    /// # use custack::{Context, Driver, Stack};
    /// # use std::time::Duration;
    /// let ctx = Context::primary(Driver::init()?.device(0)?)?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let id = custack::nccl::unique_id()?;
    /// let comm = guard.nccl_comm(&id, 0, 1, Duration::from_secs(10))?;
    /// assert_eq!(comm.nranks(), 1);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcomminitrankconfig>
    #[doc(alias = "ncclCommInitRankConfig")]
    #[doc(alias = "ncclCommInitRank")]
    #[doc(alias = "nccl_rank")]
    pub fn nccl_comm(
        &self,
        id: &UniqueId,
        rank: usize,
        nranks: usize,
        timeout: Duration,
    ) -> Result<Comm<'_>> {
        self.nccl_comm_with(id, rank, nranks, timeout, CommOptions::new())
    }

    /// `ncclCommInitRankConfig`, `ncclCommSplit`—As [`nccl_comm`](Self::nccl_comm), with
    /// `options`: the call mode ([`NcclCalls`]) and the cap on un-waited calls.
    ///
    /// In the [`NcclCalls::Blocking`] mode the communicator is made non-blocking as
    /// `nccl_comm` makes it, then split (`ncclCommSplit`, one color, same ranks) into a
    /// blocking child, polled on the parent until NCCL's thread has made it, all within
    /// `timeout`; the child makes every call, the parent is kept until the child is destroyed
    /// (both finalized on drop, bounded, aborted past the timeout). Its calls are bounded only
    /// on a condition NCCL does not promise (the module docs, R16).
    ///
    /// # Errors
    ///
    /// As `nccl_comm`; in the blocking mode also [`ErrorKind::InvalidValue`] unless
    /// `NCCL_RUNTIME_CONNECT=0` is in the process's environment (checked after
    /// `NCCL_COMM_BLOCKING`, before the context), and the split's NCCL status or
    /// [`ErrorKind::DeadlinePassed`] (both communicators aborted).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, Driver, Stack};
    /// # use custack::nccl::{CommOptions, NcclCalls};
    /// # use std::time::Duration;
    /// // NCCL_RUNTIME_CONNECT=0 was set where the process started.
    /// let ctx = Context::primary(Driver::init()?.device(0)?)?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let id = custack::nccl::unique_id()?;
    /// let options = CommOptions::new().calls(NcclCalls::Blocking);
    /// let comm = guard.nccl_comm_with(&id, 0, 1, Duration::from_secs(10), options)?;
    /// assert_eq!(comm.calls(), NcclCalls::Blocking);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommsplit>,
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html>
    #[doc(alias = "ncclCommSplit")]
    pub fn nccl_comm_with(
        &self,
        id: &UniqueId,
        rank: usize,
        nranks: usize,
        timeout: Duration,
        options: CommOptions,
    ) -> Result<Comm<'_>> {
        let (r, n) = prechecks(rank, nranks, options)?;
        self.require_primary()?;
        let deadline = Deadline::after(timeout);
        // SAFETY: this guard's context is current and is its device's primary context (checked
        // above).
        let (raw, started) = unsafe { init_rank(id, n, r) };
        let comm = Comm {
            raw: Cell::new(raw),
            parent: Cell::new(core::ptr::null_mut()),
            pace: Pace::new(options),
            rank,
            nranks,
            timeout,
            aborted: Cell::new(None),
            _guard: PhantomData,
        };
        if started != ncclResult_t::ncclSuccess && started != ncclResult_t::ncclInProgress {
            let e = status_error("ncclCommInitRankConfig", raw, started);
            comm.abort(); // frees what NCCL may have made (nothing, if `raw` is null)
            return Err(e);
        }
        comm.settle("ncclCommInitRankConfig", deadline)?;
        if options.mode() == NcclCalls::Blocking {
            comm.split(r, deadline)?;
        }
        Ok(comm)
    }

    /// `CUDA_ERROR_INVALID_CONTEXT` unless this guard's context is its device's primary
    /// context, the one NCCL works in.
    fn require_primary(&self) -> Result<()> {
        let device = self.device()?;
        let mut primary = core::ptr::null_mut();
        // SAFETY: a valid out-pointer and a device of this driver; retained here, released
        // right below.
        unsafe { ffi::cuDevicePrimaryCtxRetain(&raw mut primary, device.as_raw()) }.result()?;
        // SAFETY: releases the reference taken just above, once; the guard's own context
        // (primary or not) is unaffected.
        let released = unsafe { ffi::cuDevicePrimaryCtxRelease_v2(device.as_raw()) }.result();
        if primary != self.as_raw() {
            return Err(Error::from_kind(ErrorKind::InvalidContext).with_detail(
                "NCCL works in the device's primary context (its threads select the device with \
                 cudaSetDevice): push `Context::primary(device)` to make a communicator",
            ));
        }
        released
    }
}

/// The checks of `nccl_comm_with` before the context's, in their order: NCCL linked, the
/// process not poisoned, the rank and size, `NCCL_COMM_BLOCKING`, and for the blocking mode
/// `NCCL_RUNTIME_CONNECT=0`. The rank and size as C `int`s.
fn prechecks(rank: usize, nranks: usize, options: CommOptions) -> Result<(c_int, c_int)> {
    not_linked()?;
    crate::error::poison::check()?;
    let clique = check::clique(rank, nranks)?;
    refuse_blocking_override()?;
    if options.mode() == NcclCalls::Blocking {
        require_runtime_connect_off(std::env::var_os("NCCL_RUNTIME_CONNECT").as_deref())?;
    }
    Ok(clique)
}

/// `ncclCommInitRankConfig`—Rank `r` of a clique of `n` with `id`, non-blocking, on the
/// current device: the communicator (null if NCCL made none) and NCCL's status. Inside a group
/// NCCL records the current device and makes the communicator when the group ends.
///
/// # Safety
///
/// The current context is its device's primary context, which NCCL's own threads select.
pub(super) unsafe fn init_rank(id: &UniqueId, n: c_int, r: c_int) -> (ncclComm_t, ncclResult_t) {
    let mut config = config(0);
    let mut raw: ncclComm_t = core::ptr::null_mut();
    // SAFETY: `ncclCommInitRankConfig` writes a communicator to a valid out-pointer and binds
    // it to the current device:
    // - `raw` and `config` are live locals; `config` is initialized as
    //   `NCCL_CONFIG_INITIALIZER` would (size, magic, version; `blocking` 0, the rest NCCL's
    //   defaults), and NCCL reads `config.size` bytes of it, every one initialized (the struct
    //   has no padding: 8 + 4 + 4 + 4·4 + 8 + 4 + 4 = 48);
    // - `id` is 128 plain bytes, passed by value;
    // - the current context is its device's primary context (the caller's guarantee).
    let started =
        unsafe { ffi::nccl::ncclCommInitRankConfig(&raw mut raw, n, id.raw, r, &raw mut config) };
    (raw, started)
}

/// The configuration of every communicator custack makes: `blocking` (0 for every
/// communicator `ncclCommInitRankConfig` makes, 1 for the blocking mode's split child), the
/// rest NCCL's defaults (as `NCCL_CONFIG_INITIALIZER`).
fn config(blocking: c_int) -> ffi::nccl::ncclConfig_t {
    ffi::nccl::ncclConfig_t {
        size: size_of::<ffi::nccl::ncclConfig_t>(),
        magic: ffi::nccl::NCCL_API_MAGIC,
        version: ffi::nccl::NCCL_CONFIG_VERSION_2_18,
        blocking,
        cgaClusterSize: ffi::nccl::NCCL_CONFIG_UNDEF_INT,
        minCTAs: ffi::nccl::NCCL_CONFIG_UNDEF_INT,
        maxCTAs: ffi::nccl::NCCL_CONFIG_UNDEF_INT,
        netName: core::ptr::null(),
        splitShare: ffi::nccl::NCCL_CONFIG_UNDEF_INT,
        trafficClass: ffi::nccl::NCCL_CONFIG_UNDEF_INT,
    }
}

/// `Err` where `NCCL_COMM_BLOCKING=1`, which makes NCCL ignore `blocking = 0`, so that its init
/// and calls would block without the communicator's bound.
pub(super) fn refuse_blocking_override() -> Result<()> {
    match std::env::var("NCCL_COMM_BLOCKING") {
        Ok(v) if v.trim() == "1" => Err(Error::custack(
            ErrorKind::InvalidValue,
            "NCCL_COMM_BLOCKING=1 is set: NCCL would then block in its init and calls with no \
             bound, where custack bounds every wait by the communicator's timeout; unset it",
        )),
        _ => Ok(()),
    }
}

impl Comm<'_> {
    /// This process's rank in the clique.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// How many ranks the clique has.
    pub fn nranks(&self) -> usize {
        self.nranks
    }
    /// The timeout every wait of this communicator is bounded by.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
    /// The raw communicator (null once destroyed or aborted): in the
    /// [`NcclCalls::Blocking`] mode, the blocking child that makes every call.
    pub fn as_raw(&self) -> ncclComm_t {
        Cell::get(&self.raw)
    }
    /// How its calls reach NCCL.
    pub fn calls(&self) -> NcclCalls {
        self.pace.calls
    }
    /// Its cap on un-waited calls (`1..=64`, [`CommOptions::unwaited_cap`]).
    pub fn unwaited_cap(&self) -> usize {
        self.pace.cap as usize
    }
    /// How many of its calls were issued since the last bounded wait for a stream
    /// ([`wait`](Self::wait), or the one a call makes at the cap): never more than the cap.
    pub fn unwaited(&self) -> usize {
        Cell::get(&self.pace.unwaited) as usize
    }

    /// The live communicator, or the error it was aborted with.
    pub(super) fn live(&self, call: &str) -> Result<ncclComm_t> {
        let raw = self.raw.get();
        if raw.is_null() {
            let kind = self.aborted.get().unwrap_or(ErrorKind::InvalidValue);
            return Err(Error::custack(
                kind,
                format!("{call}: this communicator was aborted or destroyed; nothing was enqueued"),
            ));
        }
        Ok(raw)
    }

    /// `ncclCommAbort`: ends the communicator's pending work and frees it, the blocking
    /// child's first, then its parent's; idempotent.
    fn abort(&self) {
        abort_raw(self.raw.replace(core::ptr::null_mut()));
        abort_raw(self.parent.replace(core::ptr::null_mut()));
    }

    /// `ncclCommSplit`—Splits this settled non-blocking communicator (one color, key `key`: the
    /// same ranks) into a blocking child, polled on the parent at most until `deadline`; the
    /// child then makes every call, the parent is kept until the child is destroyed. On an
    /// error or past the deadline both are aborted (nothing leaked).
    fn split(&self, key: c_int, deadline: Deadline) -> Result<()> {
        let call = "ncclCommSplit";
        let parent = self.live(call)?;
        let mut config = config(1);
        // Written by the parent's thread once the child is made: read atomically only.
        let child = AtomicPtr::new(core::ptr::null_mut());
        // SAFETY: a live, settled non-blocking communicator of the current context (this value
        // borrows its guard), split once; `config` is initialized as `NCCL_CONFIG_INITIALIZER`
        // would (`init_rank`'s reasoning, with `blocking` 1); NCCL writes the child through the
        // out-pointer, an aligned pointer-sized word (`AtomicPtr` has `ncclComm_t`'s layout)
        // that this function reads only with atomic loads. Both locals outlive every write
        // NCCL's thread makes: this function returns only once the parent has settled (the
        // split is done) or has been aborted (which joins the parent's threads).
        let started =
            unsafe { ffi::nccl::ncclCommSplit(parent, 0, key, child.as_ptr(), &raw mut config) };
        // NCCL 2.28.9 answers `ncclSuccess` while the split still runs on the parent's thread
        // and writes the child only once it is made: the parent is polled whatever the answer.
        let settled =
            if started == ncclResult_t::ncclSuccess || started == ncclResult_t::ncclInProgress {
                self.settle(call, deadline)
            } else {
                Err(self.fail(status_error(call, parent, started)))
            };
        if let Err(e) = settled {
            // The parent is aborted: its threads are joined, nothing writes `child` any more.
            abort_raw(child.load(Ordering::Acquire));
            return Err(e);
        }
        let made = poll_until(deadline, || {
            let c = child.load(Ordering::Acquire);
            (!c.is_null()).then_some(c)
        });
        match made {
            Polled::Done(c) => {
                self.parent.set(parent);
                self.raw.set(c);
                Ok(())
            }
            Polled::Overdue(waited) => {
                let e = self.fail(self.timed_out(call, waited));
                abort_raw(child.load(Ordering::Acquire));
                Err(e)
            }
        }
    }

    /// Aborts with the error `e` (remembered for later calls), returning it.
    pub(super) fn fail(&self, e: Error) -> Error {
        self.abort_with(e.kind());
        e
    }

    /// Polls the communicator until its state is no longer `ncclInProgress`, at most until
    /// `deadline`; aborts it on an error or at the deadline.
    fn settle(&self, call: &str, deadline: Deadline) -> Result<()> {
        match poll(self.live(call)?, call, deadline) {
            Ok(()) => Ok(()),
            Err(Stalled::Failed(e)) => Err(self.fail(e)),
            Err(Stalled::TimedOut(waited)) => Err(self.fail(self.timed_out(call, waited))),
        }
    }

    #[cold]
    fn timed_out(&self, call: &str, waited: Duration) -> Error {
        let then = "a rank that died or never arrived? The communicator was aborted";
        rank_timed_out(call, (self.rank, self.nranks, self.timeout), waited, then)
    }

    /// Issues one checked call on its scope's stream (refused inside a capture) and returns
    /// once NCCL has enqueued it: a non-blocking communicator answers `ncclInProgress` while its
    /// thread enqueues, and is polled until it is done.
    pub(super) fn enqueue<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        op: Op<'scope>,
    ) -> Result<()> {
        let call = op.call();
        let raw = self.live(call)?;
        crate::asynchronous::refuse_inside_capture(call)?;
        crate::error::poison::check()?;
        self.make_room(call, s.as_raw(), 1)?;
        // SAFETY: `op` was made (checked) from bindings of the scope `s` (both `'scope`) by the
        // `Comm` method calling this with this communicator's size, and this returns only once
        // NCCL has enqueued it, while those values are still borrowed; `raw` is live (checked
        // above; `make_room` returned `Ok`, so it aborted nothing) and of the current context
        // (this value borrows its guard), as is the scope's stream.
        let issued = unsafe { op.issue(raw, s.as_raw()) };
        self.settled(call, issued)?;
        self.pace.issued(1);
        Ok(())
    }

    /// Before `adding` calls on `stream` (one, or a batch's): when they would take the
    /// un-waited calls past the cap, waits for the stream first, bounded as [`Comm::wait`]
    /// (its errors abort the communicator); a batch larger than the cap is refused
    /// (`InvalidValue`, nothing enqueued). In the blocking mode then one look at the
    /// communicator (`ncclCommGetAsyncError`): an error of NCCL's aborts it.
    pub(super) fn make_room(&self, call: &str, stream: ffi::CUstream, adding: usize) -> Result<()> {
        if self.pace.must_wait(call, adding)? {
            let cap = self.pace.cap;
            let what =
                format!("{call} (the wait for its stream at the cap of {cap} un-waited calls)");
            self.wait_for(&what, stream, Location::caller())?;
        }
        if self.pace.calls == NcclCalls::Blocking {
            match ask(self.live(call)?, call) {
                Some(Ok(())) => {}
                Some(Err(e)) => return Err(self.fail(e)),
                // Not a blocking communicator's state; settled as any other.
                None => self.settle(call, Deadline::after(self.timeout))?,
            }
        }
        Ok(())
    }

    /// The result of a call that returned `result`: settled (polled until NCCL has enqueued
    /// it) on `ncclInProgress`; an error otherwise aborts the communicator, so no thread of
    /// NCCL's can still enqueue it after the scope has ended.
    fn settled(&self, call: &str, result: ncclResult_t) -> Result<()> {
        if result == ncclResult_t::ncclSuccess {
            return Ok(());
        }
        if result == ncclResult_t::ncclInProgress {
            return self.settle(call, Deadline::after(self.timeout));
        }
        Err(self.fail(status_error(call, self.raw.get(), result)))
    }

    /// Waits for the scope's stream, at most the communicator's timeout, watching the
    /// communicator (`cuStreamQuery`, `ncclCommGetAsyncError`): the bounded end of a scope whose
    /// collectives wait for other ranks. On an NCCL error, or when the timeout passes, the
    /// communicator is aborted, which ends its pending work, so the scope's own wait returns.
    /// Once the stream is idle, no call of the communicator is un-waited
    /// ([`unwaited`](Self::unwaited) is zero): the cap counts again from there.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DeadlinePassed`]; NCCL's asynchronous error (`NcclRemoteError` when a peer
    /// failed); a driver error of the stream's work. Only this communicator is watched: with
    /// several communicators' work on one stream, end the scope with each one's `wait`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommgetasyncerror>,
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "ncclCommGetAsyncError")]
    #[doc(alias = "cuStreamQuery")]
    #[track_caller]
    pub fn wait(&self, s: &StreamScope<'_, '_>) -> Result<()> {
        self.wait_for("Comm::wait", s.as_raw(), Location::caller())
    }

    /// [`Comm::wait`] for `stream` (of the current context, live), named `call`; resets the
    /// count of un-waited calls once the stream is idle.
    fn wait_for(
        &self,
        call: &str,
        stream: ffi::CUstream,
        site: &'static Location<'static>,
    ) -> Result<()> {
        let raw = self.live(call)?;
        crate::error::poison::check()?;
        let deadline = Deadline::after(self.timeout);
        let settled = poll_until(deadline, || {
            // The communicator first: an idle stream proves nothing while NCCL may still be
            // enqueueing (`ncclInProgress`, which `?` passes on as "not yet").
            match ask(raw, call)? {
                Ok(()) => {}
                // Aborted at once: nothing asks it again (this answer ends the poll).
                Err(e) => return Some(Err(self.fail(e))),
            }
            // SAFETY: the caller's stream, a scope's: live for the scope and of the current
            // context.
            match unsafe { ffi::cuStreamQuery(stream) } {
                ffi::CUresult::CUDA_ERROR_NOT_READY => None,
                // The stream's own answer, through the poison's conversion (R20).
                queried => Some(queried.result_at(Observer::DriverCall, site)),
            }
        });
        match settled {
            Polled::Done(done) => {
                if done.is_ok() {
                    // The stream is idle after the communicator's last call on it: NCCL runs one
                    // communicator's work in the order it was issued.
                    self.pace.waited();
                }
                done
            }
            Polled::Overdue(waited) => Err(self.fail(self.timed_out(call, waited))),
        }
    }

    /// `ncclCommFinalize`, `ncclCommDestroy`—Finalizes (waits, at most the timeout, until every
    /// rank is done with the communicator) and destroys it; aborted instead when that fails.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DeadlinePassed`], NCCL's status; the communicator is released either way.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommfinalize>
    #[doc(alias = "ncclCommFinalize")]
    #[doc(alias = "ncclCommDestroy")]
    pub fn destroy(self) -> Result<()> {
        self.release()
    }

    /// Releases the communicator (the blocking child first, then its parent): each finalized
    /// and destroyed, bounded, or aborted; the first error returned, a second one recorded.
    ///
    /// A blocking child's `ncclCommFinalize` is itself blocking: it waits for the child's
    /// work. So the child is finalized only when every call of it was waited for (bounded);
    /// with calls un-waited (its scope may still hold them, a peer may be dead) it is aborted
    /// instead, which ends them.
    fn release(&self) -> Result<()> {
        let raw = self.raw.replace(core::ptr::null_mut());
        let child = if self.pace.calls == NcclCalls::Blocking && self.unwaited() > 0 {
            abort_raw(raw);
            Ok(())
        } else {
            release_raw(raw, self.timeout)
        };
        let parent = release_raw(self.parent.replace(core::ptr::null_mut()), self.timeout);
        match (child, parent) {
            (Err(e), Err(second)) => {
                record_drop_error(second);
                Err(e)
            }
            (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
            (Ok(()), Ok(())) => Ok(()),
        }
    }
}

/// `ncclCommAbort` of `raw` (nothing for null): ends its pending work and frees it; an error
/// recorded. Poisoned or forked (R20, R22): leaked, since aborting frees what its kernels use.
fn abort_raw(raw: ncclComm_t) {
    if raw.is_null() {
        return;
    }
    crate::error::left_behind::destroy_in_drop(Object::Untracked, raw as u64, || {
        // SAFETY: a live communicator of the current context (its `Comm` borrows its guard),
        // aborted once: the caller took `raw` out of the value that held it, so no later call
        // reaches it.
        status("ncclCommAbort", core::ptr::null_mut(), unsafe {
            ffi::nccl::ncclCommAbort(raw)
        })
    });
}

/// [`finish`] of `raw`, taken out of its `Comm` (nothing for null: aborted, already released,
/// its error already returned). Poisoned or forked (R20, R22): leaked, neither finalized nor
/// destroyed.
fn release_raw(raw: ncclComm_t, timeout: Duration) -> Result<()> {
    if raw.is_null() {
        return Ok(());
    }
    crate::error::left_behind::release(Object::Untracked, raw as u64)?;
    finish(raw, timeout)
}

/// `ncclCommFinalize`, polled at most `timeout`, then `ncclCommDestroy`; `ncclCommAbort`
/// instead when finalizing fails or times out. Releases `raw` on every path.
pub(super) fn finish(raw: ncclComm_t, timeout: Duration) -> Result<()> {
    let deadline = Deadline::after(timeout);
    // SAFETY: a live communicator of the current context, owned by the caller and released
    // once, here; finalizing flushes its issued work (non-blocking: polled below).
    let finalized = unsafe { ffi::nccl::ncclCommFinalize(raw) };
    let settled =
        if finalized == ncclResult_t::ncclSuccess || finalized == ncclResult_t::ncclInProgress {
            poll(raw, "ncclCommFinalize", deadline)
        } else {
            Err(Stalled::Failed(status_error(
                "ncclCommFinalize",
                raw,
                finalized,
            )))
        };
    let failed = match settled {
        Ok(()) => {
            // SAFETY: a finalized communicator, destroyed once.
            return status("ncclCommDestroy", core::ptr::null_mut(), unsafe {
                ffi::nccl::ncclCommDestroy(raw)
            });
        }
        Err(Stalled::Failed(e)) => e,
        Err(Stalled::TimedOut(waited)) => timed_out(
            format_args!("ncclCommFinalize (timeout {timeout:?})"),
            waited,
            "the other ranks did not finish with the communicator; it was aborted",
        ),
    };
    // SAFETY: the same communicator, not destroyed above: aborted once instead, which ends
    // its pending work and frees it.
    if let Err(e) = status("ncclCommAbort", core::ptr::null_mut(), unsafe {
        ffi::nccl::ncclCommAbort(raw)
    }) {
        record_drop_error(e);
    }
    Err(failed)
}

impl Drop for Comm<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            record_drop_error(e);
        }
    }
}

impl Member for Comm<'_> {
    fn live(&self, call: &str) -> Result<ncclComm_t> {
        Comm::live(self, call)
    }
    fn abort_with(&self, kind: ErrorKind) {
        self.aborted.set(Some(kind));
        self.abort();
    }
    fn timed_out(&self, call: &str, waited: Duration) -> Error {
        Comm::timed_out(self, call, waited)
    }
}

#[cfg(test)]
mod tests {
    // A communicator NCCL never made (null): what its waits return past their deadline, with
    // no GPU and no NCCL call (`abort` and `release` do nothing for null).
    use super::*;

    fn unmade() -> Comm<'static> {
        Comm {
            raw: Cell::new(core::ptr::null_mut()),
            parent: Cell::new(core::ptr::null_mut()),
            pace: Pace::new(CommOptions::new()),
            rank: 1,
            nranks: 4,
            timeout: Duration::from_secs(3),
            aborted: Cell::new(None),
            _guard: PhantomData,
        }
    }

    #[test]
    fn a_timeout_is_a_passed_deadline_naming_the_call_the_rank_and_the_timeout() {
        let comm = unmade();
        let e = comm.timed_out("ncclAllReduce", Duration::from_millis(3001));
        assert_eq!(e.kind(), ErrorKind::DeadlinePassed, "{e}");
        assert_eq!(e.code(), None);
        let detail = e.detail().unwrap_or_default();
        assert!(
            detail.starts_with(
                "ncclAllReduce on rank 1 of 4 (timeout 3s) was not complete when its deadline \
                 passed (after 3.001s of polling); "
            ),
            "{detail}"
        );
        assert!(detail.ends_with("The communicator was aborted"), "{detail}");
        // Aborted with it: every later call says so, with the same kind.
        let e = comm.fail(e);
        assert_eq!(e.kind(), ErrorKind::DeadlinePassed);
        let later = comm.live("ncclBroadcast").unwrap_err();
        assert_eq!(later.kind(), ErrorKind::DeadlinePassed, "{later}");
        assert!(
            later
                .detail()
                .unwrap_or_default()
                .starts_with("ncclBroadcast: ")
        );
    }

    /// The blocking mode's checks come after the others, in their order: without NCCL linked
    /// every mode answers `LibraryNotLinked` first (also for a bad rank); with NCCL, a bad
    /// rank before the environment; then `NCCL_RUNTIME_CONNECT` (read, never set, here).
    #[test]
    fn the_blocking_mode_checks_its_environment_after_the_library_and_the_rank() {
        let blocking = CommOptions::new().calls(NcclCalls::Blocking);
        for options in [CommOptions::new(), blocking] {
            let bad_rank = prechecks(2, 2, options).unwrap_err();
            if cfg!(custack_no_nccl) {
                assert_eq!(bad_rank.kind(), ErrorKind::LibraryNotLinked, "{bad_rank}");
                let e = prechecks(0, 2, options).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::LibraryNotLinked, "{e}");
            } else {
                assert_eq!(bad_rank.kind(), ErrorKind::InvalidValue, "{bad_rank}");
                assert!(bad_rank.detail().unwrap().contains("rank 2"), "{bad_rank}");
            }
        }
        if cfg!(custack_no_nccl) || std::env::var_os("NCCL_COMM_BLOCKING").is_some() {
            return;
        }
        assert_eq!(prechecks(0, 2, CommOptions::new()).unwrap(), (0, 2));
        let connect = std::env::var_os("NCCL_RUNTIME_CONNECT");
        let blocked = prechecks(0, 2, blocking);
        if connect.as_deref() == Some(std::ffi::OsStr::new("0")) {
            assert_eq!(blocked.unwrap(), (0, 2));
        } else {
            let e = blocked.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e}");
            assert!(
                e.detail().unwrap().contains("NCCL_RUNTIME_CONNECT=0"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_finalize_past_its_timeout_is_a_passed_deadline_too() {
        let e = timed_out(
            format_args!("ncclCommFinalize (timeout {:?})", Duration::from_secs(3)),
            Duration::from_secs(3),
            "the other ranks did not finish with the communicator; it was aborted",
        );
        assert_eq!(e.kind(), ErrorKind::DeadlinePassed);
        assert!(
            e.to_string()
                .contains("ncclCommFinalize (timeout 3s) was not complete"),
            "{e}"
        );
    }
}
