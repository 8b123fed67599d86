//! Stream capture and the builder, each inside the other, in one model of a graph:
//!
//! - **Capture into a graph being built** ([`GraphBuilder::capture`]): the work a closure
//!   enqueues on a [`StreamScope`] becomes nodes of the builder's graph (the root graph, or a
//!   conditional node's body), after the nodes given, through `cuStreamBeginCaptureToGraph`
//!   (CUDA 12.3). The scope carries the build's brand `'b`, so it takes the payload bound to
//!   the build, as the builder's nodes do.
//! - **Conditional nodes in the middle of a capture** ([`StreamScope::while_loop`] and the
//!   others, in [`Stream::capture`](crate::Stream::capture)'s closure): the node is added to
//!   the capturing graph after the capture's current dependencies (`cuStreamGetCaptureInfo`,
//!   `cuGraphAddNode`), becomes the only one the capture's next work follows
//!   (`cuStreamUpdateCaptureDependencies`), and its bodies are built by the builder that
//!   conditional nodes of a built graph use, with the capture's brand `'scope`.
//!
//! ```text
//!   b.capture(&[n], |s| s.run(&step, cfg, args))   -> GraphNode<'b, G>   the captured work's join
//!   stream.capture(payload, |s, bound| {
//!       let cond = s.condition(1, true)?;          -> Condition<'scope, CapturedGraph>
//!       s.run(&check, one, (cond.handle(), …))?;   a captured kernel sets it
//!       s.while_loop(cond, |body| …)               the body: GraphBuilder<'scope, BodyGraph<'c>>
//!   })
//! ```
//!
//! Both need driver 12.3 (the condition, `cuStreamBeginCaptureToGraph`): on driver 535 (CUDA
//! 12.2) they return [`ErrorKind::DriverTooOld`].

use super::builder::{BodyGraph, GraphBuilder, GraphNode};
use super::capture::{Capturing, capture_info};
use super::conditional::{Condition, needs_two_bodies};
use crate::asynchronous::scope::StreamScope;
use crate::asynchronous::stream::Stream;
use crate::asynchronous::{InCapture, IntoGraph};
use crate::driver::lookup::STREAM_BEGIN_CAPTURE_TO_GRAPH;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::vocabulary::binding::CapturingUses;

/// The brand of the graph a stream is capturing into, for a [`Condition`] made on it
/// ([`StreamScope::condition`]) and the conditional node that takes it. Never constructed.
#[derive(Debug)]
pub enum CapturedGraph {}

/// Ends a capture into a graph that did not complete (an error or a panic in the closure). The
/// graph is the builder's: what was captured stays in it, and the build's error destroys it.
struct EndInto(ffi::CUstream);

impl EndInto {
    /// `cuStreamEndCapture` of the capture: `Ok(None)` where it ended, or ended with the
    /// error that invalidated it (no graph, nothing to report beyond what the closure
    /// returned); `Ok(Some(e))` for a refusal to report.
    ///
    /// # Errors
    ///
    /// Poisoned or forked (R20, R22): refused before the driver; the stream stays capturing,
    /// and the build's error (the poison, or the fork) destroys nothing either.
    fn end(&self) -> Result<Option<Error>> {
        crate::error::poison::check()?;
        let mut graph = core::ptr::null_mut();
        // SAFETY: the stream is live and capturing (this guard exists only during capture).
        let ended = unsafe { ffi::cuStreamEndCapture(self.0, &raw mut graph) }.result();
        Ok(ended.err().filter(|_| !graph.is_null()))
    }
}

impl Drop for EndInto {
    fn drop(&mut self) {
        if let Ok(Some(e)) = self.end() {
            record_drop_error(e);
        }
    }
}

/// The graph `stream` is capturing into and the capture's current dependencies
/// ([`capture_info`], the one reader of them).
///
/// # Errors
///
/// [`ErrorKind::NotSupported`] if the stream is not capturing; as [`capture_info`].
fn capturing_into(stream: ffi::CUstream) -> Result<(ffi::CUgraph, Vec<ffi::CUgraphNode>)> {
    match capture_info(stream)? {
        Capturing::Into { graph, deps } => Ok((graph, deps)),
        Capturing::Not => Err(Error::custack(
            ErrorKind::NotSupported,
            "a conditional node in a stream scope needs a capturing stream (the scope of \
             Stream::capture or GraphBuilder::capture)"
                .to_owned(),
        )),
    }
}

