//! Deadlines: a bound on every blocking wait (contract row R19). The public documentation is
//! [`Deadline`]'s: which waits take one, what happens past it, and what a bounded wait costs.
//!
//! No arithmetic here may wrap or panic (`clippy::arithmetic_side_effects` is denied, tests
//! included): a wait's bound is part of the restricted profile's timing argument (R23).

#![deny(clippy::arithmetic_side_effects)]

use crate::error::{Error, ErrorKind, Observer, Result};
use crate::ffi;
use core::panic::Location;
use std::time::{Duration, Instant};

/// When a wait gives up: an instant, or never.
///
/// Made from an [`Instant`] ([`at`](Self::at)) or a timeout from now ([`after`](Self::after));
/// a timeout too long for the clock is [`NEVER`](Self::NEVER). Plain data: `Copy`, `Send`,
/// `Sync`.
///
/// Every wait in custack that can block has a form that takes a [`Deadline`]:
///
/// | waits for | unbounded | bounded | past the deadline |
/// | --- | --- | --- | --- |
/// | a stream scope's work | [`Stream::scope`](crate::Stream::scope) | [`Stream::scope_by`](crate::Stream::scope_by) | what the caller chose up front ([`Overrun`]) |
/// | a submission (a graph launched as one too) | [`Submission::wait`](crate::Submission::wait) | [`Submission::wait_by`](crate::Submission::wait_by) | the submission comes back ([`TimedOut`]) |
/// | a parked submission | [`ParkedSubmission::wait`](crate::ParkedSubmission::wait) | [`ParkedSubmission::wait_by`](crate::ParkedSubmission::wait_by) | the parked submission comes back ([`TimedOut`]) |
/// | an event | [`Event::synchronize`](crate::Event::synchronize) | [`Event::synchronize_by`](crate::Event::synchronize_by) | [`ErrorKind::DeadlinePassed`] |
/// | a stream | [`Stream::synchronize`](crate::Stream::synchronize) | [`Stream::synchronize_by`](crate::Stream::synchronize_by) | [`ErrorKind::DeadlinePassed`] |
/// | the whole context | [`PushedGuard::synchronize`](crate::PushedGuard::synchronize) | [`PushedGuard::synchronize_by`](crate::PushedGuard::synchronize_by) | [`ErrorKind::DeadlinePassed`] |
/// | a module's kernels, before it unloads | [`Module::unload`](crate::Module::unload) | [`Module::unload_by`](crate::Module::unload_by) | the module comes back, loaded ([`TimedOut`]) |
///
/// NCCL's waits are bounded by the communicator's own timeout (R16), polled the same way and
/// ending with [`ErrorKind::DeadlinePassed`] (the communicator aborted), and the rendezvous by
/// the job's (R21).
///
/// **Nothing the GPU may still touch is released past a deadline.** Owned pending work is handed
/// back inside [`TimedOut`], with the error: wait for it again, keep it, or
/// [`abandon`](TimedOut::abandon) it (never freed, never handed back: sound, R11). A scope's
/// borrows cannot outlive the call, so a scope cannot hand anything back: it does what its
/// caller chose up front, keep waiting and report the overrun once the work is over, or end the
/// process ([`Overrun`]), which is what ends the device's work on that memory.
///
/// **What a bounded wait costs.** It asks the driver once (`cuEventQuery`, `cuStreamQuery`): if
/// the work is complete, that is the whole wait, one call where the unbounded form makes one.
/// Otherwise it asks again, yielding the thread in between for the first 1,024 tries (the
/// driver's blocking wait spins likewise before it blocks), then
/// sleeping between tries for a time that doubles up to 1 ms but is never more than a 32nd of
/// the time waited so far, and never past the deadline: a wait that ends later than the work by
/// at most one such sleep (plus what the system adds to it), so by about 3 % of the wait at most
/// (a 10 µs sleep at the least), and a host thread that is free meanwhile. Past the deadline, it returns at its first look
/// at the clock: late only by what the system adds to its last yield or sleep, and one query.
/// The `overhead` benchmark's rows `launch_sync_deadline`, `submission_sync` and
/// `submission_sync_deadline` compare both forms with a raw `cuStreamSynchronize`
/// (`BENCHMARKS.md`).
///
/// # Examples
///
/// ```no_run
/// use custack::{Context, ContextFlags, Deadline, Driver, ErrorKind, Stack};
/// use std::time::Duration;
/// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// let mut stack = Stack::new()?;
/// let guard = stack.push(&ctx)?;
/// let stream = guard.stream()?;
/// let mut pending = stream.submit(guard.alloc::<u8>(1 << 20)?, |s, mut buf| s.fill_bytes(&mut buf, 0))?;
/// let buf = loop {
///     match pending.wait_by(Deadline::after(Duration::from_millis(10)))? {
///         Ok(buf) => break buf,
///         Err(late) => {
///             // Not done within 10 ms: the submission is back, its memory still out of reach.
///             assert_eq!(late.error().kind(), ErrorKind::DeadlinePassed);
///             pending = late.into_pending();
///         }
///     }
/// };
/// # drop(buf);
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Deadline {
    at: Option<Instant>,
}

impl Deadline {
    /// A deadline that never passes: the bounded form then waits as long as the unbounded one.
    pub const NEVER: Self = Self { at: None };

    /// A deadline at `instant`.
    #[must_use]
    pub fn at(instant: Instant) -> Self {
        Self { at: Some(instant) }
    }

    /// A deadline `timeout` from now ([`NEVER`](Self::NEVER) if the clock cannot represent
    /// it).
    #[must_use]
    pub fn after(timeout: Duration) -> Self {
        Self {
            at: Instant::now().checked_add(timeout),
        }
    }

    /// The instant it passes, or `None` for [`NEVER`](Self::NEVER).
    #[must_use]
    pub fn instant(self) -> Option<Instant> {
        self.at
    }

