//! The asynchronous layer: everything that enqueues work on a stream and decides when the host
//! may touch what that work uses.
//!
//! - [`Stream::scope`](crate::Stream::scope) ([`scope`]): work that *borrows* its memory, with
//!   one `cuStreamSynchronize` at the end of a closure. Scopes nest; they cannot overlap.
//! - [`Stream::submit`](crate::Stream::submit) ([`submission`]): work that *owns* its memory,
//!   moved in and handed back by [`Submission::wait`](crate::Submission::wait), so lifetimes
//!   overlap without nesting (rolling pipelines over several streams); submissions on other
//!   streams take it over with a GPU-side wait.
//!
//! - [`PushedGuard::park_submission`](crate::PushedGuard::park_submission) ([`parked`]): a
//!   pending submission that borrows only its context, so one thread keeps work in flight on
//!   several contexts; [`PushedGuard::park_graph`](crate::PushedGuard::park_graph)
//!   ([`parked_graph`]) does the same for an executable graph that owns its module.
//!
//! - [`StreamScope::host_fn`](crate::StreamScope::host_fn) ([`host`]): a Rust closure the driver
//!   calls in stream order, its panics caught and reported by the next wait.
//!
//! - [`Stream::capture`](crate::Stream::capture) ([`graph`]): the same work captured into a
//!   graph that owns its payload, instantiated, and launched as a submission or in a scope.
//!
//! All of them enqueue through one type, [`StreamScope`](crate::StreamScope): every asynchronous
//! operation (copies, memsets, stream-ordered allocation, events, launches) is written once and
//! is available to scopes and submissions alike.

pub(crate) mod batch;
pub(crate) mod managed_batch;
// Used by the libraries' handles (features `cublas`, `cublaslt`, `cufft`, `curand`,
// `cusolver`); always
// built, so that their unit tests run in every build.
#[cfg_attr(
    not(any(
        feature = "cublas",
        feature = "cublaslt",
        feature = "cufft",
        feature = "curand",
        feature = "cusparse",
        feature = "cudnn",
        feature = "cusolver"
    )),
    allow(dead_code)
)]
pub(crate) mod call_order;
pub(crate) mod event;
pub(crate) mod host;
#[cfg(any(
    feature = "cublas",
    feature = "cublaslt",
    feature = "cufft",
    feature = "curand",
    feature = "cusparse",
    feature = "cudnn",
    feature = "cusolver"
))]
pub(crate) mod library_handle;
pub(crate) mod payload;
pub(crate) mod pending;
pub(crate) mod scope;
pub(crate) mod scope_memory;
pub(crate) mod stream;
pub(crate) mod submission;

use crate::deadline::{
    BoundedWait, Deadline, Overrun, Polled, exit_overrun, passed, poll, poll_through_errors,
};
use crate::error::safe_state::unless_sticky;
use crate::error::{Error, Observer, Result};
use crate::ffi;

/// Waits until no work enqueued on `stream` so far can still run, before a scope's borrows end:
/// [`crate::deadline::wait_stream`], observed as a scope's end.
#[track_caller]
pub(crate) fn wait_stream(stream: ffi::CUstream) -> Result<()> {
    crate::deadline::wait_stream(stream, Observer::ScopeEnd)
}

/// [`wait_stream`] bounded by `deadline` (a scope's end, [`Stream::scope_by`](crate::Stream::scope_by)):
/// `cuStreamQuery` until the stream is idle; past the deadline, `overrun` decides: keep waiting
/// (the unbounded wait, then [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed)
/// saying by how much), or the safe state. A sticky answer takes the safe state, as in
/// [`wait_stream`]. A query that fails without a sticky error says nothing about the work: with
/// `KeepWaiting` the unbounded wait decides then, as in [`wait_stream`]; with `Exit` the stream
/// is polled on until it is idle or the deadline passes (then the safe state), so the bound
/// holds on that path too. Either way the query's error is returned. `what` names the wait in
/// the safe state's line and says who observes a sticky error (a scope's end, or the restricted
/// init phase's zeroing of a new allocation, on the NULL stream).
pub(crate) fn wait_stream_by(
    stream: ffi::CUstream,
    deadline: Deadline,
    overrun: Overrun,
    what: BoundedWait,
    site: &'static core::panic::Location<'static>,
) -> Result<()> {
    // A child forked after `Profile::init` makes no driver call (R22), at a scope's end either:
    // the GPU work is the parent's, and the child's copy of the borrowed memory is its own.
    crate::error::poison::not_forked()?;
    // SAFETY: callers pass a live stream of the current context.
    let query = || unsafe { ffi::cuStreamQuery(stream) };
    match poll(deadline, what.observer(), site, query) {
        Polled::Done(Ok(())) => Ok(()),
        Polled::Done(Err(first)) => {
            let first = unless_sticky(first);
            match overrun {
                Overrun::KeepWaiting => wait_stream(stream)?,
                Overrun::Exit => settle_by(stream, deadline, what, site),
            }
            Err(first)
        }
        Polled::Overdue(waited) => match overrun {
            Overrun::KeepWaiting => {
                let late = std::time::Instant::now();
                wait_stream(stream)?;
                Err(overran(site, waited, late.elapsed()))
            }
            Overrun::Exit => exit_overrun(what, site, waited),
        },
    }
}