impl<'b, G> GraphBuilder<'b, G> {
    /// `cuStreamBeginCaptureToGraph`, `cuStreamEndCapture`—Captures the work `f` enqueues on a
    /// [`StreamScope`] into this graph (the root graph, or a conditional node's body), after
    /// `deps`, instead of running it; returns the node the captured work joins in (its one last
    /// node, or an empty node after all of them), for later nodes to depend on.
    ///
    /// The scope carries the build's brand `'b` and a `'static` environment: it takes the
    /// payload bound to the build (`&mut x`, declared kernels through
    /// [`run`](StreamScope::run)), as this builder's nodes do, and nothing the caller could
    /// free. It enqueues on a stream of its own, made for this capture and destroyed after
    /// it; the capture is thread-local, as [`Stream::capture`](crate::Stream::capture)'s: a
    /// stream scope, submission or library call on this thread during `f` is refused, and so
    /// is a stream-ordered allocation ([`StreamScope::alloc`]: it could outlive the capture);
    /// a once-only host function ([`StreamScope::host_fn`]) is refused, and
    /// [`StreamScope::graph_host_fn`] becomes a host node the graph owns (a conditional body
    /// takes none). A [`GraphAlloc`](crate::graph::GraphAlloc) of the build is
    /// not for captured work: the driver makes those nodes, so the builder cannot check them
    /// against the allocation's and free's nodes, and a build that used one while `f` ran (in
    /// captured work, or in the builder's own nodes made meanwhile) ends in
    /// [`ErrorKind::InvalidValue`]. A conditional node's body takes only kernels,
    /// copies, memsets and nested conditional nodes (the driver's rule): other work fails in
    /// the driver.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`] before driver 12.3; the driver's errors (e.g.
    /// `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`), or `f`'s: then the capture is ended, and what
    /// it captured stays in the graph (nodes over the payload, as any), which the build's error
    /// destroys when it ends the build.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
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
    /// let payload = (guard.alloc::<u32>(1024)?, module.declared::<AddU32>()?, vec![0u32; 1024]);
    /// let graph = guard.build_graph(payload, |b, (mut x, add, out)| {
    ///     let set = b.fill_u32(&mut x, 40, &[])?;
    ///     let cfg = LaunchConfig::for_elements(1024);
    ///     let added = b.capture(&[set], |s| s.run(&add, cfg, (&mut x, 2u32, 1024u32)))?;
    ///     b.copy_to_host(out, &x, &[added])?;
    ///     Ok(())
    /// })?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamBeginCaptureToGraph")]
    #[doc(alias = "cuStreamEndCapture")]
    pub fn capture(
        &self,
        deps: &[GraphNode<'b, G>],
        f: impl for<'s> FnOnce(&'s StreamScope<'b, 'static>) -> Result<()>,
    ) -> Result<GraphNode<'b, G>> {
        crate::error::poison::check()?;
        let begin = STREAM_BEGIN_CAPTURE_TO_GRAPH.get()?;
        // SAFETY: the guard that lent the builder keeps its context current while the builder
        // is lent; the stream drops at the end of this call.
        let stream = unsafe { Stream::of_current() }?;
        let raw = stream.as_raw();
        let mode = ffi::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
        // A `GraphNode` is `repr(transparent)` over its `CUgraphNode`: the slice is an array of
        // the driver's node handles, read for this call only.
        let (nodes, count) = (deps.as_ptr().cast::<ffi::CUgraphNode>(), deps.len());
        // SAFETY: a live stream and a live graph being built (or a body of one) of the current
        // context; `nodes` holds `count` nodes of that graph (branded 'b and G); default edges.
        unsafe { begin(raw, self.raw, nodes, core::ptr::null(), count, mode) }.result()?;
        // Declared after `stream`, so that on an error or a panic the capture ends before the
        // stream is destroyed.
        let ending = EndInto(raw);
        // SAFETY: the stream is live and of the current context until this call returns, after
        // the scope (lent to `f` for a shorter borrow) is gone. Nothing enqueued on it runs now:
        // it becomes nodes of this graph, which the build's payload (what 'b binds, owned by
        // the graph and every executable graph made from it) outlives; work on anything else
        // would need a borrow for 'b, which only the payload and leaked memory have; and a
        // stream-ordered allocation, which could leave `f`, is refused (`IntoGraph`).
        let scope = unsafe { StreamScope::of(&stream) };
        let inside = (
            InCapture::enter(),
            IntoGraph::enter(),
            CapturingUses::enter(),
        );
        f(&scope)?;
        drop(inside);
        // Poisoned or forked meanwhile (R20, R22): refused before the capture's last calls.
        crate::error::poison::check()?;
        let (_, sinks) = capturing_into(raw)?;
        core::mem::forget(ending);
        let mut graph = core::ptr::null_mut();
        // SAFETY: the stream is live and capturing since the begin above; the graph returned
        // is this builder's, which stays the build's.
        unsafe { ffi::cuStreamEndCapture(raw, &raw mut graph) }.result()?;
        drop(stream);
        if let &[one] = sinks.as_slice() {
            return Ok(GraphNode::of(one));
        }
        let sinks: Vec<GraphNode<'b, G>> = sinks.into_iter().map(GraphNode::of).collect();
        self.add(&sinks, |out, graph, deps, n| {
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes (the
            // captured work's last ones, or `deps`).
            unsafe { ffi::cuGraphAddEmptyNode(out, graph, deps, n) }
        })
    }
}

