//! Stream capture: the work a closure enqueues on a stream becomes a [`Graph`] that owns the
//! closure's payload ([`Stream::capture`]), or the work of several streams, each other stream
//! forked into the capture through an event and joined back before it ends, each with its own
//! scope and its own part of the payload ([`Stream::capture_forks`], and its one-fork case
//! [`Stream::capture_forked`]). And the one reader of what a stream is capturing into
//! (`cuStreamGetCaptureInfo`), for what is added to a capture in its middle: conditional nodes
//! (`capture_into.rs`) and host functions the graph owns (`host.rs`).
//!
//! ```text
//!   stream.capture(payload, |s, bound| …)               -> Graph<'g, P>
//!     cuStreamBeginCapture(stream); f(its scope, the payload bound to it); cuStreamEndCapture
//!   origin.capture_forks(((&a, qa), (&b, qb)), p, |s, p, (ba, bb)| …)
//!                                                        -> Graph<'g, (P, (Qa, Qb))>
//!   origin.capture_forked(&fork, p, q, |s, t, p, q| …)  = capture_forks((&fork, q), p, …)
//!     cuEventCreate                      one internal event (DISABLE_TIMING)
//!     cuStreamBeginCapture(origin)
//!     cuEventRecord(origin); cuStreamWaitEvent(fork)        each fork joins the capture
//!     f(origin's scope, p bound to it, one Branch a fork)   ba.run(|t, qa| …): a's own scope
//!     cuEventRecord(fork); cuStreamWaitEvent(origin)        each fork joins back
//!     cuStreamEndCapture(origin); cuEventDestroy
//! ```
//!
//! The capture is thread-local (`CU_STREAM_CAPTURE_MODE_THREAD_LOCAL`) and its closure
//! `'static`: a scope or submission opened inside it is refused (`asynchronous/`'s per-thread
//! mark, [`InCapture`]), and so is every event record and wait (an event recorded in the
//! capture would let any stream that waits for it join the capture, C28.16: streams join
//! through `capture_forks` only), and it reaches nothing but its payload. A capture that does not
//! complete (an error or a panic in the closure) is ended and what it captured destroyed.
//!
//! The crate forks and joins, never the closure, so no capture can end with a fork of the
//! crate's unjoined (`CUDA_ERROR_STREAM_CAPTURE_UNJOINED`; a stream that the closure's raw
//! calls joined and left ends the capture with that error and no graph). On an error or a
//! panic each fork is joined back too (as far as the driver still takes calls) and the capture
//! ended on the origin, which ends it for every stream in it, an invalidated capture included:
//! the driver keeps an invalidated sequence's streams in `CU_STREAM_CAPTURE_STATUS_INVALIDATED`
//! until `cuStreamEndCapture` on the stream that began it, and takes them all out of capture
//! mode then.

use super::forks::{ForkStream, Forks};
use super::owned::{Graph, destroy_graph};
use crate::asynchronous::InCapture;
use crate::asynchronous::payload::Payload;
use crate::asynchronous::scope::StreamScope;
use crate::asynchronous::stream::Stream;
use crate::error::left_behind::Object;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;

/// Ends a capture that did not complete (an error or a panic in the closure), restoring the
/// stream, and destroys what was captured.
struct EndCapture(ffi::CUstream);

impl EndCapture {
    /// `cuStreamEndCapture` of a capture that completed: the graph it made, which the caller
    /// owns from now on. Poisoned or forked (R20, R22), refused before the driver, the stream
    /// left capturing (nothing of a poisoned process's streams runs or is destroyed again).
    fn finish(self) -> Result<ffi::CUgraph> {
        let stream = self.0;
        core::mem::forget(self);
        crate::error::poison::check()?;
        let mut graph = core::ptr::null_mut();
        // SAFETY: the stream is live and capturing (this guard exists only during capture).
        unsafe { ffi::cuStreamEndCapture(stream, &raw mut graph) }.result()?;
        Ok(graph)
    }
}

