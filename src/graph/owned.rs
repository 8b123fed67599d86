//! The graph and its executable form, each owning its payload: work captured from a stream
//! (`capture.rs`) or built node by node (`builder.rs`) is a [`Graph`] that owns its
//! [`Payload`], instantiated into a [`GraphExec`] that keeps owning it for as long as it can be
//! launched, and launched like any other work: in a submission (the executable graph is itself
//! a payload) or in a scope.
//!
//! ```text
//!   stream.capture(payload, |s, bound| …)  -> Graph<'g, P>       cuStreamBeginCapture/EndCapture
//!   graph.instantiate()                    -> GraphExec<'g, P>   cuGraphInstantiate
//!   stream.submit(exec, |s, g| s.launch_graph(&g))               cuGraphLaunch, one event
//!     .wait()                              -> GraphExec<'g, P>   launch it again, or
//!   exec.payload_mut()                     host access between launches (no replacing)
//!   exec.update(new_graph)                 -> old payload        cuGraphExecUpdate
//!     Err(refused).into_graph()            -> the graph back     the update not performed
//! ```
//!
//! The memory a graph's nodes use is the payload, so it can be neither freed, moved, nor
//! reached by the host while a launch may run (C18): a pending launch owns the executable graph,
//! a scope borrows it exclusively. Graphs and executable graphs are lent by the guard like every
//! other handle: not used under another context, not sent to another thread.

use super::host_fn::ExecHostFns;
use super::kept::record::{Kept, KeptAlloc, refuse_capturing, refuse_instantiate_flags};
use super::params::{DataNodes, DisabledNodes, KernelNodes, NodeClass};
use crate::asynchronous::payload::{Payload, held_as_itself, sealed};
use crate::asynchronous::scope::StreamScope;
use crate::asynchronous::stream::Stream;
use crate::error::left_behind::{Object, left_behind};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::vocabulary::binding::Invariant;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;

/// Work captured from a stream ([`Stream::capture`]) or built node by node
/// ([`PushedGuard::build_graph`](crate::PushedGuard::build_graph)), owning the [`Payload`] its
/// nodes use; lent by the guard. Instantiate it to launch it. Destroyed on drop (`cuGraphDestroy`).
#[doc(alias = "CUgraph")]
pub struct Graph<'g, P: Payload> {
    raw: ffi::CUgraph,
    /// The kernel nodes a builder made, by function, in order (empty for a capture).
    kernels: KernelNodes,
    /// The memset and memcpy nodes a builder made, by kind, in order (empty for a capture).
    data: DataNodes,
    /// The allocations no node frees, in order (`GraphBuilder::alloc_kept`).
    pub(crate) kept: Vec<KeptAlloc>,
    payload: ManuallyDrop<P::Held>,
    _marker: PhantomData<(&'g (), *const ())>,
}

/// An executable graph ([`Graph::instantiate`]), owning the [`Payload`] its nodes use; lent by
/// the guard. Launch it with [`StreamScope::launch_graph`]: it is a payload itself, so a
/// submission owns it while a launch may run and hands it back from `wait`. Destroyed on drop
/// (`cuGraphExecDestroy`).
#[doc(alias = "CUgraphExec")]
pub struct GraphExec<'g, P: Payload> {
    raw: ffi::CUgraphExec,
    /// The graph it was made from, kept (destroyed after it) while `kernels` names its nodes:
    /// the driver identifies an executable graph's node by the graph's. Null when none is kept.
    pub(crate) graph: ffi::CUgraph,
    /// The kernel nodes of `graph` a builder made, by function, in order: what
    /// [`GraphExec::update_kernels`](crate::graph::GraphExec::update_kernels) lends.
    pub(crate) kernels: KernelNodes,
    /// The memset and memcpy nodes of `graph` a builder made, by kind, in order: what
    /// [`GraphExec::update_nodes`](crate::graph::GraphExec::update_nodes) lends.
    pub(crate) data: DataNodes,
    /// The allocations no node frees, with whether a launch made each and nobody took it;
    /// `None` if there are none.
    pub(crate) kept: Option<Box<Kept>>,
    /// The closures [`NodeUpdater::set_host`](crate::graph::NodeUpdater::set_host) gave its
    /// host nodes, freed after it is destroyed (the builder's stay the graph's user objects').
    /// One slot per host node of `data`, made with the executable graph; lent in place by an
    /// update, beside the payload it binds (the slots are `Cell`s: no borrow flag).
    pub(crate) host_fns: ExecHostFns,
    /// The nodes disabled and not enabled again: a whole-graph update is refused while any is.
    pub(crate) disabled: DisabledNodes,
    payload: ManuallyDrop<P::Held>,
    _marker: PhantomData<(&'g (), *const ())>,
}

impl<P: Payload> core::fmt::Debug for Graph<'_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Graph")
            .field("raw", &self.raw)
            .finish_non_exhaustive()
    }
}

impl<P: Payload> core::fmt::Debug for GraphExec<'_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GraphExec")
            .field("raw", &self.raw)
            .finish_non_exhaustive()
    }
}