    /// Whether it has passed.
    #[must_use]
    pub fn has_passed(self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
    }

    /// The time left (zero once it has passed), or `None` for [`NEVER`](Self::NEVER).
    #[must_use]
    pub fn remaining(self) -> Option<Duration> {
        self.at
            .map(|at| at.saturating_duration_since(Instant::now()))
    }
}

impl From<Instant> for Deadline {
    fn from(instant: Instant) -> Self {
        Self::at(instant)
    }
}

/// What a stream scope does when its deadline passes while its work may still run
/// ([`Stream::scope_by`](crate::Stream::scope_by)).
///
/// A scope borrows its memory only for the call, so it cannot hand the work back as owned
/// pending work is: returning while the GPU may still write what it borrows would free memory
/// under the GPU. These are the only two ways a scope's wait ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Overrun {
    /// Keep waiting until the work is over, then return
    /// [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed), whose detail says
    /// by how much the deadline was missed (the work's own error first, if it failed). The
    /// closure's value is dropped; what the scope wrote is complete.
    KeepWaiting,
    /// End the process at once in custack's one safe state ([`fail_stop`](crate::fail_stop)):
    /// one line on stderr naming the scope that overran (its call site) and by how much, and
    /// exit status [`FAIL_STOP_STATUS`](crate::FAIL_STOP_STATUS) (75), which a watchdog or
    /// supervisor reads as "start a new process for this work" (R20). `_exit`: no destructor,
    /// no exit handler runs, nothing is freed. Ending the process is what ends the device's
    /// work on the scope's memory. The status is not the caller's to choose: a supervisor
    /// reads one status for "the GPU is unusable in this process", never a success.
    Exit,
}

/// Owned pending work whose deadline passed, handed back with the error
/// ([`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed)).
///
/// Nothing it holds was released: the GPU may still use it. Wait for it again
/// ([`into_pending`](Self::into_pending)), keep it, or give up on it
/// ([`abandon`](Self::abandon): never freed, never handed back). Dropping a `TimedOut` drops
/// the pending work, which waits for it without a bound, as the work's own `Drop` does.
///
/// There is no `From<TimedOut<T>> for Error`, and `TimedOut` is no `std::error::Error` (which
/// `?` would box into a `Box<dyn Error>`, whose drop is the unbounded wait), so that `?` cannot
/// drop (and so wait for) the work by accident: `late.abandon()` is the error to return when
/// the work is given up.
#[must_use = "dropping it waits for the work without a bound; wait again, keep it, or abandon it"]
pub struct TimedOut<T> {
    pending: T,
    error: Error,
}

impl<T> TimedOut<T> {
    pub(crate) fn new(pending: T, error: Error) -> Self {
        Self { pending, error }
    }

    /// The error: [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed), naming the
    /// wait and how long it waited.
    pub fn error(&self) -> &Error {
        &self.error
    }

    /// The pending work, to wait for again or keep.
    pub fn into_pending(self) -> T {
        self.pending
    }

    /// The pending work and the error.
    pub fn into_parts(self) -> (T, Error) {
        (self.pending, self.error)
    }
}

impl<T: Abandon> TimedOut<T> {
    /// Gives up on the work ([`Abandon::abandon`]) and returns the error.
    pub fn abandon(self) -> Error {
        self.pending.abandon();
        self.error
    }
}

impl<T> core::fmt::Debug for TimedOut<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TimedOut")
            .field("pending", &core::any::type_name::<T>())
            .field("error", &self.error)
            .finish()
    }
}

impl<T> core::fmt::Display for TimedOut<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.error, f)
    }
}

/// Pending work that can be given up on without waiting.
pub trait Abandon {
    /// Gives up on the work without waiting: nothing it holds is freed or handed back, ever
    /// (leaking is sound, R11: device and page-locked memory go with its context). custack
    /// names what it leaves to the checking driver, which then does not report it as the
    /// program's leak. For work that can never finish (a hung kernel) before the process ends.
    fn abandon(self);
}

/// How a bounded poll ended.
#[derive(Debug)]
pub(crate) enum Polled<T = Result<()>> {
    /// The query answered: for [`poll`], the driver answered something other than
    /// `CUDA_ERROR_NOT_READY`; for [`poll_until`], the query's `Some`.
    Done(T),
    /// The deadline passed first; the work may still run. How long it was waited for.
    Overdue(Duration),
}

/// Tries before the poll starts to sleep (each yields the thread). Enough to cover work of a
/// few hundred microseconds on an idle core (a `sched_yield` with nothing else to run returns
/// in well under a microsecond), as the driver's own blocking wait spins before it blocks: a
/// frame of work ends within this phase, seen one query late, where a sleep would add the
/// system's timer slack to every such wait.
const YIELDS: u32 = 1024;
/// The first sleep between tries; it doubles up to [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_micros(10);
/// The longest sleep between tries.
const LONGEST_PAUSE: Duration = Duration::from_millis(1);
/// A sleep is at most this share of the time waited so far (but at least [`FIRST_PAUSE`]): the
/// work is seen at most about 1/32 of the wait after it completed, so that a wait of a few
/// milliseconds (NCCL's collectives, a frame's work) is not lengthened by a whole doubled
/// sleep (measured on two GPUs: up to 0.9 ms at the end of a 5 ms wait with doubling alone).
const PAUSE_SHARE: u32 = 32;

/// The sleep after `previous` (none: the first sleep, [`FIRST_PAUSE`]), `waited` into the poll:
/// twice the last, at most [`LONGEST_PAUSE`] and a [`PAUSE_SHARE`]th of `waited`, at least
/// [`FIRST_PAUSE`].
fn next_pause(previous: Option<Duration>, waited: Duration) -> Duration {
    previous.map_or(FIRST_PAUSE, |last| {
        last.saturating_mul(2)
            .min(waited.checked_div(PAUSE_SHARE).unwrap_or_default())
            .clamp(FIRST_PAUSE, LONGEST_PAUSE)
    })
}