impl Drop for EndCapture {
    fn drop(&mut self) {
        // Poisoned or forked (R20, R22): no driver call; the stream stays capturing, and the
        // error is the process's poison (or the fork), which every later call returns.
        if crate::error::poison::check().is_err() {
            return;
        }
        let mut graph = core::ptr::null_mut();
        // SAFETY: the stream is live and capturing (this guard exists only during capture).
        let ended = unsafe { ffi::cuStreamEndCapture(self.0, &raw mut graph) }.result();
        if let Err(e) = ended {
            // An invalidated capture ends with an error and no graph, and so does one with a
            // fork not joined back: nothing to report beyond the error that invalidated it,
            // which the closure returned. Any other refusal may have left the stream
            // capturing, which the caller would otherwise not learn: recorded.
            let ended_anyway = matches!(
                e.kind(),
                ErrorKind::StreamCaptureInvalidated | ErrorKind::StreamCaptureUnjoined
            );
            if graph.is_null() && ended_anyway {
                return;
            }
            record_drop_error(e);
        }
        if !graph.is_null() {
            destroy_graph(graph);
        }
    }
}

/// The capture's internal event, destroyed when dropped (after the capture has ended: declared
/// before the [`EndCapture`] that ends it).
struct ForkEvent(ffi::CUevent);

impl ForkEvent {
    fn new() -> Result<Self> {
        let mut raw = core::ptr::null_mut();
        let flags = ffi::CUevent_flags::CU_EVENT_DISABLE_TIMING.0 as core::ffi::c_uint;
        // SAFETY: a valid out-pointer; the caller's stream is of the current context, so the
        // event is made in the context the streams belong to.
        unsafe { ffi::cuEventCreate(&raw mut raw, flags) }.result()?;
        Ok(Self(raw))
    }

    /// `cuEventRecord` on `stream`, then `cuStreamWaitEvent` on `waiter`: `waiter`'s later work
    /// follows `stream`'s earlier work (during a capture: joins `waiter` to the capture, or
    /// `stream`'s branch back into `waiter`'s).
    fn record_then_wait(&self, stream: ffi::CUstream, waiter: ffi::CUstream) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live event and a live stream of the current context (the caller's).
        unsafe { ffi::cuEventRecord(self.0, stream) }.result()?;
        // SAFETY: as above; the flags must be 0.
        unsafe { ffi::cuStreamWaitEvent(waiter, self.0, 0) }.result()
    }
}

impl Drop for ForkEvent {
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(Object::Event, self.0 as u64, || {
            // SAFETY: a live event of the current context, destroyed once; the capture that
            // recorded it has ended (the driver releases a pending record's event itself).
            unsafe { ffi::cuEventDestroy_v2(self.0) }.result()
        });
    }
}

/// Joins a forked capture's forks back into its origin, those that joined and have not been
/// joined back, if the capture did not complete (an error or a panic): declared after the
/// capture's [`EndCapture`], so that it runs first.
struct JoinBack<'e> {
    origin: ffi::CUstream,
    forks: &'e [ForkStream],
    event: &'e ForkEvent,
    /// How many of `forks` (the first ones) joined the capture and have not been joined back.
    forked: usize,
}

impl JoinBack<'_> {
    /// Joins every fork that joined back into the origin, once each; a fork whose join is
    /// refused does not stop the others' (the first refusal is returned).
    fn join_back(&mut self) -> Result<()> {
        let joined = core::mem::replace(&mut self.forked, 0);
        let mut first = Ok(());
        for fork in self.forks.iter().take(joined) {
            let back = self.event.record_then_wait(fork.raw, self.origin);
            if first.is_ok() {
                first = back;
            }
        }
        first
    }
}

impl Drop for JoinBack<'_> {
    fn drop(&mut self) {
        // Poisoned or forked (R20, R22): no driver call, as `EndCapture`'s drop.
        if crate::error::poison::check().is_err() {
            return;
        }
        // A capture the closure invalidated refuses these calls, and ending it on the origin
        // ends it for the forks as well: the error that invalidated it is the one reported.
        // Any other refusal is reported too (the capture then ends unjoined, in no graph).
        if let Err(e) = self.join_back() {
            if e.kind() != ErrorKind::StreamCaptureInvalidated {
                record_drop_error(e);
            }
        }
    }
}

/// What a stream is capturing into, as `cuStreamGetCaptureInfo` says.
pub(crate) enum Capturing {
    /// The stream is not capturing.
    Not,
    /// The stream is capturing into `graph`, after the nodes `deps` (copied out).
    Into {
        graph: ffi::CUgraph,
        deps: Vec<ffi::CUgraphNode>,
    },
}

