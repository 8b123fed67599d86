//! Communicators of several GPUs driven from one thread: a [`ParkedComm`] borrows only its
//! context, like every parked value, so one thread makes the communicators of all its GPUs
//! ([`comms`]) and issues one NCCL group over them ([`all_reduce_parked`]), pushing each
//! context in turn.

use super::check;
use super::comm::{Comm, finish, init_rank, refuse_blocking_override};
use super::group::{Group, Member};
use super::id::unique_id;
use super::op::{NcclType, ReduceOp};
use super::options::{CommOptions, NcclCalls, Pace};
use super::status::{ask, not_linked, rank_timed_out, status};
use crate::context::Context;
use crate::context::raw::with_raw_current;
use crate::context::stack::{PushedGuard, StackTop};
use crate::deadline::{Deadline, Polled, poll_until};
use crate::error::{Error, ErrorKind, Observer, Result, record_drop_error};
use crate::ffi;
use crate::ffi::nccl::ncclComm_t;
use crate::parking::buffer::ParkedBuffer;
use crate::parking::stream::ParkedStream;
use core::cell::Cell;
use core::ffi::c_int;
use core::marker::PhantomData;
use core::panic::Location;
use std::time::Duration;

/// Runs `f` with `ctx` pushed and returns its value.
///
/// # Safety
///
/// As [`with_raw_current`]: `ctx` is live and `f` leaves the stack as it found it.
unsafe fn in_context<R>(ctx: ffi::CUcontext, f: impl FnOnce() -> R) -> Result<R> {
    let mut value = None;
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        with_raw_current(ctx, || {
            value = Some(f());
            Ok(())
        })
    }?;
    value.ok_or_else(|| Error::from_kind(ErrorKind::Unknown))
}

/// How many times [`in_context_tried`] pushes a communicator's context before it gives up: as
/// many as any release that cannot be left behind is tried
/// ([`RELEASE_TRIES`](crate::error::left_behind::RELEASE_TRIES)).
const PUSH_TRIES: usize = crate::error::left_behind::RELEASE_TRIES;

/// [`in_context`] for what must not be skipped because one push failed (an abort, without which
/// a communicator's kernels may wait for ever; a wait before buffers are handed back; a
/// release): the push is tried up to [`PUSH_TRIES`] times, each failure recorded. Returns `f`'s
/// value if it ran, and the last push's or pop's error, if any (recorded by the caller).
///
/// # Safety
///
/// As [`in_context`].
unsafe fn in_context_tried<R>(
    ctx: ffi::CUcontext,
    f: impl FnOnce() -> R,
) -> (Option<R>, Result<()>) {
    let mut f = Some(f);
    let mut value = None;
    for tried in 1..=PUSH_TRIES {
        let run = || {
            if let Some(f) = f.take() {
                value = Some(f());
            }
        };
        // SAFETY: the caller's guarantees, passed on; `run` leaves the stack as it found it.
        let pushed = unsafe { in_context(ctx, run) };
        match pushed {
            Err(e) if value.is_none() && tried < PUSH_TRIES => record_drop_error(e),
            pushed => return (value, pushed),
        }
    }
    (value, Ok(()))
}

/// A communicator set aside from its guard: it borrows only its [`Context`], so it survives the
/// pop and nested pushes, and is attached again to a guard of that context
/// ([`PushedGuard::attach_comm`]) or used from any guard by [`all_reduce_parked`]. Finalized and
/// destroyed on drop, its context pushed for that (bounded by its timeout, then aborted).
///
/// `!Send`: kept on the thread that made it, like the guard-lent [`Comm`].
#[doc(alias = "ncclComm_t")]
pub struct ParkedComm<'ctx> {
    /// Its context, borrowed for `'ctx` (the marker).
    ctx: ffi::CUcontext,
    /// Null once aborted.
    raw: Cell<ncclComm_t>,
    /// A blocking-mode communicator's parent, kept with it (`Comm::parent`); null otherwise.
    parent: Cell<ncclComm_t>,
    /// Its mode, cap and un-waited calls, kept across parking.
    pace: Pace,
    rank: usize,
    nranks: usize,
    timeout: Duration,
    aborted: Cell<Option<ErrorKind>>,
    _marker: PhantomData<(&'ctx Context, *const ())>,
}