impl<'scope> StreamScope<'scope, 'static> {
    /// `cuGraphConditionalHandleCreate`—Makes a condition on the graph this scope's stream is
    /// capturing into, for one conditional node added in the middle of the capture
    /// ([`while_loop`](Self::while_loop), [`if_then`](Self::if_then), …); as
    /// [`GraphBuilder::condition`]. A kernel captured before the node (`s.run`) sets it through
    /// [`Condition::handle`], a [`ConditionalHandle<'scope>`](super::ConditionalHandle): it
    /// cannot leave the capture's closure.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`] if the stream is not capturing (a scope of
    /// [`Stream::scope`](crate::Stream::scope) or a submission);
    /// [`ErrorKind::DriverTooOld`] before driver 12.3; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphConditionalHandleCreate")]
    #[doc(alias = "cuStreamGetCaptureInfo")]
    pub fn condition(
        &self,
        default: u32,
        assign_default: bool,
    ) -> Result<Condition<'scope, CapturedGraph>> {
        crate::error::poison::check()?;
        let (graph, _) = capturing_into(self.as_raw())?;
        GraphBuilder::<'scope, CapturedGraph>::new(graph, crate::context::raw::current()?)
            .condition(default, assign_default)
    }

    /// `cuGraphAddNode`, `cuStreamUpdateCaptureDependencies`—Adds an IF node to the capturing
    /// graph after the work captured so far; the work captured after it follows it. `then`
    /// builds its body, as [`GraphBuilder::if_then`]'s does.
    ///
    /// # Errors
    ///
    /// As [`while_loop`](Self::while_loop).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuGraphAddNode")]
    #[doc(alias = "cuStreamUpdateCaptureDependencies")]
    pub fn if_then(
        &self,
        cond: Condition<'scope, CapturedGraph>,
        then: impl for<'c> FnOnce(&GraphBuilder<'scope, BodyGraph<'c>>) -> Result<()>,
    ) -> Result<()> {
        let (b, bodies) = self.add_conditional(cond, ffi::CU_GRAPH_COND_TYPE_IF, 1)?;
        let _inside = IntoGraph::enter();
        then(&b.body(&bodies, 0)?)
    }

    /// `cuGraphAddNode`, `cuStreamUpdateCaptureDependencies`—Adds an IF node with an ELSE body
    /// to the capturing graph after the work captured so far, as
    /// [`GraphBuilder::if_else`] does; the work captured after it follows it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`] before driver 12.8; as [`while_loop`](Self::while_loop).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuGraphAddNode")]
    #[doc(alias = "cuStreamUpdateCaptureDependencies")]
    pub fn if_else(
        &self,
        cond: Condition<'scope, CapturedGraph>,
        bodies: impl for<'c, 'e> FnOnce(
            &GraphBuilder<'scope, BodyGraph<'c>>,
            &GraphBuilder<'scope, BodyGraph<'e>>,
        ) -> Result<()>,
    ) -> Result<()> {
        needs_two_bodies("if_else")?;
        let (b, made) = self.add_conditional(cond, ffi::CU_GRAPH_COND_TYPE_IF, 2)?;
        let _inside = IntoGraph::enter();
        bodies(&b.body(&made, 0)?, &b.body(&made, 1)?)
    }

    /// `cuGraphAddNode`, `cuStreamUpdateCaptureDependencies`—Adds a WHILE node to the
    /// capturing graph after the work captured so far (the capture's current dependencies),
    /// and makes it the one node the work captured after it follows; `body` builds its body,
    /// as [`GraphBuilder::while_loop`]'s does, over the payload the capture binds (`'scope`),
    /// or captures it ([`GraphBuilder::capture`]). The dependencies move before `body` runs:
    /// work `body` enqueues on this scope follows the whole loop, so a stream-ordered
    /// allocation ([`StreamScope::alloc`]) is refused while a body is built (its allocation
    /// node would come after the loop whose body uses it); allocate before the node.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`] if the stream is not capturing (and for a stream-ordered
    /// allocation while `body` runs);
    /// `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` if its capture was invalidated;
    /// [`ErrorKind::DriverTooOld`] before driver 12.3; [`ErrorKind::InvalidValue`] if `cond`
    /// was made on another graph; the driver's errors, or `body`'s.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuGraphAddNode")]
    #[doc(alias = "cuStreamUpdateCaptureDependencies")]
    pub fn while_loop(
        &self,
        cond: Condition<'scope, CapturedGraph>,
        body: impl for<'c> FnOnce(&GraphBuilder<'scope, BodyGraph<'c>>) -> Result<()>,
    ) -> Result<()> {
        let (b, bodies) = self.add_conditional(cond, ffi::CU_GRAPH_COND_TYPE_WHILE, 1)?;
        let _inside = IntoGraph::enter();
        body(&b.body(&bodies, 0)?)
    }

    /// `cuGraphAddNode`, `cuStreamUpdateCaptureDependencies`—Adds a SWITCH node of `cases`
    /// bodies to the capturing graph after the work captured so far, as
    /// [`GraphBuilder::switch`] does; the work captured after it follows it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`] before driver 12.8; [`ErrorKind::InvalidValue`] if `cases`
    /// is 0; as [`while_loop`](Self::while_loop).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuGraphAddNode")]
    #[doc(alias = "cuStreamUpdateCaptureDependencies")]
    pub fn switch(
        &self,
        cond: Condition<'scope, CapturedGraph>,
        cases: u32,
        mut case: impl for<'c> FnMut(u32, &GraphBuilder<'scope, BodyGraph<'c>>) -> Result<()>,
    ) -> Result<()> {
        needs_two_bodies("switch")?;
        if cases == 0 {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "a switch node needs at least one body".to_owned(),
            ));
        }
        let (b, bodies) = self.add_conditional(cond, ffi::CU_GRAPH_COND_TYPE_SWITCH, cases)?;
        let _inside = IntoGraph::enter();
        for n in 0..cases {
            case(n, &b.body(&bodies, n as usize)?)?;
        }
        Ok(())
    }

    /// Adds a conditional node of `type_` with `size` bodies to the capturing graph after the
    /// capture's current dependencies, then makes it the capture's only dependency; returns a
    /// builder of the capturing graph and the bodies the driver made.
    fn add_conditional(
        &self,
        cond: Condition<'scope, CapturedGraph>,
        type_: ffi::CUgraphConditionalNodeType,
        size: u32,
    ) -> Result<(GraphBuilder<'scope, CapturedGraph>, Vec<ffi::CUgraph>)> {
        crate::error::poison::check()?;
        let stream = self.as_raw();
        let (graph, deps) = capturing_into(stream)?;
        let b = GraphBuilder::<'scope, CapturedGraph>::new(graph, crate::context::raw::current()?);
        let deps: Vec<GraphNode<'scope, CapturedGraph>> =
            deps.into_iter().map(GraphNode::of).collect();
        // `conditional` checks that `cond` was made on this graph.
        let (node, bodies) = b.conditional(cond, type_, size, &deps)?;
        let mut raw = node.raw;
        // SAFETY: a live stream capturing into `graph`, of which `raw` is a node, just made
        // after the capture's dependencies; one node, read for this call.
        unsafe {
            ffi::cuStreamUpdateCaptureDependencies(
                stream,
                &raw mut raw,
                1,
                ffi::CU_STREAM_SET_CAPTURE_DEPENDENCIES,
            )
        }
        .result()?;
        Ok((b, bodies))
    }
}

#[cfg(test)]
mod tests {
    /// In a poisoned process (this test poisons its own, so it runs alone), the end that the
    /// drop of a capture into a graph that did not complete makes is refused before the driver
    /// (R20): with no context current and no `cuInit`, a call would answer
    /// `CUDA_ERROR_NOT_INITIALIZED`, which the drop ignores (no graph), not the poison. The
    /// capture's end on the origin and a fork's joins: `capture`'s test.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_poisoned_process_s_capture_into_a_graph_ends_with_no_driver_call() {
        crate::alone::rerun_alone!(
            a_poisoned_process_s_capture_into_a_graph_ends_with_no_driver_call
        );
        let sticky = crate::ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS;
        // Poisons this process, which runs this test alone.
        assert!(sticky.result().is_err());
        assert!(crate::error::poison::poisoned().is_some(), "not poisoned");
        let ending = core::mem::ManuallyDrop::new(super::EndInto(core::ptr::null_mut()));
        let ended = ending.end().map(|_| ()).map_err(|e| e.code());
        assert_eq!(
            ended,
            Err(Some(sticky)),
            "the capture's end reached the driver"
        );
    }
}