static_assertions::assert_not_impl_any!(Graph<'static, Vec<u8>>: Send, Sync);
static_assertions::assert_not_impl_any!(GraphExec<'static, Vec<u8>>: Send, Sync);

/// An executable graph bound to a scope: what [`StreamScope::launch_graph`] takes. `Copy`: the
/// driver orders launches of one executable graph (each after the previous one).
#[derive(Debug, Clone, Copy)]
pub struct ScopedGraph<'scope> {
    raw: ffi::CUgraphExec,
    /// The executable graph's kept allocations (null if none), which every launch makes.
    kept: *const Kept,
    // Invariant in 'scope: a graph bound to one scope is not launched by another.
    _marker: PhantomData<(Invariant<'scope>, *const ())>,
}

/// What [`StreamScope::launch_graph`] launches: an executable graph bound to the scope, a
/// [`ScopedGraph`], and nothing else. Sealed; a trait so that passing the executable graph
/// itself fails with a note naming the fix rather than a plain type mismatch.
#[diagnostic::on_unimplemented(
    message = "`launch_graph` takes the executable graph bound to the scope, not `{Self}`",
    label = "not a `ScopedGraph`",
    note = "a launch must keep the executable graph, and the memory it owns, until the work is \
            complete: move it into a submission, `stream.submit(exec, |s, g| s.launch_graph(&g))`, \
            or bind it to the scope, `let g = s.bind_graph(&mut exec); s.launch_graph(&g)`"
)]
pub trait LaunchableGraph<'scope>: launch_sealed::Sealed {
    /// The bound executable graph.
    #[doc(hidden)]
    fn scoped(&self) -> &ScopedGraph<'scope>;
}

mod launch_sealed {
    pub trait Sealed {}
}

impl launch_sealed::Sealed for ScopedGraph<'_> {}

impl<'scope> LaunchableGraph<'scope> for ScopedGraph<'scope> {
    #[inline]
    fn scoped(&self) -> &ScopedGraph<'scope> {
        self
    }
}

pub(crate) fn destroy_graph(graph: ffi::CUgraph) {
    crate::error::left_behind::destroy_in_drop(Object::Graph, graph as u64, || {
        // SAFETY: a live graph, destroyed once; no executable graph depends on it.
        unsafe { ffi::cuGraphDestroy(graph) }.result()
    });
}

impl<'g, P: Payload> Graph<'g, P> {
    /// The raw `CUgraph`.
    pub fn as_raw(&self) -> ffi::CUgraph {
        self.raw
    }

    /// `cuGraphGetNodes`—The number of nodes in the graph.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphGetNodes")]
    pub fn node_count(&self) -> Result<usize> {
        crate::error::poison::check()?;
        let mut n = 0usize;
        // SAFETY: a live graph; a null node array asks for the count only.
        unsafe { ffi::cuGraphGetNodes(self.raw, core::ptr::null_mut(), &raw mut n) }.result()?;
        Ok(n)
    }