static_assertions::assert_not_impl_any!(ParkedComm<'static>: Send, Sync);

impl core::fmt::Debug for ParkedComm<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ParkedComm")
            .field("ctx", &self.ctx)
            .field("raw", &self.raw.get())
            .field("rank", &self.rank)
            .field("nranks", &self.nranks)
            .finish_non_exhaustive()
    }
}

impl<'ctx> ParkedComm<'ctx> {
    /// A communicator NCCL made (or is making) in `ctx`.
    fn new(
        ctx: &'ctx Context,
        raw: ncclComm_t,
        rank: usize,
        nranks: usize,
        timeout: Duration,
    ) -> Self {
        Self {
            ctx: ctx.as_raw(),
            raw: Cell::new(raw),
            parent: Cell::new(core::ptr::null_mut()),
            pace: Pace::new(CommOptions::new()),
            rank,
            nranks,
            timeout,
            aborted: Cell::new(None),
            _marker: PhantomData,
        }
    }

    /// Its rank in the clique.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// How many ranks the clique has.
    pub fn nranks(&self) -> usize {
        self.nranks
    }
    /// The raw context it belongs to.
    pub fn context_raw(&self) -> ffi::CUcontext {
        self.ctx
    }

    /// Aborts it with its context pushed (`ncclCommAbort`), remembering `kind`, then a
    /// blocking-mode communicator's parent; idempotent. Returns false when its context could
    /// not be pushed for an abort that was due: the communicator's kernels may then never end.
    fn abort(&self, kind: ErrorKind) -> bool {
        self.aborted.set(Some(kind));
        let child = self.abort_raw(self.raw.replace(core::ptr::null_mut()));
        let parent = self.abort_raw(self.parent.replace(core::ptr::null_mut()));
        child && parent
    }

    /// `ncclCommAbort` of `raw` (taken out of this value; nothing for null) in its context, the
    /// push tried again where it fails (an abort skipped leaves kernels that may wait for ever).
    /// Returns whether `ncclCommAbort` was called (it ends the kernels whatever it answers).
    fn abort_raw(&self, raw: ncclComm_t) -> bool {
        if raw.is_null() {
            return true;
        }
        let abort = || {
            // SAFETY: a live communicator of `ctx`, current while this runs, aborted once (the
            // caller took it out of this value).
            status("ncclCommAbort", core::ptr::null_mut(), unsafe {
                ffi::nccl::ncclCommAbort(raw)
            })
        };
        // SAFETY: `ctx` is alive (borrowed for `'ctx`); `abort` leaves the stack as it found it.
        let (aborted, pushed) = unsafe { in_context_tried(self.ctx, abort) };
        let called = aborted.is_some();
        for e in [pushed.err(), aborted.and_then(Result::err)]
            .into_iter()
            .flatten()
        {
            record_drop_error(e);
        }
        called
    }
}

impl Drop for ParkedComm<'_> {
    fn drop(&mut self) {
        // The blocking child first, then its parent. A blocking child with calls un-waited is
        // aborted: its finalize would block, without a bound, on their work (`Comm`'s release).
        let child = self.raw.replace(core::ptr::null_mut());
        if self.pace.calls == NcclCalls::Blocking && Cell::get(&self.pace.unwaited) > 0 {
            self.abort_raw(child);
        } else {
            self.finish_raw(child);
        }
        self.finish_raw(self.parent.replace(core::ptr::null_mut()));
    }
}