/// `cuStreamGetCaptureInfo_v2`: whether `stream` (live, of the current context) is capturing,
/// and if it is, the graph it captures into and the capture's current dependencies: the one
/// reader of a capture's graph, for the conditional nodes added in the middle of a capture and
/// the host functions a captured graph owns.
///
/// # Errors
///
/// `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` for a capture that was invalidated (or names no
/// graph); the driver's errors.
pub(crate) fn capture_info(stream: ffi::CUstream) -> Result<Capturing> {
    let mut status = ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    let (mut id, mut graph, mut deps, mut n) = (0u64, core::ptr::null_mut(), core::ptr::null(), 0);
    // SAFETY: a live stream of the current context (the caller's); valid out-pointers.
    unsafe {
        ffi::cuStreamGetCaptureInfo_v2(
            stream,
            &raw mut status,
            &raw mut id,
            &raw mut graph,
            &raw mut deps,
            &raw mut n,
        )
    }
    .result()?;
    match status {
        ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE => return Ok(Capturing::Not),
        ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE if !graph.is_null() => {}
        _ => return Err(ffi::CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.failure()),
    }
    let deps = if n == 0 || deps.is_null() {
        Vec::new()
    } else {
        // SAFETY: while the stream captures, the driver points `deps` at `n` nodes of the
        // capturing graph, valid until the next call on the stream; copied out at once.
        unsafe { core::slice::from_raw_parts(deps, n) }.to_vec()
    };
    Ok(Capturing::Into { graph, deps })
}