/// Asks `query` (a `cuEventQuery` or `cuStreamQuery`) until it answers something other than
/// `CUDA_ERROR_NOT_READY` or `deadline` passes; see the module documentation for the backoff.
/// The clock is read only once the first answer is "not ready".
///
/// What it guarantees, on any machine however loaded (the unit tests check it on a fake
/// clock, [`poll_on`]): it never returns [`Polled::Overdue`] before the deadline; no yield or
/// sleep it asks for reaches past the deadline (a sleep is at most the time left at the
/// clock's last reading, a yield asks for no time); and it returns `Overdue` at the first
/// reading of the clock at or after the deadline, so it is late by no more than what the
/// system adds to its last yield or sleep, plus one query. Work that completes is seen by the
/// first query after the pause under way: at most [`LONGEST_PAUSE`] of requested sleep later,
/// and at most a [`PAUSE_SHARE`]th of the time waited when that sleep began (or
/// [`FIRST_PAUSE`], if more).
///
/// An error the driver answers is recorded as observed by `observer` at `site` if it is sticky
/// (R20), as the unbounded waits record theirs.
pub(crate) fn poll(
    deadline: Deadline,
    observer: Observer,
    site: &'static Location<'static>,
    query: impl FnMut() -> ffi::CUresult,
) -> Polled {
    poll_on(&SystemClock, deadline, observer, site, query)
}

/// The clock and the pauses of [`poll`]: the system's ([`SystemClock`]), or a test's fake one,
/// so that what the poll guarantees is checked without depending on how loaded the machine is.
trait Clock {
    /// The current instant ([`Instant::now`]).
    fn now(&self) -> Instant;
    /// Gives the thread up once ([`std::thread::yield_now`]).
    fn yield_now(&self);
    /// Sleeps for `pause` ([`std::thread::sleep`]); the system may sleep longer.
    fn sleep(&self, pause: Duration);
}

/// The system's clock and scheduler.
struct SystemClock;

impl Clock for SystemClock {
    #[inline]
    fn now(&self) -> Instant {
        Instant::now()
    }
    #[inline]
    fn yield_now(&self) {
        std::thread::yield_now();
    }
    #[inline]
    fn sleep(&self, pause: Duration) {
        std::thread::sleep(pause);
    }
}

/// [`poll`] on `clock`.
#[inline]
fn poll_on(
    clock: &impl Clock,
    deadline: Deadline,
    observer: Observer,
    site: &'static Location<'static>,
    mut query: impl FnMut() -> ffi::CUresult,
) -> Polled {
    let first = query();
    if first != ffi::CUresult::CUDA_ERROR_NOT_READY {
        return Polled::Done(first.result_at(observer, site));
    }
    poll_again(clock, deadline, || match query() {
        ffi::CUresult::CUDA_ERROR_NOT_READY => None,
        code => Some(code.result_at(observer, site)),
    })
}

/// The same bounded poll over any query: asks `query` until it answers `Some` or `deadline`
/// passes, with [`poll`]'s backoff (the first ask at once, then yields, then sleeps doubling up
/// to 1 ms and to a 32nd of the time waited, never past the deadline). For waits that ask more than one thing, or a library
/// other than the driver (NCCL's `ncclCommGetAsyncError`): the query converts what it was
/// answered itself, a driver code through the poison's conversion.
/// The clock is read only once the first answer is `None`.
pub(crate) fn poll_until<T>(deadline: Deadline, mut query: impl FnMut() -> Option<T>) -> Polled<T> {
    match query() {
        Some(done) => Polled::Done(done),
        None => poll_again(&SystemClock, deadline, query),
    }
}

/// [`poll_until`] with no deadline: the same backoff, until `query` answers `Some`. For the
/// waits that have no bound by design (a scope's end after a failed synchronize), so that every
/// wait of the crate is this one poll.
pub(crate) fn poll_forever<T>(mut query: impl FnMut() -> Option<T>) -> T {
    loop {
        // A deadline of `NEVER` never passes: `Overdue` does not come, and the loop only
        // restates that without a panic.
        if let Polled::Done(done) = poll_until(Deadline::NEVER, &mut query) {
            return done;
        }
    }
}

/// [`poll`] for a wait that must end by its deadline whatever the driver answers (a scope
/// bounded with [`Overrun::Exit`] whose first query failed): asks `query` until it answers
/// `CUDA_SUCCESS` or `deadline` passes, taking an error that is not sticky as "not yet" (it says
/// nothing about the work: it may be the driver's answer to every query from now on). A sticky
/// answer takes the safe state ([`fail_stop`](crate::fail_stop)), as at any scope's end; every
/// answer goes through the poison's conversion, recorded as observed by `observer` at `site`.
///
/// Every answer but success goes back to the poll's loop, which reads the clock before each
/// try: a driver that answers the same non-sticky error for ever is waited for until the
/// deadline, never longer (`the_same_error_for_ever_is_overdue_at_the_deadline`).
pub(crate) fn poll_through_errors(
    deadline: Deadline,
    observer: Observer,
    site: &'static Location<'static>,
    query: impl FnMut() -> ffi::CUresult,
) -> Polled<()> {
    poll_through_errors_on(&SystemClock, deadline, observer, site, query)
}