    /// `cuGraphInstantiate`—Makes an executable graph, which takes the payload over. A graph
    /// built with kernel, memset or memcpy nodes is kept by the executable graph (destroyed
    /// after it), whose nodes it names for [`GraphExec::update_kernels`] and
    /// [`GraphExec::update_nodes`]; any other graph is destroyed
    /// (`cuGraphDestroy`: an executable graph does not depend on it).
    ///
    /// A graph that keeps allocations
    /// ([`GraphBuilder::alloc_kept`](crate::graph::GraphBuilder::alloc_kept)) is instantiated
    /// without `AUTO_FREE_ON_LAUNCH`, here and on every other path (a flag asking for it is
    /// refused): its launches never free what the program took.
    ///
    /// # Errors
    ///
    /// The driver's error; then the graph is destroyed and its payload dropped.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphInstantiate")]
    #[doc(alias = "cuGraphInstantiateWithFlags")]
    pub fn instantiate(self) -> Result<GraphExec<'g, P>> {
        self.instantiate_flags(0)
    }

    /// [`instantiate`](Self::instantiate) with `flags` (`CUDA_GRAPH_INSTANTIATE_FLAG_*`, the
    /// caller's checked set). Every instantiation into a [`GraphExec`] goes through here, so a
    /// graph that keeps allocations is refused `AUTO_FREE_ON_LAUNCH` and `DEVICE_LAUNCH` here,
    /// before the driver ([`refuse_instantiate_flags`]); then the graph is dropped with its
    /// payload, as for any other refusal.
    pub(crate) fn instantiate_flags(mut self, flags: u64) -> Result<GraphExec<'g, P>> {
        crate::error::poison::check()?;
        if !self.kept.is_empty() {
            refuse_instantiate_flags(flags)?;
        }
        let kernels = core::mem::take(&mut self.kernels);
        let data = core::mem::take(&mut self.data);
        let kept = Kept::of(core::mem::take(&mut self.kept));
        // Kept for the nodes an executable graph lends (named by the graph's nodes).
        let keep = !kernels.is_empty() || !data.is_empty();
        let (graph, payload) = self.into_parts();
        let mut exec = core::ptr::null_mut();
        // SAFETY: valid out-pointer; a live graph of the current context; `flags` a set the
        // caller checked.
        let made =
            unsafe { ffi::cuGraphInstantiateWithFlags(&raw mut exec, graph, flags) }.result();
        if made.is_err() || !keep {
            destroy_graph(graph);
        }
        made?;
        Ok(GraphExec {
            raw: exec,
            graph: if keep { graph } else { core::ptr::null_mut() },
            kernels,
            kept,
            host_fns: ExecHostFns::with_slots(data.count(NodeClass::Host)),
            data,
            disabled: DisabledNodes::default(),
            payload: ManuallyDrop::new(payload),
            _marker: PhantomData,
        })
    }

    /// # Safety
    ///
    /// `raw` must be a live graph of the current context, never launched, whose nodes use only
    /// memory and code that `payload` owns; the result owns both.
    pub(crate) unsafe fn from_parts(raw: ffi::CUgraph, payload: P::Held) -> Self {
        Graph {
            raw,
            kernels: KernelNodes::default(),
            data: DataNodes::default(),
            kept: Vec::new(),
            payload: ManuallyDrop::new(payload),
            _marker: PhantomData,
        }
    }

    /// The held payload (never launched: a graph is not, only executable graphs made from it).
    pub(crate) fn held_mut(&mut self) -> &mut P::Held {
        &mut self.payload
    }

    /// Records the kernel nodes a builder made (by function, in order).
    pub(crate) fn set_kernels(&mut self, kernels: KernelNodes) {
        self.kernels = kernels;
    }

    /// Records the memset and memcpy nodes a builder made (by kind, in order).
    pub(crate) fn set_data_nodes(&mut self, data: DataNodes) {
        self.data = data;
    }

    fn into_parts(self) -> (ffi::CUgraph, P::Held) {
        let mut this = ManuallyDrop::new(self);
        // A built graph's node lists are not handed on: freed here, or `this` would leak them.
        drop(core::mem::take(&mut this.kernels));
        drop(core::mem::take(&mut this.data));
        drop(core::mem::take(&mut this.kept));
        // SAFETY: taken once; `this` never drops.
        let payload = unsafe { ManuallyDrop::take(&mut this.payload) };
        (this.raw, payload)
    }
}

impl<P: Payload> Drop for Graph<'_, P> {
    fn drop(&mut self) {
        destroy_graph(self.raw);
        // SAFETY: dropped once; a graph is never launched, so nothing uses the payload.
        unsafe { ManuallyDrop::drop(&mut self.payload) };
    }
}