impl ParkedComm<'_> {
    /// [`finish`] of `raw` (taken out of this value; nothing for null) in its context, an
    /// error recorded.
    fn finish_raw(&self, raw: ncclComm_t) {
        if raw.is_null() {
            return;
        }
        let timeout = self.timeout;
        // SAFETY: `ctx` is alive (borrowed for `'ctx`); `finish` releases `raw`, a live
        // communicator of `ctx`, once, and leaves the stack as it found it.
        let (finished, pushed) = unsafe { in_context_tried(self.ctx, || finish(raw, timeout)) };
        for e in [pushed.err(), finished.and_then(Result::err)]
            .into_iter()
            .flatten()
        {
            record_drop_error(e);
        }
    }
}

impl<'ctx> PushedGuard<'ctx, '_> {
    /// Sets `comm` aside: it borrows only this guard's context from now on.
    pub fn park_comm(&self, comm: Comm<'_>) -> ParkedComm<'ctx> {
        let comm = core::mem::ManuallyDrop::new(comm);
        ParkedComm {
            ctx: self.as_raw(),
            raw: Cell::new(Cell::get(&comm.raw)),
            parent: Cell::new(Cell::get(&comm.parent)),
            pace: comm.pace.carried_over(),
            rank: comm.rank,
            nranks: comm.nranks,
            timeout: comm.timeout,
            aborted: Cell::new(Cell::get(&comm.aborted)),
            _marker: PhantomData,
        }
    }

    /// Lends `parked` again as a [`Comm`] of this guard.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ContextMismatch`] if it was parked from another context (it is dropped).
    pub fn attach_comm(&self, parked: ParkedComm<'ctx>) -> Result<Comm<'_>> {
        crate::parking::same_context("communicator", parked.ctx, self.as_raw())?;
        let parked = core::mem::ManuallyDrop::new(parked);
        Ok(Comm {
            raw: Cell::new(Cell::get(&parked.raw)),
            parent: Cell::new(Cell::get(&parked.parent)),
            pace: parked.pace.carried_over(),
            rank: parked.rank,
            nranks: parked.nranks,
            timeout: parked.timeout,
            aborted: Cell::new(Cell::get(&parked.aborted)),
            _guard: PhantomData,
        })
    }
}

/// `ncclGroupStart`, `ncclCommInitRankConfig` per context, `ncclGroupEnd`—One clique over the
/// devices of `contexts` (each its device's primary context, one per device), made from this
/// thread: rank `i` is `contexts[i]`'s. Waits until every communicator is ready, at most
/// `timeout`, which also bounds each one's later waits.
///
/// This is what `ncclCommInitAll` does, but with custack pushing each context rather than NCCL
/// selecting each device on this thread (which would replace the top of custack's stack).
///
/// # Errors
///
/// [`ErrorKind::LibraryNotLinked`]; [`ErrorKind::InvalidValue`] for no contexts or more than a
/// C `int`, or with `NCCL_COMM_BLOCKING=1` set; `CUDA_ERROR_INVALID_CONTEXT` for a context that
/// is not primary; NCCL's status (`NcclInvalidUsage` for two contexts of one device);
/// [`ErrorKind::DeadlinePassed`]. On any error every communicator made so far is aborted.
///
/// # Examples
///
/// ```no_run
/// use custack::{Context, Driver, Stack};
/// let driver = Driver::init()?;
/// let contexts = driver
///     .devices()?
///     .into_iter()
///     .map(Context::primary)
///     .collect::<custack::Result<Vec<_>>>()?;
/// let refs: Vec<&Context> = contexts.iter().collect();
/// let mut stack = Stack::new()?;
/// let comms = custack::nccl::comms(&mut stack, &refs, std::time::Duration::from_secs(30))?;
/// assert_eq!(comms.len(), refs.len());
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcomminitall>
#[doc(alias = "ncclCommInitAll")]
pub fn comms<'ctx>(
    top: &mut impl StackTop,
    contexts: &[&'ctx Context],
    timeout: Duration,
) -> Result<Vec<ParkedComm<'ctx>>> {
    not_linked()?;
    crate::error::poison::check()?;
    refuse_blocking_override()?;
    let nranks = contexts.len();
    let (_, n) = check::clique(0, nranks)?;
    if let Some(c) = contexts.iter().find(|c| !c.is_primary()) {
        return Err(
            Error::from_kind(ErrorKind::InvalidContext).with_detail(format!(
                "context {:p} is not its device's primary context, which NCCL works in: use \
                 `Context::primary(device)`",
                c.as_raw()
            )),
        );
    }
    let id = unique_id()?;
    let deadline = Deadline::after(timeout);
    // Only the initializations below are issued inside the group; its drop on an early return
    // aborts every communicator made so far.
    let mut group = Group::start()?;
    for (rank, &ctx) in contexts.iter().enumerate() {
        let r = rank as c_int; // below `n`, a C `int`
        // SAFETY: `ctx` is current while this runs and is its device's primary context
        // (checked above).
        let pushed = top.with_pushed(ctx, |_| unsafe { init_rank(&id, n, r) });
        let (raw, result) = group.check(pushed)?;
        if !raw.is_null() {
            let comm = ParkedComm::new(ctx, raw, rank, nranks, timeout);
            group.join(comm, deadline);
        }
        group.issued("ncclCommInitRankConfig", raw, result)?;
    }
    group.end("ncclCommInitRankConfig")
}