/// [`poll_through_errors`] on `clock`.
fn poll_through_errors_on(
    clock: &impl Clock,
    deadline: Deadline,
    observer: Observer,
    site: &'static Location<'static>,
    mut query: impl FnMut() -> ffi::CUresult,
) -> Polled<()> {
    let mut done = || match query() {
        ffi::CUresult::CUDA_ERROR_NOT_READY => None,
        code => match code.result_at(observer, site) {
            Ok(()) => Some(()),
            Err(e) => {
                // A sticky error ends the process here; any other is "not yet".
                let _ = crate::error::safe_state::unless_sticky(e);
                None
            }
        },
    };
    match done() {
        Some(()) => Polled::Done(()),
        None => poll_again(clock, deadline, done),
    }
}

/// The poll after a first answer of "not yet", on `clock`: yields, then sleeps, between tries.
fn poll_again<T>(
    clock: &impl Clock,
    deadline: Deadline,
    mut query: impl FnMut() -> Option<T>,
) -> Polled<T> {
    let start = clock.now();
    let mut tries = 0u32;
    let mut pause = None;
    loop {
        let now = clock.now();
        if deadline.at.is_some_and(|at| now >= at) {
            return Polled::Overdue(now.saturating_duration_since(start));
        }
        if tries < YIELDS {
            // Below `YIELDS`, so it cannot wrap; saturating all the same.
            tries = tries.saturating_add(1);
            clock.yield_now();
        } else {
            let next = next_pause(pause, now.saturating_duration_since(start));
            pause = Some(next);
            let left = deadline
                .at
                .map_or(next, |at| at.saturating_duration_since(now));
            clock.sleep(next.min(left));
        }
        if let Some(done) = query() {
            return Polled::Done(done);
        }
    }
}

/// The error of a wait whose deadline passed: `what` did not complete in `waited`.
#[cold]
#[inline(never)]
pub(crate) fn passed(what: core::fmt::Arguments<'_>, waited: Duration) -> Error {
    Error::custack(
        ErrorKind::DeadlinePassed,
        format!("{what} was not complete when its deadline passed (after {waited:?} of polling)"),
    )
}

/// What a wait bounded with [`Overrun::Exit`] waits for: named in the safe state's line when it
/// overruns, and the observer of a sticky error it meets.
#[derive(Clone, Copy, Debug)]
pub(crate) enum BoundedWait {
    /// A stream scope's end ([`Stream::scope_by`](crate::Stream::scope_by)), its closure
    /// returned.
    Scope,
    /// The memset zeroing a new allocation of the restricted profile's init phase, bounded by
    /// its context's wait bound (`limit`).
    Zeroing {
        /// The context's wait bound.
        limit: Duration,
    },
}

impl BoundedWait {
    /// Who observes a sticky error met on the way.
    pub(crate) fn observer(self) -> Observer {
        match self {
            Self::Scope => Observer::ScopeEnd,
            Self::Zeroing { .. } => Observer::DriverCall,
        }
    }
}

/// Ends the process for a wait that overran its deadline ([`Overrun::Exit`]): the safe state,
/// with a line that names what was waited for (`what`, made at `site`) and how long. Allocates
/// nothing: the detail is written into the safe state's line on the stack (R25).
#[cold]
#[inline(never)]
pub(crate) fn exit_overrun(what: BoundedWait, site: &Location<'_>, waited: Duration) -> ! {
    let error = Error::from_kind(ErrorKind::DeadlinePassed);
    match what {
        BoundedWait::Scope => crate::error::safe_state::fail_stop_with(
            &error,
            format_args!(
                "the stream scope at {site} passed its deadline with its work still running, \
                 {waited:?} after its closure returned (Overrun::Exit): ending the process is \
                 what ends the device's work on the memory the scope borrows"
            ),
        ),
        BoundedWait::Zeroing { limit } => crate::error::safe_state::fail_stop_with(
            &error,
            format_args!(
                "the memset zeroing the allocation made at {site} was not over within the \
                 context's wait bound ({limit:?}; polled {waited:?}): ending the process is \
                 what ends the device's work on memory that would be freed"
            ),
        ),
    }
}

/// Waits until no work enqueued on `stream` so far can still run, before the memory it uses is
/// released: a stream scope's borrows end, or a synchronous copy or memset on the NULL stream
/// returns (its borrows end with it). `observer` names which, where a sticky error is recorded.
///
/// `cuStreamSynchronize` returning an error does not by itself say the work is over:
/// - a **sticky** error does not either. A fault in another context of the process makes every
///   context answer it at once while this stream's kernels and copies keep running (measured on
///   an H100, docs/reliability.md), and after it nothing can be enqueued to mark the work's
///   end. So a sticky answer takes the process's [safe state](crate::fail_stop): the wait
///   never returns, its borrows never end, and ending the process ends the device's work;
/// - an error that is not sticky: the stream is polled with `cuStreamQuery` until it reports
///   something other than `CUDA_ERROR_NOT_READY`; if that answer is a non-sticky error too, the
///   whole context is synchronized; if that fails as well, nothing says the GPU is done with the
///   memory, and the safe state is taken. A sticky answer at any step takes it too.
///
/// Otherwise the first error is returned, once the work is known to be over. It goes to the
/// driver even once the process is poisoned (R20; a scope opened before): only the driver's
/// success says that the work using the borrows is over. Not in a child forked after
/// `Profile::init` (R22): it makes no driver call, and returns `ErrorKind::ForkedProcess` at
/// once; the GPU work is the parent's, and the memory the child releases is its own copy.
#[track_caller]
pub(crate) fn wait_stream(stream: ffi::CUstream, observer: Observer) -> Result<()> {
    crate::error::poison::not_forked()?;
    // SAFETY: callers pass a live stream of the current context (or NULL, its NULL stream).
    let Err(first) = unsafe { ffi::cuStreamSynchronize(stream) }.result_releasing(observer) else {
        return Ok(());
    };
    let polled = poll_forever(|| {
        // SAFETY: as above.
        match unsafe { ffi::cuStreamQuery(stream) } {
            ffi::CUresult::CUDA_ERROR_NOT_READY => None,
            code => Some(code.result_releasing(observer)),
        }
    });
    if polled.is_ok() {
        return Err(first);
    }
    // SAFETY: synchronizes the current context, which `stream` belongs to.
    match unsafe { ffi::cuCtxSynchronize() }.result_releasing(observer) {
        Ok(()) => Err(first),
        Err(last) => unconfirmed(&first, &last),
    }
}