impl<P: Payload> GraphExec<'_, P> {
    /// The raw `CUgraphExec`.
    pub fn as_raw(&self) -> ffi::CUgraphExec {
        self.raw
    }

    /// `cuGraphUpload`—Enqueues the graph's upload to the device on `stream`, without running
    /// it, so that its first launch allocates and uploads nothing; every later launch is
    /// ordered after the upload (the driver serializes the work of one executable graph).
    /// What `CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD` does at instantiation, as a call of its own.
    /// The upload touches none of the payload's memory, but it maps the memory of the graph's
    /// allocation nodes at their fixed addresses (the driver "uses memory cached by stream to
    /// back the allocations owned by" the executable graph). `&mut self`: no launch is
    /// pending, and no scope holds the executable graph borrowed, as a scope that frees one of
    /// its kept allocations in stream order does
    /// ([`StreamScope::bind_kept`](crate::StreamScope::bind_kept)) until that free has run, so
    /// an upload, on any stream, never maps memory at an address a pending copy or kernel of the
    /// program still reaches (`ui-tests/c28_kept_exec_uploaded_while_its_allocation_is_freed.rs`).
    /// A kept allocation taken and still alive is the program's: the driver leaves it alone (the
    /// route tests of `tests/gpu_graph_build.rs` and `tests/gpu_graph_kept_attack.rs`).
    ///
    /// # Errors
    ///
    /// The driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphUpload")]
    pub fn upload(&mut self, stream: &Stream<'_>) -> Result<()> {
        self.upload_raw(stream.as_raw())
    }

    /// [`upload`](Self::upload) on a raw stream, for the restricted profile, whose run phase
    /// makes nothing; its callers upload an executable graph just instantiated, which nothing
    /// borrows and whose allocations no launch has made.
    pub(crate) fn upload_raw(&self, stream: ffi::CUstream) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: `self.raw` is a live executable graph of the current context (it borrows
        // the guard) and `stream` a live stream of the same context (the caller's); the upload
        // touches only the graph's own device state, none of the payload's memory.
        unsafe { ffi::cuGraphUpload(self.raw, stream) }.result()
    }

    /// The payload for the host to read between launches, in its [`Read`](Payload::Read)
    /// form: views and slices of the memory the graph was built on. `&self` proves no launch
    /// that could write it is pending: a pending launch owns the executable graph, a scope
    /// borrows it exclusively.
    pub fn payload(&self) -> P::Read<'_> {
        P::read(&self.payload)
    }

    /// The payload for the host to read and write between launches (new inputs, say), in its
    /// [`Access`](Payload::Access) form: views and slices of the memory the graph was built on,
    /// which cannot replace it. `&mut self` proves no launch is pending: a pending launch owns
    /// the executable graph, a scope borrows it.
    pub fn payload_mut(&mut self) -> P::Access<'_> {
        P::access(&mut self.payload)
    }

    /// `cuGraphExecUpdate`—Updates the executable graph's node parameters from `graph`, which
    /// must have the same topology (typically the same capture code over other memory), and
    /// takes `graph`'s payload over. Returns the payload the executable graph owned until now.
    ///
    /// # Errors
    ///
    /// An [`UpdateError`], which holds `graph` back whenever the update was refused, so that
    /// the program can instantiate it instead (as `std`'s `TrySendError` holds the value back):
    ///
    /// - `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` (the driver did not perform the update; its
    ///   reason in [`UpdateError::result`] and the detail): `graph` is handed back untouched,
    ///   with its payload and, for a built graph, its nodes; the executable graph is unchanged
    ///   and launches as before;
    /// - [`ErrorKind::InvalidValue`] (no driver call) for an executable graph or a graph that
    ///   keeps allocations, and for an executable graph with a node disabled
    ///   ([`NodeUpdater::set_enabled`](crate::graph::NodeUpdater::set_enabled)) and not
    ///   enabled again, or disabled when it parked: the driver would keep that node disabled
    ///   through the update (the new graph's node at its place would not run), and no node is
    ///   lent after an update to enable it again; enable it first, or instantiate `graph`.
    ///   An earlier fault's poisoned state is refused too. `graph` is handed back in each;
    /// - any other driver error: the driver does not say what was updated, so `graph` is
    ///   left behind whole, its payload and what it owns (its host nodes' closures) leaked
    ///   rather than freed under nodes that may now use them ([`UpdateError::into_graph`] is
    ///   `None`), and the executable graph's nodes are lent no more, as after an update.
    ///
    /// [`UpdateError::into_error`] gives the [`Error`] alone (dropping the graph):
    /// `exec.update(graph).map_err(UpdateError::into_error)?`.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let mut exec = stream
    ///     .capture(guard.alloc::<u32>(256)?, |s, mut dev| s.fill_u32(&mut dev, 7))?
    ///     .instantiate()?;
    /// // Two nodes where the executable graph has one: refused, and the graph comes back.
    /// let other = stream.capture(guard.alloc::<u32>(256)?, |s, mut dev| {
    ///     s.fill_u32(&mut dev, 1)?;
    ///     s.fill_u32(&mut dev, 2)
    /// })?;
    /// exec = match exec.update(other) {
    ///     Ok(_old_payload) => exec,
    ///     Err(refused) => {
    ///         let (error, graph) = refused.into_parts();
    ///         graph.ok_or(error)?.instantiate()?
    ///     }
    /// };
    /// # let _ = exec;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecUpdate")]
    #[doc(alias = "cuGraphExecUpdate_v2")]
    // The refusal holds the graph by value, as `TrySendError` holds its value: a refusal is the
    // cold path, and the success path returns the payload unboxed either way.
    #[allow(clippy::result_large_err)]
    pub fn update<'h>(&mut self, graph: Graph<'h, P>) -> Result<P, UpdateError<'h, P>> {
        if let Err(error) = crate::error::poison::check() {
            return Err(UpdateError::refused(graph, error, None));
        }
        if self.kept.is_some() || !graph.kept.is_empty() {
            let error = Error::custack(
                ErrorKind::InvalidValue,
                "an executable graph that keeps allocations, or a graph that does, is not updated"
                    .to_owned(),
            );
            return Err(UpdateError::refused(graph, error, None));
        }
        if self.disabled.any_disabled() {
            return Err(UpdateError::refused(
                graph,
                disabled_refusal(&self.disabled),
                None,
            ));
        }
        let mut info = ffi::CUgraphExecUpdateResultInfo {
            result: ffi::CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_SUCCESS,
            errorNode: core::ptr::null_mut(),
            errorFromNode: core::ptr::null_mut(),
        };
        // SAFETY: a live executable graph and graph of the current context; valid out-pointer.
        // `&mut self`: no launch of it is pending. The graph is only read.
        let updated = unsafe { ffi::cuGraphExecUpdate_v2(self.raw, graph.raw, &raw mut info) };
        match updated {
            // The old payload is released only now: no node uses it any more, and no launch is
            // pending (`&mut self`).
            ffi::CUresult::CUDA_SUCCESS => {
                let (raw, payload) = graph.into_parts();
                destroy_graph(raw);
                // The kernel nodes may now run other functions, of the new payload.
                self.forget_kernels();
                Ok(P::release(core::mem::replace(&mut *self.payload, payload)))
            }
            // Not performed: the executable graph names none of `graph`'s payload, which goes
            // back with it; the executable graph keeps its nodes, lent as before.
            ffi::CUresult::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE => {
                let error = updated
                    .failure()
                    .with_detail(format!("the driver refused the update: {:?}", info.result));
                Err(UpdateError::refused(graph, error, Some(info.result)))
            }
            // Whether the executable graph now runs any of `graph`'s nodes is unknown (the
            // driver does not say that nothing was applied): the whole graph is left behind,
            // not destroyed, since destroying it would release what its user objects own (the
            // host nodes' closures, `host.rs`) while a launch might still call them; its payload
            // too. And its nodes are lent no more, as after an update that was performed.
            code => {
                let (raw, payload) = graph.into_parts();
                left_behind(Object::Graph, raw as u64);
                // SAFETY: the payload is leaked just below.
                unsafe { P::left_behind(&payload) };
                core::mem::forget(payload);
                self.forget_kernels();
                Err(UpdateError {
                    error: code.failure(),
                    graph: None,
                    result: None,
                })
            }
        }
    }
}