impl<'g> Stream<'g> {
    /// `cuStreamBeginCapture`, `cuStreamEndCapture`—Captures the work `f` enqueues on this
    /// stream into a [`Graph`] that owns `payload`, instead of running it.
    ///
    /// `f` enqueues through a [`StreamScope`] and receives the payload bound to it, exactly as
    /// in [`submit`](Self::submit): its scope's environment is `'static`, so the graph can use
    /// only what it owns (it may be launched any number of times, long after this call). `f`
    /// itself is `'static` (capture by `move`): it cannot reach a scope opened before the
    /// capture, on this stream or on one drawn into the capture by an event wait, whose work
    /// would become nodes of the graph instead of running, so that scope's synchronize would
    /// find nothing pending and end its borrows while the graph keeps their addresses (C18).
    /// Kernel
    /// arguments are captured by value; stream-ordered allocations become the graph's own
    /// allocation and free nodes. The capture is thread-local
    /// (`CU_STREAM_CAPTURE_MODE_THREAD_LOCAL`): a synchronous custack call on this thread
    /// during `f` fails and invalidates the capture. A once-only host function is not captured
    /// ([`StreamScope::host_fn`] returns `CUDA_ERROR_NOT_SUPPORTED` while capturing): a graph
    /// may launch many times, so its host functions are [`StreamScope::graph_host_fn`]'s, which
    /// the graph owns. Work on a second stream joins the capture through
    /// [`capture_forked`](Self::capture_forked).
    ///
    /// # Errors
    ///
    /// The driver's errors (e.g. `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`), or `f`'s; then the
    /// capture is ended and discarded, and the payload dropped (nothing ran).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let add = module.function("add_u32")?;
    /// let stream = guard.stream()?;
    /// let payload = (guard.alloc_zeroed::<u32>(1024)?, add, vec![0u32; 1024]);
    /// let graph = stream.capture(payload, |s, (mut dev, add, out)| {
    ///     // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
    ///     unsafe { s.launch(&add, LaunchConfig::for_elements(1024), (&mut dev, 1u32, 1024u32)) }?;
    ///     s.copy_to_host(out, &dev)
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// for _ in 0..3 {
    ///     exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// }
    /// let (_dev, _add, out) = exec.payload_mut();
    /// assert!(out.iter().all(|&x| x == 3));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamBeginCapture")]
    #[doc(alias = "cuStreamEndCapture")]
    pub fn capture<P: Payload>(
        &self,
        payload: P,
        f: impl for<'scope> FnOnce(&'scope StreamScope<'scope, 'static>, P::Bound<'scope>) -> Result<()>
        + 'static,
    ) -> Result<Graph<'g, P>> {
        crate::error::poison::check()?;
        let stream = self.as_raw();
        // Declared before `ending`, so that on an error or a panic the capture ends before the
        // payload drops (freeing memory during a capture would invalidate it).
        let mut payload = payload.hold();
        let mode = ffi::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
        // SAFETY: a live stream of the current context.
        unsafe { ffi::cuStreamBeginCapture_v2(stream, mode) }.result()?;
        let ending = EndCapture(stream);
        // SAFETY: the stream is live and of the current context while `self` is borrowed.
        // Nothing enqueued during capture runs now; it runs when the graph is launched, and the
        // graph (then its executable graph) owns the payload for as long as it can be.
        let scope = unsafe { StreamScope::of(self) };
        // SAFETY: the payload moves into the graph without moving the memory it names, and is
        // out of the host's reach there; the bound handles cannot leave `f`.
        let bound = unsafe { P::bind(&mut payload) };
        let inside = InCapture::enter();
        f(&scope, bound)?;
        drop(inside);
        let graph = ending.finish()?;
        // SAFETY: the capture's graph, ours alone; its nodes use only what `payload` owns.
        Ok(unsafe { Graph::from_parts(graph, payload) })
    }

    /// `cuStreamBeginCapture`, `cuEventRecord`, `cuStreamWaitEvent`, `cuStreamEndCapture`—Captures
    /// work on this stream and on `fork`, forked from it and joined back, into one [`Graph`]
    /// that owns both payloads: the two branches have no order between them, so the graph may
    /// run them at once. The case of one fork of [`capture_forks`](Self::capture_forks), which
    /// forks any number of streams: this method is a call of it.
    ///
    /// The crate forks and joins, so the closure cannot get either wrong: after the capture
    /// begins on this stream it records an internal event here and makes `fork` wait for it
    /// (joining `fork` to the capture); after `f` it records the event on `fork` and makes this
    /// stream wait for it (joining the branch back), then ends the capture. Everything `f`
    /// enqueues on either scope comes after the capture's start and before its end. On an error
    /// or a panic the fork is joined back as far as the driver still allows, the capture is
    /// ended on this stream (which takes every stream of it, an invalidated one included, out
    /// of capture mode) and discarded, and the internal event destroyed, as on success.
    ///
    /// Each stream has a scope of its own, with a lifetime of its own: `payload` is bound to this
    /// stream's scope, `fork_payload` to `fork`'s, and a binding of one cannot be used by the
    /// other (a scope's bindings are invariant in its lifetime), so the two unordered branches
    /// cannot both use one piece of memory, just as two nested scopes cannot (C10).
    ///
    /// The argument of [`capture`](Self::capture) (C18) holds for `fork` as it does for this
    /// stream: `f` is `'static`, so it reaches neither a scope opened before the capture on this
    /// stream or on `fork` (whose work would become nodes of the graph, so that the scope's
    /// synchronize would end borrows the graph keeps), nor a `Stream` to open one on (a scope or
    /// submission opened inside a capture's closure is refused anyway); a `Stream` is neither
    /// `Send` nor `Sync`, so no other thread enqueues on `fork` while it is captured; and `fork`
    /// is in the capture only during this call, which the caller's own scope on `fork`, if it is
    /// in one, cannot interleave with.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no driver call) if `fork` is this stream. The driver's errors
    /// (e.g. `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`), or `f`'s; then the capture is ended and
    /// discarded, and both payloads dropped (nothing ran).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let (stream, side) = (guard.stream()?, guard.stream()?);
    /// let (a, b) = (guard.alloc::<u32>(1024)?, guard.alloc::<u32>(1024)?);
    /// let graph = stream.capture_forked(&side, a, b, |s, t, mut a, mut b| {
    ///     s.fill_u32(&mut a, 1)?; // on `stream`
    ///     t.fill_u32(&mut b, 2) // on `side`, unordered with the fill of `a`
    /// })?;
    /// assert_eq!(graph.node_count()?, 2);
    /// let exec = graph.instantiate()?;
    /// let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// # drop(exec);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamBeginCapture")]
    #[doc(alias = "cuStreamEndCapture")]
    #[doc(alias = "cuStreamWaitEvent")]
    pub fn capture_forked<P: Payload, Q: Payload>(
        &self,
        fork: &Stream<'g>,
        payload: P,
        fork_payload: Q,
        f: impl for<'o, 'b> FnOnce(
            &'o StreamScope<'o, 'static>,
            &'b StreamScope<'b, 'static>,
            P::Bound<'o>,
            Q::Bound<'b>,
        ) -> Result<()>
        + 'static,
    ) -> Result<Graph<'g, (P, Q)>> {
        self.capture_forks((fork, fork_payload), payload, move |s, p, branch| {
            branch.run(move |t, q| f(s, t, p, q))
        })
    }

    /// `cuStreamBeginCapture`, `cuEventRecord`, `cuStreamWaitEvent`, `cuStreamEndCapture`—Captures
    /// work on this stream and on every stream of `forks`, each forked from it and joined back,
    /// into one [`Graph`] that owns every payload: the branches have no order between them, so
    /// the graph may run them at once.
    ///
    /// `forks` is one stream and its payload, `(&side, q)`, or a tuple of one to eight such
    /// pairs, `((&a, qa), (&b, qb), (&c, qc))` ([`Forks`](crate::graph::Forks)); the graph
    /// owns `(payload, q)` or `(payload, (qa, qb, qc))`. `f` receives this stream's scope,
    /// `payload` bound to it, and one [`Branch`](crate::graph::Branch) for each fork (`branch`,
    /// or a tuple `(ba, bb, bc)`): [`Branch::run`](crate::graph::Branch::run) lends that fork's
    /// scope and payload, bound to it, to a closure of its own, with a lifetime of its own. A
    /// binding of one branch cannot be used by another branch's scope or by this stream's
    /// (each scope's bindings are invariant in its lifetime), so two unordered branches cannot
    /// both use one piece of memory (C10); a `Branch` is consumed by its run, so a fork's
    /// payload is bound once; a branch that is not run forks and joins with no work.
    ///
    /// The crate forks and joins, never the closure, so no capture ends with a fork unjoined:
    /// after the capture begins on this stream it records an internal event here and makes each
    /// fork wait for it, in order (joining it to the capture); after `f` it records the event on
    /// each fork and makes this stream wait for it (joining the branch back), then ends the
    /// capture. On an error or a panic every fork that joined is joined back as far as the driver
    /// still allows, the capture is ended on this stream (which takes every stream of it, an
    /// invalidated one included, out of capture mode) and discarded, and the internal event
    /// destroyed, as on success. A fork that work of `f` made join by other means (raw event
    /// calls) and did not join back ends the capture with `CUDA_ERROR_STREAM_CAPTURE_UNJOINED`
    /// and no graph.
    ///
    /// Every stream is of the current context: each is a `&Stream<'g>`, lent by the guard this
    /// stream is (a stream of another guard cannot be held while this one is usable). The
    /// argument of [`capture`](Self::capture) (C18) holds for every fork as for this stream: `f`
    /// is `'static`, so it reaches neither a scope opened before the capture nor a `Stream`; a
    /// `Stream` is neither `Send` nor `Sync`, and a `Branch` neither, so no other thread enqueues
    /// on a fork while it is captured; and a fork is in the capture only during this call.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no driver call) if a fork is this stream or two forks are
    /// one stream. The driver's errors (e.g. `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`), or `f`'s;
    /// then the capture is ended and discarded, and every payload dropped (nothing ran).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let (stream, a, b) = (guard.stream()?, guard.stream()?, guard.stream()?);
    /// let buf = || guard.alloc::<u32>(1024);
    /// let (x, y, z) = (buf()?, buf()?, buf()?);
    /// let graph = stream.capture_forks(((&a, y), (&b, z)), x, |s, mut x, (ba, bb)| {
    ///     s.fill_u32(&mut x, 1)?; // on `stream`
    ///     ba.run(|t, mut y| t.fill_u32(&mut y, 2))?; // on `a`
    ///     bb.run(|t, mut z| t.fill_u32(&mut z, 3)) // on `b`; the three fills unordered
    /// })?;
    /// assert_eq!(graph.node_count()?, 3);
    /// let exec = graph.instantiate()?;
    /// let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// # drop(exec);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamBeginCapture")]
    #[doc(alias = "cuStreamEndCapture")]
    #[doc(alias = "cuStreamWaitEvent")]
    pub fn capture_forks<P: Payload, F: Forks<'g>>(
        &self,
        forks: F,
        payload: P,
        f: impl for<'o> FnOnce(
            &'o StreamScope<'o, 'static>,
            P::Bound<'o>,
            F::Branches<'o>,
        ) -> Result<()>
        + 'static,
    ) -> Result<Graph<'g, (P, F::Payload)>> {
        crate::error::poison::check()?;
        let (streams, fork_payload) = forks.into_parts();
        let origin = self.as_raw();
        for (i, fork) in streams.as_ref().iter().enumerate() {
            let again = |other: &ForkStream| other.serial == fork.serial || other.raw == fork.raw;
            if fork.serial == self.serial() || fork.raw == origin {
                return Err(Error::custack(
                    ErrorKind::InvalidValue,
                    "a capture's fork must be another stream than the one capturing".to_owned(),
                ));
            }
            if streams.as_ref().iter().take(i).any(again) {
                return Err(Error::custack(
                    ErrorKind::InvalidValue,
                    "a stream is forked into a capture once".to_owned(),
                ));
            }
        }
        // Declared before `ending`, so that on an error or a panic the capture ends before the
        // payloads drop (freeing memory during a capture would invalidate it) and before the
        // event is destroyed.
        let mut held = (payload.hold(), fork_payload.hold());
        let event = ForkEvent::new()?;
        let mode = ffi::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
        // SAFETY: a live stream of the current context.
        unsafe { ffi::cuStreamBeginCapture_v2(origin, mode) }.result()?;
        let ending = EndCapture(origin);
        // Declared after `ending`, so that on an error or a panic the forks join back before
        // the capture ends.
        let mut join = JoinBack {
            origin,
            forks: streams.as_ref(),
            event: &event,
            forked: 0,
        };
        for fork in streams.as_ref() {
            event.record_then_wait(origin, fork.raw)?;
            // Only now: a wait that failed joined nothing, and nothing is joined back then.
            join.forked += 1;
        }
        // SAFETY: the stream is live and of the current context while `self` is borrowed.
        // Nothing enqueued during capture runs now; it runs when the graph is launched, and the
        // graph (then its executable graph) owns every payload for as long as it can be.
        let scope = unsafe { StreamScope::of(self) };
        // SAFETY: the payload moves into the graph without moving the memory it names, and is
        // out of the host's reach there; the bound handles cannot leave `f`, and are bound to
        // the origin's scope lifetime alone, so no fork's branch can use them.
        let bound = unsafe { P::bind(&mut held.0) };
        // SAFETY: the forks are the streams of `streams`, live, of the current context and in
        // the capture since the waits above, for as long as the branches (which cannot leave
        // `f`); each fork's payload is bound once, by its branch's run, to that run's own scope
        // lifetime, and `held` moves into the graph without moving the memory it names.
        let branches = unsafe { F::branches(&streams, &mut held.1) };
        let inside = InCapture::enter();
        f(&scope, bound, branches)?;
        drop(inside);
        join.join_back()?;
        drop(join);
        // Every fork joined back into the origin: the capture ends for all.
        let graph = ending.finish()?;
        drop(event);
        // SAFETY: the capture's graph, ours alone; its nodes use only what `held` owns.
        Ok(unsafe { Graph::from_parts(graph, held) })
    }
}