/// One GPU's part of [`all_reduce_parked`]: its communicator, the stream to enqueue on and the
/// buffers, all parked from the same context.
#[derive(Debug)]
pub struct ParkedPart<'a, 'ctx, T: NcclType> {
    /// The communicator of this GPU.
    pub comm: &'a ParkedComm<'ctx>,
    /// The stream the all-reduce is enqueued on.
    pub stream: &'a ParkedStream<'ctx>,
    /// What this GPU contributes.
    pub send: &'a ParkedBuffer<'ctx, T>,
    /// Where this GPU receives the result.
    pub recv: &'a mut ParkedBuffer<'ctx, T>,
}

/// `ncclGroupStart`, `ncclAllReduce` per part, `ncclGroupEnd`—Reduces `count` elements of every
/// part's `send` into every part's `recv`, issued from this thread as one NCCL group (each
/// part's context pushed for its call), and returns once every part's stream has finished,
/// each wait bounded by its communicator's timeout: the buffers are borrowed only for the call.
///
/// # Errors
///
/// Before anything is enqueued: [`ErrorKind::BufferTooShort`] if a buffer holds fewer than
/// `count`; [`ErrorKind::ContextMismatch`] if a part's stream or buffers are not of its
/// communicator's context. Then NCCL's status, a driver error, or
/// [`ErrorKind::DeadlinePassed`]; on any of these every part's communicator is aborted and its
/// stream synchronized before this returns, so no NCCL work outlives the call.
///
/// # References
///
/// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/group.html>
#[doc(alias = "ncclGroupStart")]
#[doc(alias = "ncclGroupEnd")]
#[doc(alias = "ncclAllReduce")]
pub fn all_reduce_parked<T: NcclType>(
    parts: &mut [ParkedPart<'_, '_, T>],
    count: usize,
    op: ReduceOp,
) -> Result<()> {
    not_linked()?;
    crate::error::poison::check()?;
    for p in parts.iter() {
        p.check(count)?;
    }
    // The cap: a communicator at it first waits for its part's stream (bounded, as
    // `Comm::wait`); an error aborts that communicator, nothing is enqueued.
    for p in parts.iter() {
        if p.comm.pace.must_wait("ncclAllReduce", 1)? {
            if let Err(e) = wait_part(p) {
                p.comm.abort(e.kind());
                return Err(e);
            }
            p.comm.pace.waited();
        }
    }
    let group = Group::start()?;
    let Err(e) = reduce_and_wait(group, parts, count, op) else {
        // Every part's stream was waited for: nothing of theirs is un-waited.
        for p in parts.iter() {
            p.comm.pace.waited();
        }
        return Ok(());
    };
    // Some ranks' work may be enqueued and waiting for the others': end it all, then make sure
    // no kernel still uses a buffer before they are handed back. A communicator whose context
    // could not be pushed for its abort (after `PUSH_TRIES`) keeps kernels that may wait for
    // ever for the ranks that did not take part: no wait would end, so the process takes the
    // safe state (before a checking program found it, the wait below then blocked for ever).
    let unaborted = parts
        .iter()
        .map(|p| (p, p.comm.abort(e.kind())))
        .filter(|(_, aborted)| !aborted)
        .map(|(p, _)| p.comm.rank)
        .collect::<Vec<_>>();
    if let Some(rank) = unaborted.first() {
        let detail = format!(
            "{}; rank {rank}'s communicator could not be aborted (its context could not be \
             pushed): its kernels may wait for ever, so the buffers of the all-reduce cannot be \
             handed back",
            e.detail().unwrap_or("the all-reduce failed")
        );
        crate::error::fail_stop(&e.clone().with_detail(detail))
    }
    // The buffers are the caller's borrows, handed back on return: a wait that fails returns
    // only once the work is known to be over (`deadline::wait_stream`: the stream polled, then
    // the context), or the process takes the safe state; so does a context that cannot be made
    // current to wait in (before a review found it, both failures were only recorded and the
    // buffers handed back under work that might still write them).
    for p in parts.iter() {
        let stream = p.stream.as_raw();
        let mut waited = None;
        // A live stream of this context, which `in_context` makes current.
        let sync = || waited = Some(crate::deadline::wait_stream(stream, Observer::DriverCall));
        // SAFETY: the communicator's context is alive; `sync` leaves the stack as it found it.
        let (_, pushed) = unsafe { in_context_tried(p.comm.ctx, sync) };
        match (waited, pushed) {
            // The wait ran: its answer, even an error, says the work is over.
            (Some(waited), pushed) => {
                for e in [waited.err(), pushed.err()].into_iter().flatten() {
                    record_drop_error(e);
                }
            }
            // Poisoned or forked (R20, R22): no release is made any more, so the buffers the
            // caller gets back are leaked by their drops, whatever still uses them.
            (None, Err(push)) if crate::error::poison::may_release().is_err() => {
                record_drop_error(push);
            }
            (None, pushed) => {
                let push = pushed
                    .err()
                    .unwrap_or_else(|| Error::from_kind(ErrorKind::Unknown));
                let detail = format!(
                    "{}; cannot wait for an aborted all-reduce's stream before its buffers are \
                     handed back",
                    push.detail()
                        .unwrap_or("the communicator's context could not be pushed")
                );
                crate::error::fail_stop(&push.with_detail(detail))
            }
        }
    }
    Err(e)
}