/// The refusal of a whole-graph update while a node is disabled: the driver keeps the node
/// disabled through the update, and no node is lent after it to enable it again.
fn disabled_refusal(disabled: &DisabledNodes) -> Error {
    let detail = if disabled.disabled_unlent() {
        "a node of this executable graph was disabled before it parked, and a whole-graph update \
         would keep it disabled (the driver does) with no node lent to enable it again: \
         instantiate the new graph instead; nothing was updated"
            .to_owned()
    } else {
        format!(
            "{} node(s) of this executable graph are disabled, and a whole-graph update would \
             keep them disabled (the driver does) with no node lent to enable them again: enable \
             them first (`update_nodes`, `set_enabled(node, true)`) or instantiate the new \
             graph; nothing was updated",
            disabled.lent_disabled()
        )
    };
    Error::custack(ErrorKind::InvalidValue, detail)
}

/// A whole-graph update refused or failed ([`GraphExec::update`]): the error, and the graph
/// handed back whenever the update was refused (by the driver, `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE`,
/// or before it), so that the program can instantiate it instead, as `std`'s `TrySendError`
/// hands the value back. The executable graph is unchanged then.
///
/// Dropping it destroys the graph and drops its payload (nothing uses them: the update was
/// not performed); leaking it (`mem::forget`) leaks both, and the executable graph is
/// unaffected. [`into_error`](Self::into_error) gives the [`Error`] alone, dropping the graph.
#[doc(alias = "CUgraphExecUpdateResultInfo")]
#[doc(alias = "CUgraphExecUpdateResult")]
pub struct UpdateError<'g, P: Payload> {
    error: Error,
    graph: Option<Graph<'g, P>>,
    result: Option<ffi::CUgraphExecUpdateResult>,
}

impl<'g, P: Payload> UpdateError<'g, P> {
    fn refused(
        graph: Graph<'g, P>,
        error: Error,
        result: Option<ffi::CUgraphExecUpdateResult>,
    ) -> Self {
        UpdateError {
            error,
            graph: Some(graph),
            result,
        }
    }

    /// The error: `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` for the driver's refusal, with its
    /// reason in the detail.
    pub fn error(&self) -> &Error {
        &self.error
    }

    /// The driver's reason for refusing the update (`CUgraphExecUpdateResultInfo::result`,
    /// `CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED` for another topology, say); `None` where
    /// the driver refused nothing (a refusal before it, or another error).
    pub fn result(&self) -> Option<ffi::CUgraphExecUpdateResult> {
        self.result
    }

    /// The graph refused, with its payload; `None` after a driver error other than
    /// `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` (its payload leaked, as the update documents).
    pub fn graph(&self) -> Option<&Graph<'g, P>> {
        self.graph.as_ref()
    }

    /// The graph refused, to instantiate it or update another executable graph with it.
    pub fn into_graph(self) -> Option<Graph<'g, P>> {
        self.graph
    }

    /// The error and the graph refused.
    pub fn into_parts(self) -> (Error, Option<Graph<'g, P>>) {
        (self.error, self.graph)
    }

    /// The error alone, the graph dropped with its payload (nothing uses them: the update was
    /// not performed): `exec.update(graph).map_err(UpdateError::into_error)?` in a function
    /// that returns custack's [`Result`]. (No `From` conversion: a second `From` impl for
    /// [`Error`] would leave the error type of `?` in a closure uninferred.)
    pub fn into_error(self) -> Error {
        self.error
    }
}

impl<P: Payload> core::fmt::Debug for UpdateError<'_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("UpdateError")
            .field("error", &self.error)
            .field("graph", &self.graph)
            .field("result", &self.result)
            .finish()
    }
}

impl<P: Payload> core::fmt::Display for UpdateError<'_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.error, f)
    }
}

impl<P: Payload> std::error::Error for UpdateError<'_, P> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