/// After a non-sticky error at the end of a scope bounded with [`Overrun::Exit`]: polls on until
/// the stream is idle, never past the deadline, past which the process ends. The bound holds on
/// the error path too, where an unbounded `cuStreamSynchronize` would break it, and whatever the
/// driver answers: a non-sticky error, the first one's echo or the driver's answer from now on,
/// is "not yet" to the poll, which reads the clock before every try (R25); a sticky one takes
/// the safe state.
#[cold]
fn settle_by(
    stream: ffi::CUstream,
    deadline: Deadline,
    what: BoundedWait,
    site: &'static core::panic::Location<'static>,
) {
    // SAFETY: callers pass a live stream of the current context.
    let query = || unsafe { ffi::cuStreamQuery(stream) };
    if let Polled::Overdue(waited) = poll_through_errors(deadline, what.observer(), site, query) {
        exit_overrun(what, site, waited);
    }
}

#[cold]
#[inline(never)]
fn overran(
    site: &core::panic::Location<'_>,
    waited: std::time::Duration,
    later: std::time::Duration,
) -> Error {
    let e = passed(format_args!("the stream scope at {site}"), waited);
    let detail = format!(
        "{}; it completed {later:?} later (Overrun::KeepWaiting)",
        e.detail().unwrap_or_default()
    );
    e.with_detail(detail)
}