/// The safe state for a wait whose end the driver can neither confirm nor deny.
#[cold]
fn unconfirmed(first: &Error, last: &Error) -> ! {
    let e = first.clone().with_detail(format!(
        "{}; cannot tell whether the GPU is done with memory about to be released \
         (cuCtxSynchronize: {last})",
        first.detail().unwrap_or("cuStreamSynchronize failed")
    ));
    crate::error::fail_stop(&e)
}

#[cfg(test)]
mod tests {
    use super::{
        Clock, Deadline, FIRST_PAUSE, LONGEST_PAUSE, PAUSE_SHARE, Polled, TimedOut, YIELDS, poll,
        poll_on, poll_until,
    };
    use crate::error::{Error, ErrorKind, Observer};
    use crate::ffi::CUresult;
    use core::cell::{Cell, RefCell};
    use core::panic::Location;
    use std::time::{Duration, Instant};

    fn here() -> &'static Location<'static> {
        Location::caller()
    }

    #[test]
    fn a_deadline_is_an_instant_or_never() {
        let d = Deadline::after(Duration::from_secs(3600));
        assert!(!d.has_passed());
        assert!(d.remaining().is_some_and(|r| r > Duration::from_secs(3000)));
        let past = Deadline::at(Instant::now());
        assert!(past.has_passed());
        assert_eq!(past.remaining(), Some(Duration::ZERO));
        assert_eq!(Deadline::NEVER.instant(), None);
        assert!(!Deadline::NEVER.has_passed());
        assert_eq!(Deadline::after(Duration::MAX), Deadline::NEVER);
    }

    #[test]
    fn complete_work_costs_one_query_and_no_clock() {
        let mut queries = 0;
        let polled = poll(
            Deadline::at(Instant::now()),
            Observer::DriverCall,
            here(),
            || {
                queries += 1;
                CUresult::CUDA_SUCCESS
            },
        );
        assert!(matches!(polled, Polled::Done(Ok(()))), "{polled:?}");
        assert_eq!(queries, 1);
    }

    #[test]
    fn an_error_ends_the_poll_with_that_error() {
        let mut answers = [
            CUresult::CUDA_ERROR_NOT_READY,
            CUresult::CUDA_ERROR_INVALID_HANDLE,
        ]
        .into_iter();
        let polled = poll(Deadline::NEVER, Observer::DriverCall, here(), || {
            answers.next().unwrap_or(CUresult::CUDA_SUCCESS)
        });
        let Polled::Done(Err(e)) = polled else {
            panic!("{polled:?}")
        };
        assert_eq!(e.kind(), ErrorKind::InvalidHandle);
    }

    #[test]
    fn work_that_never_ends_is_overdue_at_the_deadline_not_before() {
        // On the system's clock, only what holds however loaded the machine is: never before
        // the deadline. How soon after it, and the backoff, are checked on a fake clock below.
        let start = Instant::now();
        let timeout = Duration::from_millis(20);
        let polled = poll(
            Deadline::after(timeout),
            Observer::DriverCall,
            here(),
            || CUresult::CUDA_ERROR_NOT_READY,
        );
        let Polled::Overdue(waited) = polled else {
            panic!("{polled:?}")
        };
        assert!(start.elapsed() >= timeout);
        assert!(waited <= start.elapsed(), "{waited:?}");
    }

    /// On the system's clock the poll sleeps once its yields are spent, rather than spin: work
    /// that never ends, polled for 100 ms, is asked once, once after each of the [`YIELDS`]
    /// yields, and once after each sleep. A sleep lasts at least what it asks for (10 us
    /// doubling up to 1 ms and to a 32nd of the time waited, the last cut to the time left), so
    /// at most as many sleeps fit in 100 ms as the backoff makes when every sleep lasts exactly
    /// its pause and the yields take no time (counted below: about 250), however loaded the
    /// machine. A poll that did not sleep would ask millions of times (the fake clock above
    /// cannot tell: it only records what was asked for).
    #[test]
    fn the_system_clock_sleeps_between_late_tries() {
        let budget = Duration::from_millis(100);
        let (mut waited, mut previous, mut sleeps) = (Duration::ZERO, None, 0u32);
        while waited < budget {
            let pause = match backoff(YIELDS as usize, previous, waited) {
                Pause::Sleep(pause) => pause,
                Pause::Yield => panic!("a yield past the yields"),
            };
            waited = waited.saturating_add(pause);
            previous = Some(pause);
            sleeps = sleeps.saturating_add(1);
        }
        // The share keeps it far below a spin: well under 1,000 sleeps in 100 ms.
        assert!(sleeps < 400, "{sleeps} sleeps in 100 ms");
        let mut queries = 0u32;
        let polled = poll(
            Deadline::after(Duration::from_millis(100)),
            Observer::DriverCall,
            here(),
            || {
                queries = queries.saturating_add(1);
                CUresult::CUDA_ERROR_NOT_READY
            },
        );
        assert!(matches!(polled, Polled::Overdue(_)), "{polled:?}");
        // The first ask, one per yield, and one per sleep (and the last, cut to the time left).
        let most = YIELDS.saturating_add(sleeps).saturating_add(2);
        assert!(
            queries <= most,
            "{queries} queries in 100 ms, more than {most}"
        );
    }