static_assertions::assert_not_impl_any!(UpdateError<'static, Vec<u8>>: Send, Sync);

impl<P: Payload> GraphExec<'_, P> {
    /// The executable graph's node lists and host closures, with its held payload beside them
    /// (fields apart, so both are borrowed at once): what an update lends (the caller upholds
    /// [`Payload::bind`]'s promise for the payload).
    #[inline]
    pub(crate) fn lend_nodes(
        &mut self,
    ) -> (
        (&KernelNodes, &DataNodes, &ExecHostFns, &DisabledNodes),
        &mut P::Held,
    ) {
        (
            (&self.kernels, &self.data, &self.host_fns, &self.disabled),
            &mut self.payload,
        )
    }

    /// Destroys the graph kept for its kernel nodes, which are no longer lent.
    fn forget_kernels(&mut self) {
        // Freed, not cleared: `into_parts` forgets `self` after this.
        self.kernels = KernelNodes::default();
        self.data = DataNodes::default();
        let graph = core::mem::replace(&mut self.graph, core::ptr::null_mut());
        if !graph.is_null() {
            destroy_graph(graph);
        }
    }

    /// The raw executable graph and its held payload; the caller destroys the one before it
    /// releases the other. A kept graph is destroyed now (its kernel nodes are no longer lent).
    ///
    /// The `bool`: whether a node is disabled, which no node lent will enable again. The
    /// closures its host nodes' updates gave it go with it: the executable graph lives on
    /// (parked) and its launches may call them; the parked form frees them once it destroyed
    /// the executable graph (they were leaked before).
    pub(crate) fn into_parts(
        mut self,
    ) -> (
        ffi::CUgraphExec,
        P::Held,
        Option<Box<Kept>>,
        bool,
        ExecHostFns,
    ) {
        let host_fns = core::mem::take(&mut self.host_fns);
        let disabled = self.disabled.any_disabled();
        self.forget_kernels();
        let kept = self.kept.take();
        let mut this = ManuallyDrop::new(self);
        // SAFETY: taken once; `this` never drops. `disabled` is plain data, dropped with
        // nothing to free but its list.
        let payload = unsafe { ManuallyDrop::take(&mut this.payload) };
        let _ = core::mem::take(&mut this.disabled);
        (this.raw, payload, kept, disabled, host_fns)
    }

    /// The executable graph's kept allocations, for its launches (null if none).
    fn kept_ptr(&self) -> *const Kept {
        self.kept
            .as_deref()
            .map_or(core::ptr::null(), core::ptr::from_ref)
    }

    /// # Safety
    ///
    /// `raw` must be a live executable graph of the current context, with no launch pending,
    /// whose nodes use only memory and code that `payload` owns, and whose kept allocations
    /// `kept` records, and whose host nodes' closures given by updates `host_fns` owns; the
    /// result owns all four.
    pub(crate) unsafe fn from_parts(
        raw: ffi::CUgraphExec,
        payload: P::Held,
        kept: Option<Box<Kept>>,
        disabled: bool,
        host_fns: ExecHostFns,
    ) -> Self {
        GraphExec {
            raw,
            graph: core::ptr::null_mut(),
            kernels: KernelNodes::default(),
            data: DataNodes::default(),
            kept,
            host_fns,
            disabled: DisabledNodes::unlent(disabled),
            payload: ManuallyDrop::new(payload),
            _marker: PhantomData,
        }
    }
}

impl<P: Payload> Drop for GraphExec<'_, P> {
    fn drop(&mut self) {
        if !crate::error::left_behind::release_in_drop(Object::GraphExec, self.raw as u64) {
            if let Some(kept) = &self.kept {
                kept.left_behind();
            }
            // Left behind, its launches may still call them.
            self.host_fns.leak();
            return;
        }
        // SAFETY: a live executable graph, destroyed once. No launch is pending: a pending
        // launch owns it (a submission waits before dropping it), a scope waits for its stream.
        match unsafe { ffi::cuGraphExecDestroy(self.raw) }.result() {
            // SAFETY: the executable graph is destroyed and no launch of it is pending (as
            // above): nothing can call the closures its updates gave it.
            Ok(()) => unsafe { self.host_fns.free_all() },
            Err(e) => {
                record_drop_error(e);
                // Whether it is gone is unknown: its closures stay.
                self.host_fns.leak();
            }
        }
        // Destroying the executable graph frees none of its allocations: what a launch kept
        // and nobody took is freed here (no launch pending, as above).
        if let Some(kept) = &self.kept {
            kept.free_untaken_in_drop();
        }
        self.forget_kernels();
        // SAFETY: dropped once, after the last launch that used it.
        unsafe { ManuallyDrop::drop(&mut self.payload) };
    }
}