impl<T: NcclType> ParkedPart<'_, '_, T> {
    /// Its buffers hold `count`, its stream and buffers are of its communicator's context, and
    /// that communicator is live.
    fn check(&self, count: usize) -> Result<()> {
        let call = "ncclAllReduce";
        check::holds(call, "sendbuff", self.send.len(), count, "count")?;
        check::holds(call, "recvbuff", self.recv.len(), count, "count")?;
        let ctx = self.comm.context_raw();
        for (what, other) in [
            ("stream", self.stream.context_raw()),
            ("buffer", self.send.context_raw()),
            ("buffer", self.recv.context_raw()),
        ] {
            if other != ctx {
                return Err(crate::parking::mismatch(what, other, ctx));
            }
        }
        self.comm.live(call).map(drop)
    }
}

/// Issues every part's all-reduce inside `group`, ends it (which polls every communicator until
/// NCCL has enqueued its part) and waits for every part's stream.
fn reduce_and_wait<'a, 'ctx, T: NcclType>(
    mut group: Group<&'a ParkedComm<'ctx>>,
    parts: &[ParkedPart<'a, 'ctx, T>],
    count: usize,
    op: ReduceOp,
) -> Result<()> {
    let call = "ncclAllReduce";
    for p in parts {
        group.join(p.comm, Deadline::after(p.comm.timeout));
        let (raw, stream) = (p.comm.raw.get(), p.stream.as_raw());
        let (send, recv) = (p.send.device_ptr(), p.recv.device_ptr());
        let issue = || {
            // SAFETY: `ncclAllReduce` reads `count` elements of `send` and writes `count` of
            // `recv` on `stream`, once the group ends: both are device memory of this context
            // (checked) holding that many (checked), borrowed (`recv` exclusively) until
            // `all_reduce_parked` returns, which is only after the group has ended and every
            // part's stream has finished or been synchronized after an abort; `raw` is live
            // (checked) and of this context, which `in_context` makes current; `stream` is a
            // live stream of it.
            unsafe {
                ffi::nccl::ncclAllReduce(
                    send as *const core::ffi::c_void,
                    recv as *mut core::ffi::c_void,
                    count,
                    T::RAW,
                    op.raw(),
                    raw,
                    stream,
                )
            }
        };
        // SAFETY: the communicator's context is alive (borrowed for `'ctx`); `issue` leaves the
        // stack as it found it.
        let issued = group.check(unsafe { in_context(p.comm.ctx, issue) })?;
        group.issued(call, raw, issued)?;
    }
    group.end(call)?;
    parts.iter().try_for_each(wait_part)
}