    /// A pause the poll asked for: a yield, or a sleep of the given length.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Pause {
        Yield,
        Sleep(Duration),
    }

    /// How loaded the fake machine is: what a yield costs (on a loaded machine, whole time
    /// slices), what the system adds to each sleep, and what a query costs.
    #[derive(Clone, Copy, Debug)]
    struct Load {
        yield_cost: Duration,
        oversleep: Duration,
        query_cost: Duration,
    }

    impl Load {
        /// What the system added to `pause`.
        fn added(self, pause: Pause) -> Duration {
            match pause {
                Pause::Yield => self.yield_cost,
                Pause::Sleep(_) => self.oversleep,
            }
        }
    }

    /// A load: microseconds a yield costs, the system adds to a sleep, a query costs.
    const fn load(yield_us: u64, oversleep_us: u64, query_us: u64) -> Load {
        Load {
            yield_cost: us(yield_us),
            oversleep: us(oversleep_us),
            query_cost: us(query_us),
        }
    }

    const fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    /// The cases of a list these tests run: natively all of them; under Miri the first and the
    /// last. These tests check the poll's arithmetic over many cases and run no `unsafe` code
    /// of their own; Miri interprets them about a thousand times slower (all of them took
    /// 206 s under Stacked Borrows on the 2-core machine, three times that under Tree
    /// Borrows), and what Miri looks for, one case of each end reaches.
    fn cases<T: Copy>(all: &[T]) -> Vec<T> {
        match all {
            [first, .., last] if cfg!(miri) => vec![*first, *last],
            _ => all.to_vec(),
        }
    }

    /// From idle (time moves only when asked to) to a machine that gives up 10 ms slices.
    const LOADS: [Load; 5] = [
        load(0, 0, 0),
        load(1, 60, 2),
        load(4_000, 4_000, 5),
        load(10_000, 10_000, 300),
        load(0, 0, 3_000),
    ];

    /// A fake clock: time moves only by what the poll's pauses and queries cost under `load`.
    /// Records each pause with the instant it was asked for, and counts clock readings.
    struct FakeClock {
        now: Cell<Instant>,
        load: Load,
        pauses: RefCell<Vec<(Pause, Instant)>>,
        reads: Cell<u32>,
    }

    impl FakeClock {
        fn new(load: Load) -> Self {
            Self {
                now: Cell::new(Instant::now()),
                load,
                pauses: RefCell::new(Vec::new()),
                reads: Cell::new(0),
            }
        }

        fn advance(&self, by: Duration) {
            self.now.set(
                self.now
                    .get()
                    .checked_add(by)
                    .expect("the fake clock passes its range"),
            );
        }

        /// A query's start: the instant, after which the query's cost passes.
        fn query(&self) -> Instant {
            let at = self.now.get();
            self.advance(self.load.query_cost);
            at
        }
    }

    impl FakeClock {
        fn pause(&self, pause: Pause) {
            let mut pauses = self.pauses.borrow_mut();
            // The longest case here takes a few hundred: a poll that never stops fails.
            assert!(pauses.len() < 10_000, "the poll does not stop");
            pauses.push((pause, self.now.get()));
        }
    }

    impl Clock for FakeClock {
        fn now(&self) -> Instant {
            self.reads.set(self.reads.get().saturating_add(1));
            self.now.get()
        }
        fn yield_now(&self) {
            self.pause(Pause::Yield);
            self.advance(self.load.yield_cost);
        }
        fn sleep(&self, pause: Duration) {
            self.pause(Pause::Sleep(pause));
            self.advance(pause.saturating_add(self.load.oversleep));
        }
    }

    /// The backoff's `k`th pause, asked for `waited` into the poll, after the sleep `previous`
    /// (none before the first): [`YIELDS`] yields, then sleeps from [`FIRST_PAUSE`] doubling
    /// up to [`LONGEST_PAUSE`] and to a [`PAUSE_SHARE`]th of the time waited (each then cut to
    /// the time left, if less). Written out, not through `next_pause`, so that a change of the
    /// rule fails here.
    fn backoff(k: usize, previous: Option<Duration>, waited: Duration) -> Pause {
        if k < YIELDS as usize {
            return Pause::Yield;
        }
        let Some(previous) = previous else {
            return Pause::Sleep(FIRST_PAUSE);
        };
        let doubled = previous.saturating_mul(2);
        let share = waited.checked_div(PAUSE_SHARE).unwrap_or_default();
        Pause::Sleep(doubled.min(share).max(FIRST_PAUSE).min(LONGEST_PAUSE))
    }

    #[test]
    fn complete_work_reads_no_clock_and_never_pauses() {
        for load in cases(&LOADS) {
            let clock = FakeClock::new(load);
            let passed = Deadline::at(clock.now.get());
            let mut queries = 0;
            let polled = poll_on(&clock, passed, Observer::DriverCall, here(), || {
                queries += 1;
                CUresult::CUDA_SUCCESS
            });
            assert!(matches!(polled, Polled::Done(Ok(()))), "{polled:?}");
            assert_eq!((queries, clock.reads.get()), (1, 0), "{load:?}");
            assert!(clock.pauses.borrow().is_empty());
        }
    }

    /// The poll's guarantees for work that never ends, on every load and timeout: it returns
    /// `Overdue` not before the deadline, at the first reading of the clock at or after it;
    /// no sleep asks for time past the deadline; and so it is late by at most what the system
    /// added to its last pause plus one query. The pauses are exactly the backoff's.
    #[test]
    fn work_that_never_ends_is_overdue_at_the_first_look_past_the_deadline() {
        let timeouts = [0, 1, 9, 10, 15, 100, 999, 1_000, 2_345, 5_000, 30_000].map(us);
        for load in cases(&LOADS) {
            for timeout in cases(&timeouts) {
                let clock = FakeClock::new(load);
                let start = clock.now.get();
                let deadline = start + timeout;
                let mut queries = Vec::new();
                let polled = poll_on(
                    &clock,
                    Deadline::at(deadline),
                    Observer::DriverCall,
                    here(),
                    || {
                        queries.push(clock.query());
                        CUresult::CUDA_ERROR_NOT_READY
                    },
                );
                let case = format!("{load:?}, timeout {timeout:?}");
                let returned = clock.now.get();
                let Polled::Overdue(waited) = polled else {
                    panic!("{case}: {polled:?}")
                };
                // Not before the deadline, and the time waited is from the first "not ready".
                assert!(returned >= deadline, "{case}: returned before the deadline");
                assert_eq!(waited, returned - (start + load.query_cost), "{case}");
                let pauses = clock.pauses.borrow();
                // Every query but the first follows a pause, and each pause a reading of the
                // clock before the deadline; the last reading is the one that returned.
                assert_eq!(queries.len(), pauses.len() + 1, "{case}");
                assert_eq!(clock.reads.get() as usize, pauses.len() + 2, "{case}");
                // At most the first query and the one after the last pause begin at or
                // after the deadline: nothing is asked once a reading showed it passed.
                let late = queries[1..].iter().filter(|&&q| q >= deadline).count();
                assert!(late <= 1, "{case}: {late} queries past the deadline");
                // The poll's own clock starts after the first query.
                let polling = start + load.query_cost;
                let mut previous = None;
                for (k, &(pause, asked)) in pauses.iter().enumerate() {
                    assert!(
                        asked < deadline,
                        "{case}: pause {k} asked for past the deadline"
                    );
                    let left = deadline - asked;
                    let expected = backoff(k, previous, asked - polling);
                    match (pause, expected) {
                        (Pause::Yield, Pause::Yield) => {}
                        (Pause::Sleep(slept), Pause::Sleep(full)) => {
                            assert!(slept <= left, "{case}: sleep {k} past the deadline");
                            assert!(slept <= LONGEST_PAUSE, "{case}: sleep {k}");
                            assert_eq!(slept, full.min(left), "{case}: sleep {k}");
                            previous = Some(full);
                        }
                        _ => panic!("{case}: pause {k} is {pause:?}, not {expected:?}"),
                    }
                }
                // Late by at most what the system added to the last pause, plus one query.
                let bound = pauses
                    .last()
                    .map_or(load.query_cost, |&(p, _)| load.added(p) + load.query_cost);
                assert!(
                    returned - deadline <= bound,
                    "{case}: {:?} late, more than {bound:?}",
                    returned - deadline
                );
            }
        }
    }

    /// A driver that answers the same error that is not sticky for ever, to every query: a poll
    /// through errors (a scope's end bounded with `Overrun::Exit`, `settle_by`) is overdue at
    /// the deadline, on every load and timeout, as for work that never ends: the clock is read
    /// before every try but the first, it returns at the first reading at or after the
    /// deadline, and no pause asks for time past it. (`poll` itself returns such an answer at
    /// once, `Done`: it is the caller's to decide, and this is what the scope's end decides.)
    #[test]
    fn the_same_error_for_ever_is_overdue_at_the_deadline() {
        use super::poll_through_errors_on;
        let codes = [
            CUresult::CUDA_ERROR_INVALID_VALUE,
            CUresult::CUDA_ERROR_NOT_INITIALIZED,
            CUresult::CUDA_ERROR_UNKNOWN,
            CUresult(220),
            CUresult(46),
        ];
        let timeouts = [0, 1, 10, 999, 5_000, 30_000].map(us);
        for code in cases(&codes) {
            assert!(!ErrorKind::from_code(code).is_sticky(), "{code:?}");
            for load in cases(&LOADS) {
                for timeout in cases(&timeouts) {
                    let clock = FakeClock::new(load);
                    let deadline = clock.now.get() + timeout;
                    let mut queries = 0usize;
                    let polled = poll_through_errors_on(
                        &clock,
                        Deadline::at(deadline),
                        Observer::ScopeEnd,
                        here(),
                        || {
                            queries += 1;
                            let _ = clock.query();
                            code
                        },
                    );
                    let case = format!("{code:?}, {load:?}, timeout {timeout:?}");
                    let returned = clock.now.get();
                    assert!(matches!(polled, Polled::Overdue(_)), "{case}: {polled:?}");
                    assert!(returned >= deadline, "{case}: returned before the deadline");
                    let pauses = clock.pauses.borrow();
                    assert_eq!(queries, pauses.len() + 1, "{case}");
                    assert_eq!(clock.reads.get() as usize, pauses.len() + 2, "{case}");
                    for &(pause, asked) in pauses.iter() {
                        assert!(
                            asked < deadline,
                            "{case}: a pause asked for past the deadline"
                        );
                        if let Pause::Sleep(slept) = pause {
                            assert!(slept <= deadline - asked, "{case}: slept past the deadline");
                        }
                    }
                    let bound = pauses
                        .last()
                        .map_or(load.query_cost, |&(p, _)| load.added(p) + load.query_cost);
                    assert!(
                        returned - deadline <= bound,
                        "{case}: late by more than {bound:?}"
                    );
                }
            }
        }
        // Success after errors ends it at once, `Done`; a "not ready" in between is waited on.
        let clock = FakeClock::new(LOADS[1]);
        let mut answers = [
            CUresult::CUDA_ERROR_INVALID_VALUE,
            CUresult::CUDA_ERROR_NOT_READY,
            CUresult::CUDA_ERROR_UNKNOWN,
            CUresult::CUDA_SUCCESS,
        ]
        .into_iter();
        let polled =
            poll_through_errors_on(&clock, Deadline::NEVER, Observer::ScopeEnd, here(), || {
                answers.next().unwrap_or(CUresult::CUDA_ERROR_INVALID_VALUE)
            });
        assert!(matches!(polled, Polled::Done(())), "{polled:?}");
        assert_eq!(answers.next(), None);
    }

    /// Work that completes is seen by the first query after the pause under way: that query
    /// starts less than one pause (at most [`LONGEST_PAUSE`] asked for, plus what the system
    /// adds) plus one query after the work completed.
    #[test]
    fn complete_work_is_seen_within_one_pause() {
        let ends = [1, 10, 333, 1_000, 4_321, 20_000].map(us);
        for load in cases(&LOADS) {
            for deadline in [None, Some(us(40_000))] {
                for end in cases(&ends) {
                    let clock = FakeClock::new(load);
                    let start = clock.now.get();
                    let done_at = start + end;
                    let mut seen_at = None;
                    let polled = poll_on(
                        &clock,
                        deadline.map_or(Deadline::NEVER, |d| Deadline::at(start + d)),
                        Observer::DriverCall,
                        here(),
                        || {
                            let at = clock.query();
                            if at < done_at {
                                return CUresult::CUDA_ERROR_NOT_READY;
                            }
                            seen_at = Some(at);
                            CUresult::CUDA_SUCCESS
                        },
                    );
                    let case = format!("{load:?}, deadline {deadline:?}, done after {end:?}");
                    assert!(matches!(polled, Polled::Done(Ok(()))), "{case}: {polled:?}");
                    let seen_at = seen_at.expect("seen");
                    let pauses = clock.pauses.borrow();
                    let &(ref last, asked) = pauses.last().expect("it paused");
                    if let Pause::Sleep(slept) = last {
                        assert!(*slept <= LONGEST_PAUSE, "{case}");
                        // And at most a `PAUSE_SHARE`th of the time waited when it began (the
                        // poll's clock starts after the first query), or the first pause.
                        let waited = asked - (start + load.query_cost);
                        let share = (waited / PAUSE_SHARE).max(FIRST_PAUSE);
                        assert!(*slept <= share, "{case}: slept {slept:?} after {waited:?}");
                    }
                    let bound = LONGEST_PAUSE + load.added(*last) + load.query_cost;
                    assert!(
                        seen_at - done_at < bound,
                        "{case}: seen {:?} after, not within {bound:?}",
                        seen_at - done_at
                    );
                }
            }
        }
    }

    #[test]
    fn any_query_is_polled_the_same_way() {
        // An answer at once: one query, whatever the deadline.
        let mut queries = 0;
        let polled = poll_until(Deadline::at(Instant::now()), || {
            queries += 1;
            Some("done")
        });
        assert!(matches!(polled, Polled::Done("done")), "{polled:?}");
        assert_eq!(queries, 1);
        // "Not yet" twice, then the answer.
        let mut answers = [None, None, Some(7)].into_iter();
        let polled = poll_until(Deadline::NEVER, || answers.next().flatten());
        assert!(matches!(polled, Polled::Done(7)), "{polled:?}");
        assert_eq!(answers.next(), None);
        // A deadline already passed: asked once, then overdue, never waited on.
        let mut queries = 0;
        let polled: Polled<()> = poll_until(Deadline::at(Instant::now()), || {
            queries += 1;
            None
        });
        assert!(matches!(polled, Polled::Overdue(_)), "{polled:?}");
        assert_eq!(queries, 1);
    }

    #[test]
    fn timed_out_keeps_the_work_and_says_why() {
        let late = TimedOut::new(
            vec![1u8, 2],
            super::passed(format_args!("the test's wait"), Duration::from_millis(5)),
        );
        assert_eq!(late.error().kind(), ErrorKind::DeadlinePassed);
        let shown = late.to_string();
        assert!(
            shown.contains("the test's wait was not complete when its deadline passed"),
            "{shown}"
        );
        assert!(format!("{late:?}").contains("alloc::vec::Vec<u8>"));
        let (work, e): (Vec<u8>, Error) = late.into_parts();
        assert_eq!(work, [1, 2]);
        assert_eq!(e.kind(), ErrorKind::DeadlinePassed);
    }

    /// Work that notes whether it was given up on.
    struct Given<'a>(&'a Cell<bool>);

    impl super::Abandon for Given<'_> {
        fn abandon(self) {
            self.0.set(true);
        }
    }

    #[test]
    fn timed_out_work_comes_back_whole_or_is_abandoned_once_with_its_error() {
        let abandoned = Cell::new(false);
        let late = || {
            TimedOut::new(
                Given(&abandoned),
                super::passed(format_args!("the test's wait"), Duration::from_millis(5)),
            )
        };
        // Waited for again: the work comes back, not abandoned.
        let work = late().into_pending();
        assert!(core::ptr::eq(work.0, &raw const abandoned));
        assert!(!abandoned.get());
        // Given up on: abandoned, and the error is the overrun's.
        let e = late().abandon();
        assert!(abandoned.get());
        assert_eq!(e.kind(), ErrorKind::DeadlinePassed);
        assert!(e.to_string().contains("the test's wait"), "{e}");
    }

    /// The system's clock, which `poll` pauses on: a sleep lasts at least its pause (the system
    /// may add to it, never take away), and the clock reads the time that passed.
    #[test]
    fn the_system_clock_sleeps_at_least_its_pause() {
        use super::{Clock, SystemClock};
        let pause = Duration::from_millis(20);
        let before = SystemClock.now();
        SystemClock.yield_now();
        SystemClock.sleep(pause);
        let after = SystemClock.now();
        assert!(after - before >= pause, "{:?}", after - before);
        assert!(Instant::now() >= after);
    }

    #[test]
    fn a_deadline_from_an_instant_passes_at_it() {
        let at = Instant::now() + Duration::from_secs(3600);
        let d = Deadline::from(at);
        assert_eq!(d.instant(), Some(at));
        assert_eq!(d, Deadline::at(at));
        assert!(!d.has_passed());
    }
}