/// A [`Graph`] held in the payload of a graph being built
/// ([`PushedGuard::build_graph`](crate::PushedGuard::build_graph)), bound to the builder: what
/// [`GraphBuilder::child`](crate::graph::GraphBuilder::child) takes to add a copy of it as a node.
/// The graph, and the memory its payload owns, stay owned by the parent's payload for as long
/// as the parent or an executable graph made from it lives.
#[derive(Debug, Clone, Copy)]
pub struct ChildGraph<'scope> {
    raw: ffi::CUgraph,
    /// The graph keeps allocations (`GraphBuilder::alloc_kept`): no child graph, since the
    /// parent's executable graph would have no record of them (`GraphBuilder::child` refuses).
    keeps: bool,
    // Invariant in 'scope: bound to one builder, not added to another.
    _marker: PhantomData<(Invariant<'scope>, *const ())>,
}

impl ScopedGraph<'_> {
    /// # Safety
    ///
    /// `raw` must be a live executable graph of the current context that stays alive, with
    /// the memory its nodes use, until every launch of it through the result is complete, and
    /// keeps no allocation (`GraphBuilder::alloc_kept`).
    pub(crate) unsafe fn from_raw(raw: ffi::CUgraphExec) -> Self {
        ScopedGraph {
            raw,
            kept: core::ptr::null(),
            _marker: PhantomData,
        }
    }
}

impl ChildGraph<'_> {
    /// The raw `CUgraph`.
    pub fn as_raw(&self) -> ffi::CUgraph {
        self.raw
    }

    /// Whether the graph keeps allocations (`GraphBuilder::alloc_kept`).
    pub(crate) fn keeps_allocations(&self) -> bool {
        self.keeps
    }
}

// A graph is a payload so that a graph being built can own the graphs its child-graph nodes
// copy (with their payloads): their memory must live as long as the parent's nodes may use it.
impl<P: Payload> sealed::Sealed for Graph<'_, P> {}
impl<'g, P: Payload> Payload for Graph<'g, P> {
    type Bound<'scope> = ChildGraph<'scope>;
    type Access<'a>
        = P::Access<'a>
    where
        Self: 'a;
    type Read<'a>
        = P::Read<'a>
    where
        Self: 'a;
    // Held in a form of its own, not as itself: `Payload::read` is callable from safe code (the
    // trait is sealed, not its methods), and on a `&Graph`, which a scope's closure holds while
    // a `SharedExec` of the graph launches, it would read what the launch writes. A `HeldGraph`
    // exists only inside a payload that took the graph by value (`hold`), so no `SharedExec`
    // borrows it.
    type Held = HeldGraph<'g, P>;
    #[inline]
    fn hold(self) -> HeldGraph<'g, P> {
        HeldGraph(self)
    }
    #[inline]
    fn release(held: HeldGraph<'g, P>) -> Self {
        held.0
    }
    #[inline]
    unsafe fn bind<'scope>(held: &mut HeldGraph<'g, P>) -> ChildGraph<'scope> {
        ChildGraph {
            raw: held.0.raw,
            keeps: !held.0.kept.is_empty(),
            _marker: PhantomData,
        }
    }
    #[inline]
    fn access<'a>(held: &'a mut HeldGraph<'g, P>) -> P::Access<'a>
    where
        Self: 'a,
    {
        P::access(&mut held.0.payload)
    }
    #[inline]
    fn read<'a>(held: &'a HeldGraph<'g, P>) -> P::Read<'a>
    where
        Self: 'a,
    {
        P::read(&held.0.payload)
    }
    unsafe fn left_behind(held: &HeldGraph<'g, P>) {
        left_behind(Object::Graph, held.0.raw as u64);
        // SAFETY: the caller leaks `held`, and so the payload inside it.
        unsafe { P::left_behind(&held.0.payload) };
    }
}

/// A [`Graph`] held as part of a payload (a child graph's, [`GraphBuilder::child`](crate::graph::GraphBuilder::child)):
/// the payload took it by value, so no [`SharedExec`](crate::graph::SharedExec) borrows it and
/// no launch but its parent's (which owns or borrows the whole payload) uses its memory.
/// Unnameable outside the crate; reached only through the payload that holds it.
#[doc(hidden)]
#[derive(Debug)]
#[allow(unreachable_pub)] // the held form of a public payload type, unnameable on purpose
pub struct HeldGraph<'g, P: Payload>(Graph<'g, P>);