std::thread_local! {
    /// How many captures this thread is inside of (a capture's closure running).
    static CAPTURING: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// Marks this thread as inside a capture's closure until dropped (also on unwind).
pub(crate) struct InCapture;

impl InCapture {
    pub(crate) fn enter() -> Self {
        CAPTURING.with(|c| c.set(c.get() + 1));
        Self
    }
}

impl Drop for InCapture {
    fn drop(&mut self) {
        CAPTURING.with(|c| c.set(c.get() - 1));
    }
}

/// Refuses a stream scope or submission opened inside a capture's closure on this thread.
///
/// The closure is `'static`, so only a stream of a leaked guard can be reached there; but work a
/// scope or submission enqueues on the capturing stream (or on one it drew into the capture)
/// would become nodes of the graph instead of running, while the scope's synchronize or the
/// submission's event would stand for work that never ran: what it borrows or owns could be
/// released while the graph still names it. Captures are thread-local
/// (`CU_STREAM_CAPTURE_MODE_THREAD_LOCAL`), so a per-thread mark is exact; it costs one
/// thread-local read.
#[inline]
pub(crate) fn refuse_inside_capture(what: &str) -> Result<()> {
    if CAPTURING.with(core::cell::Cell::get) == 0 {
        return Ok(());
    }
    Err(refused_inside_capture(what))
}

#[cold]
#[inline(never)]
fn refused_inside_capture(what: &str) -> Error {
    Error::from_kind(crate::error::ErrorKind::NotSupported).with_detail(format!(
        "{what} inside a graph capture's closure: its work would be captured, not run; enqueue \
         through the capture's own scope"
    ))
}

/// Refuses an event recorded or waited for inside a capture's closure on this thread: every
/// `cuEventRecord` and `cuStreamWaitEvent` custack offers ([`Stream::record`], [`Stream::wait`],
/// their [`StreamScope`](crate::StreamScope) forms, `Stream::wait_parked`, the context-wide
/// `PushedGuard::record_event` and `wait_event`) calls it before the driver (C28.16).
///
/// An event recorded on a capturing stream is a node of the capture, and any stream that then
/// waits for it joins the capture: its work from then on is captured, not run, and it is in
/// the capture until the capture ends, although nothing borrows it for that long. The
/// capture's closure is `'static`, but a leaked guard's streams and events reach it (and a
/// stream parked there reaches another thread), so without this refusal a stream not lent to
/// the capture could join it and be synchronized, scoped or handed to another thread while it
/// captures (the driver answers such a synchronize with `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`,
/// and custack, whose wait then cannot tell its work done, fail-stops). Streams, scopes and
/// events are neither `Send` nor `Sync`, and the streams a capture is on are borrowed by it
/// (no park), so only the thread that runs the closure can record on them: the per-thread
/// mark is exact. Several streams join a capture through
/// [`Stream::capture_forks`](crate::Stream::capture_forks), which forks and joins them itself.
///
/// [`Stream::record`]: crate::Stream::record
/// [`Stream::wait`]: crate::Stream::wait
#[inline]
pub(crate) fn refuse_event_inside_capture(what: &str) -> Result<()> {
    if CAPTURING.with(core::cell::Cell::get) == 0 {
        return Ok(());
    }
    Err(refused_event_inside_capture(what))
}

#[cold]
#[inline(never)]
fn refused_event_inside_capture(what: &str) -> Error {
    Error::from_kind(crate::error::ErrorKind::NotSupported).with_detail(format!(
        "{what} inside a graph capture's closure: a stream that waits for an event recorded in \
         a capture joins it, out of the capture's borrow; fork streams into a capture with \
         Stream::capture_forks"
    ))
}

/// Whether this thread is inside a capture's closure or a capture into a graph being built
/// (what a scope enqueues there becomes a node of a graph instead of running).
#[inline]
pub(crate) fn capturing() -> bool {
    CAPTURING.with(core::cell::Cell::get) != 0 || INTO_GRAPH.with(core::cell::Cell::get) != 0
}

std::thread_local! {
    /// How many captures into a graph being built this thread is inside of.
    static INTO_GRAPH: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// Marks this thread as inside [`GraphBuilder::capture`](crate::graph::GraphBuilder::capture)'s
/// closure, or a conditional node's body closure in the middle of a capture
/// ([`StreamScope::while_loop`](crate::StreamScope::while_loop) and the others), until dropped
/// (also on unwind).
pub(crate) struct IntoGraph;

impl IntoGraph {
    pub(crate) fn enter() -> Self {
        INTO_GRAPH.with(|c| c.set(c.get() + 1));
        Self
    }
}

impl Drop for IntoGraph {
    fn drop(&mut self) {
        INTO_GRAPH.with(|c| c.set(c.get() - 1));
    }
}

/// Refuses a stream-ordered allocation ([`StreamScope::alloc`](crate::StreamScope::alloc)) inside
/// [`GraphBuilder::capture`](crate::graph::GraphBuilder::capture)'s closure on this thread.
///
/// That closure is not `'static` (it borrows the build's bound handles), so an allocation,
/// branded with the build's `'b`, could be kept past the capture: dropped later it would be
/// freed outside the graph whose allocation node made it, or named by a later node that runs
/// outside that allocation's lifetime in the graph. In a conditional node's body closure in the
/// middle of a capture, the capture's dependencies already moved past the node: an allocation
/// there would be made after the node whose body uses it. A capture through
/// [`Stream::capture`](crate::Stream::capture), whose closure is `'static`, makes allocation
/// nodes as before, outside conditional bodies. (Kept here, beside `InCapture`: `graph/` sits above `asynchronous/`.)
#[inline]
pub(crate) fn refuse_alloc_into_graph() -> Result<()> {
    if INTO_GRAPH.with(core::cell::Cell::get) == 0 {
        return Ok(());
    }
    Err(refused_alloc())
}

#[cold]
#[inline(never)]
fn refused_alloc() -> Error {
    Error::custack(
        crate::error::ErrorKind::NotSupported,
        "a stream-ordered allocation inside a capture into a graph being built \
         (GraphBuilder::capture) or a conditional node's body: allocate in the payload, or \
         before the conditional node"
            .to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::{InCapture, IntoGraph, refuse_alloc_into_graph, refuse_inside_capture};
    use crate::error::ErrorKind;

    /// Runs, in a child, the end of a wait bounded with `Overrun::Exit` whose stream's every
    /// `cuStreamQuery` fails with the same error that is not sticky, for ever (here the real
    /// driver's `CUDA_ERROR_NOT_INITIALIZED`: no `cuInit` in the child; `CUDA_ERROR_NO_DEVICE` in
    /// a build without libcuda), waiting for `what` with a deadline `limit` away; checks that the
    /// child ended in the safe state with one line naming this file, and returns the line.
    #[cfg(all(unix, not(miri)))]
    fn overrun_line(what: crate::deadline::BoundedWait, limit: std::time::Duration) -> String {
        use crate::deadline::{Deadline, Overrun};
        let (status, text) = crate::error::safe_state::tests::child::run(None, || {
            let site = core::panic::Location::caller();
            let _ = super::wait_stream_by(
                core::ptr::null_mut(),
                Deadline::after(limit),
                Overrun::Exit,
                what,
                site,
            );
        });
        assert!(
            libc::WIFEXITED(status),
            "the child did not exit: {status:#x}; {text}"
        );
        assert_eq!(
            libc::WEXITSTATUS(status),
            crate::error::FAIL_STOP_STATUS,
            "{text}"
        );
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.contains(file!()),
            "the line names the wait's site: {text}"
        );
        text
    }

    /// A scope's end (`wait_stream_by`, then `settle_by`) under [`overrun_line`]'s driver polls
    /// on to its deadline and ends the process in the safe state, naming the scope that
    /// overran. Before `settle_by` read the clock between such answers it spun for ever: the
    /// liveness bound (60 s) fails the test then.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_bounded_scope_whose_queries_fail_for_ever_ends_at_its_deadline() {
        crate::alone::rerun_alone!(
            a_bounded_scope_whose_queries_fail_for_ever_ends_at_its_deadline
        );
        let text = overrun_line(
            crate::deadline::BoundedWait::Scope,
            std::time::Duration::from_millis(50),
        );
        assert!(
            text.contains("passed its deadline") && text.contains("(Overrun::Exit)"),
            "{text}"
        );
    }

    /// The same wait for the restricted init phase's zeroing of a new allocation
    /// (`BoundedWait::Zeroing`, `zero_within` in src/safety/phase.rs): past the context's bound
    /// it ends the process with one line that names the memset, where the allocation was made,
    /// and the bound, not a stream scope.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_zeroing_whose_queries_fail_for_ever_ends_at_its_bound_naming_the_allocation() {
        crate::alone::rerun_alone!(
            a_zeroing_whose_queries_fail_for_ever_ends_at_its_bound_naming_the_allocation
        );
        let limit = std::time::Duration::from_millis(50);
        let text = overrun_line(crate::deadline::BoundedWait::Zeroing { limit }, limit);
        assert!(
            text.contains("the memset zeroing the allocation made at")
                && text.contains(&format!("wait bound ({limit:?}"))
                && !text.contains("stream scope"),
            "{text}"
        );
    }

    #[test]
    fn scopes_and_submissions_are_refused_inside_a_capture_only() {
        assert!(refuse_inside_capture("a stream scope").is_ok());
        let outer = InCapture::enter();
        let inner = InCapture::enter();
        drop(inner);
        let e = refuse_inside_capture("a stream scope").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotSupported);
        assert!(
            e.to_string()
                .contains("a stream scope inside a graph capture's closure"),
            "{e}"
        );
        drop(outer);
        assert!(refuse_inside_capture("a submission").is_ok());
        // A closure that unwinds leaves the capture too.
        let unwound = std::panic::catch_unwind(|| {
            let _inside = InCapture::enter();
            panic!("in the closure");
        });
        assert!(unwound.is_err());
        assert!(refuse_inside_capture("a submission").is_ok());
    }

    #[test]
    fn allocations_are_refused_inside_a_capture_into_a_graph_only() {
        assert!(refuse_alloc_into_graph().is_ok());
        let outer = IntoGraph::enter();
        let inner = IntoGraph::enter();
        drop(inner);
        let e = refuse_alloc_into_graph().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotSupported);
        assert!(e.to_string().contains("GraphBuilder::capture"), "{e}");
        drop(outer);
        assert!(refuse_alloc_into_graph().is_ok());
    }
}