/// Waits for one part's stream, watching its communicator, at most its timeout: its work is
/// enqueued (the group has ended and NCCL is done with it).
fn wait_part<T: NcclType>(p: &ParkedPart<'_, '_, T>) -> Result<()> {
    let call = "ncclAllReduce";
    let site = Location::caller();
    let raw = p.comm.live("all_reduce_parked")?;
    let stream = p.stream.as_raw();
    let settled = poll_until(Deadline::after(p.comm.timeout), || {
        let query = || {
            // SAFETY: a live stream of this context, which `in_context` makes current.
            unsafe { ffi::cuStreamQuery(stream) }
        };
        // SAFETY: the communicator's context is alive; `query` leaves the stack as it found it.
        let queried = match unsafe { in_context(p.comm.ctx, query) } {
            Ok(queried) => queried,
            Err(e) => return Some(Err(e)),
        };
        if queried != ffi::CUresult::CUDA_ERROR_NOT_READY {
            // The stream's own answer, through the poison's conversion (R20).
            return Some(queried.result_at(Observer::DriverCall, site));
        }
        // One look at the communicator: an error of NCCL's ends the wait at once.
        match ask(raw, call) {
            Some(Err(e)) => Some(Err(e)),
            Some(Ok(())) | None => None,
        }
    });
    match settled {
        Polled::Done(done) => done,
        Polled::Overdue(waited) => Err(p.comm.timed_out(call, waited)),
    }
}

impl Member for ParkedComm<'_> {
    fn live(&self, call: &str) -> Result<ncclComm_t> {
        let raw = self.raw.get();
        if raw.is_null() {
            return Err(Error::custack(
                self.aborted.get().unwrap_or(ErrorKind::InvalidValue),
                format!("{call}: this communicator was aborted; nothing was enqueued"),
            ));
        }
        Ok(raw)
    }

    fn abort_with(&self, kind: ErrorKind) {
        self.abort(kind);
    }

    #[cold]
    fn timed_out(&self, call: &str, waited: Duration) -> Error {
        let then = "every communicator of the call was aborted";
        rank_timed_out(call, (self.rank, self.nranks, self.timeout), waited, then)
    }
}