impl<P: Payload> sealed::Sealed for GraphExec<'_, P> {}
impl<P: Payload> Payload for GraphExec<'_, P> {
    type Bound<'scope> = ScopedGraph<'scope>;
    type Access<'a>
        = P::Access<'a>
    where
        Self: 'a;
    type Read<'a>
        = P::Read<'a>
    where
        Self: 'a;
    // An executable graph keeps its own payload in its held form already.
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> ScopedGraph<'scope> {
        ScopedGraph {
            raw: held.raw,
            kept: held.kept_ptr(),
            _marker: PhantomData,
        }
    }
    #[inline]
    fn access<'a>(held: &'a mut Self) -> P::Access<'a>
    where
        Self: 'a,
    {
        P::access(&mut held.payload)
    }
    #[inline]
    fn read<'a>(held: &'a Self) -> P::Read<'a>
    where
        Self: 'a,
    {
        P::read(&held.payload)
    }
    unsafe fn left_behind(held: &Self) {
        left_behind(Object::GraphExec, held.raw as u64);
        if let Some(kept) = &held.kept {
            kept.left_behind();
        }
        // SAFETY: the caller leaks `held`, and so the payload inside it.
        unsafe { P::left_behind(&held.payload) };
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// Binds an executable graph to this scope exclusively, until the scope ends, so the scope
    /// can launch it.
    pub fn bind_graph<P: Payload>(
        &self,
        graph: &'scope mut GraphExec<'_, P>,
    ) -> ScopedGraph<'scope> {
        ScopedGraph {
            raw: graph.raw,
            kept: graph.kept_ptr(),
            _marker: PhantomData,
        }
    }

    /// Binds an executable graph to this scope exclusively, with its payload: the scope can
    /// launch the graph and also copy into, launch kernels on, and copy out of the memory the
    /// graph owns, all in this scope's stream order (a frame uploaded into the graph's input,
    /// the graph launched, its output read back: one scope, one wait).
    ///
    /// Sound for the reason a submission's payload is: the graph, and so its payload, is
    /// borrowed exclusively until the scope ends, which waits for every use of both.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let graph = stream.capture(guard.alloc_zeroed::<u32>(256)?, |s, mut dev| {
    ///     s.fill_u32(&mut dev, 7)
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// let mut out = vec![0u32; 256];
    /// stream.scope(|s| {
    ///     let (g, dev) = s.bind_graph_and_payload(&mut exec);
    ///     s.launch_graph(&g)?;
    ///     s.copy_to_host(&mut out, &dev)
    /// })??;
    /// assert!(out.iter().all(|&x| x == 7));
    /// # Ok::<(), custack::Error>(())
    /// ```
    pub fn bind_graph_and_payload<P: Payload>(
        &self,
        graph: &'scope mut GraphExec<'_, P>,
    ) -> (ScopedGraph<'scope>, P::Bound<'scope>) {
        // SAFETY: the executable graph, and so the payload it holds, is borrowed exclusively
        // for 'scope: it is not moved, dropped, released or reached by the host until the
        // scope's work is complete (the scope waits for its stream before 'scope ends, also on
        // unwind); the bound handles are invariant in 'scope and cannot leave it.
        let bound = unsafe { P::bind(&mut graph.payload) };
        (
            ScopedGraph {
                raw: graph.raw,
                kept: graph.kept_ptr(),
                _marker: PhantomData,
            },
            bound,
        )
    }

    /// `cuGraphLaunch`—Enqueues a launch of an executable graph: after the work enqueued before
    /// it on this stream and after the graph's previous launch.
    ///
    /// No `unsafe`: the graph's kernels were launched (and vouched for) in `unsafe` blocks when
    /// it was captured, on memory the executable graph still owns.
    ///
    /// # Errors
    ///
    /// For a graph that keeps allocations
    /// ([`GraphBuilder::alloc_kept`](crate::graph::GraphBuilder::alloc_kept)):
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (no driver call) while an
    /// allocation of its previous launch is not taken ([`GraphExec::take_kept`]), the driver's
    /// `CUDA_ERROR_INVALID_VALUE` while one taken is not freed yet (its buffer alive, parked, moved
    /// or leaked: such a graph never frees on launch), and
    /// [`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported) inside a capture's closure or
    /// on a stream that captures (`cuStreamIsCapturing`, whose error it returns too: a stream
    /// joined to a capture, whatever thread began it), where the launch would make nothing. The
    /// driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphLaunch")]
    #[inline]
    #[track_caller]
    pub fn launch_graph(&self, graph: &impl LaunchableGraph<'scope>) -> Result<()> {
        let graph = graph.scoped();
        crate::error::poison::check()?;
        // SAFETY: null, or the kept allocations' record, boxed in the executable graph, which
        // outlives every launch through `graph` (bound to this scope).
        let kept = unsafe { graph.kept.as_ref() };
        if let Some(kept) = kept {
            kept.before_launch()?;
            // The thread's capture mark misses a stream joined to another thread's capture
            // (joined by an event recorded in it, parked, attached here): launched there, the
            // launch would be a node of that capture and make nothing, while `launched` below
            // would mark every allocation made, and a take would hand out memory no launch
            // allocated (which a later launch would make under that buffer). The stream says.
            refuse_capturing(
                self.as_raw(),
                "a graph that keeps allocations launched on a stream that captures (joined to \
                 a capture, perhaps another thread's): the launch would be a node of the \
                 captured graph and make nothing",
            )?;
        }
        // SAFETY: a live executable graph of the current context, which stays alive and owns
        // the memory its nodes use until this launch is complete (bound to this scope).
        let launched = unsafe { ffi::cuGraphLaunch(graph.raw, self.as_raw()) }
            .result_by(crate::error::Observer::Launch);
        if let (Ok(()), Some(kept)) = (&launched, kept) {
            kept.launched();
        }
        launched
    }
}