#[cfg(test)]
mod tests {
    /// In a poisoned process (this test poisons its own, so it runs alone), a capture's
    /// bookkeeping makes no driver call (R20): its end (`finish`, and the drop that ends a
    /// capture that did not complete; into a graph: `capture_into`'s test), a fork's join and the
    /// join back of a capture that did not complete. No context is current and no `cuInit` was
    /// made, so a call that reached the driver would answer another error than the poison
    /// (`CUDA_ERROR_NOT_INITIALIZED`), and the drops would record it; they record nothing. Before
    /// the eleventh session's checks, each of these calls reached the driver.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_poisoned_process_s_capture_ends_and_joins_make_no_driver_call() {
        use super::{EndCapture, ForkEvent, JoinBack};
        use crate::asynchronous::stream::StreamSerial;
        use crate::ffi;
        use crate::graph::forks::ForkStream;
        use core::mem::ManuallyDrop;
        crate::alone::rerun_alone!(a_poisoned_process_s_capture_ends_and_joins_make_no_driver_call);
        let sticky = ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS;
        // Poisons this process, which runs this test alone.
        assert!(sticky.result().is_err());
        assert!(crate::error::poison::poisoned().is_some(), "not poisoned");
        let _ = crate::error::take_drop_errors();
        let null = core::ptr::null_mut();
        let finished = EndCapture(null).finish().map_err(|e| e.code());
        assert_eq!(finished, Err(Some(sticky)), "the capture's end");
        // The event's own drop would be refused too (and record it): not dropped here.
        let event = ManuallyDrop::new(ForkEvent(core::ptr::null_mut()));
        let joined = event.record_then_wait(null, null).map_err(|e| e.code());
        assert_eq!(joined, Err(Some(sticky)), "a fork's join");
        let forks = [ForkStream {
            raw: null,
            serial: StreamSerial::for_tests(1),
        }];
        drop(JoinBack {
            origin: null,
            forks: &forks,
            event: &event,
            forked: 1,
        });
        drop(EndCapture(null));
        let recorded = crate::error::take_drop_errors();
        assert!(
            recorded.is_empty(),
            "a drop reached the driver: {recorded:?}"
        );
    }
}
