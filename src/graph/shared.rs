//! Graphs that survive instantiation: executable graphs that share their graph's payload
//! instead of taking it ([`Graph::instantiate_shared`], [`SharedExec`]), clones of a graph over
//! the same payload (`cuGraphClone`, [`GraphClone`]), the kinds of a graph's nodes
//! (`cuGraphGetNodes`, [`NodeKind`]) and the instantiation flags ([`InstantiateFlags`]).
//!
//! ```text
//!   graph.instantiate_with(flags)        -> GraphExec<'g, P>   takes the payload over
//!   graph.instantiate_shared(flags)      -> SharedExec<'a>     borrows the graph ('a)
//!   graph.clone_graph()                  -> GraphClone<'a>     cuGraphClone, borrows it too
//!     clone.instantiate_shared(flags)    -> SharedExec<'a>     borrows the original graph
//!   graph.nodes()                        -> Vec<NodeKind>      cuGraphGetNodes, NodeGetType
//!   stream.scope(|s| s.launch_graph(&s.bind_shared(&exec)))    launched in a scope only
//!   graph.payload_mut()                  &mut graph: no shared exec lives
//! ```
//!
//! What the types promise (C28.4): a [`SharedExec<'a>`](SharedExec) borrows the graph whose
//! payload its nodes use for `'a`, so the graph (and the memory it owns) can be neither
//! dropped, moved, nor reached by the host through [`Graph::payload_mut`] while the
//! executable graph lives (compile errors). It is no [`Payload`]: it launches only in a scope
//! ([`StreamScope::bind_shared`]), which waits for its launches before the borrow ends, so no
//! launch of it can be pending once the graph is reachable again.

use super::owned::{Graph, GraphExec, ScopedGraph};
use crate::asynchronous::payload::Payload;
use crate::asynchronous::scope::StreamScope;
use crate::asynchronous::stream::Stream;
use crate::error::left_behind::{Object, destroy_in_drop};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use core::marker::PhantomData;

bitflags::bitflags! {
    /// How [`Graph::instantiate_with`] and [`Graph::instantiate_shared`] make an executable
    /// graph (`CUgraphInstantiate_flags`). Uploading at instantiation
    /// (`CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD`) is the call [`GraphExec::upload`] and
    /// [`SharedExec::upload`] make, on the stream they name.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    #[doc(alias = "CUgraphInstantiate_flags")]
    pub struct InstantiateFlags: u64 {
        /// `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`: memory the graph's allocation
        /// nodes made and no free node freed is freed before each launch (a graph captured
        /// with stream-ordered allocations it does not free can be launched again). Refused
        /// (before any driver call) for a graph that keeps allocations
        /// ([`GraphBuilder::alloc_kept`](crate::graph::GraphBuilder::alloc_kept)): its launches
        /// would free memory the program took and may still own.
        const AUTO_FREE_ON_LAUNCH = ffi::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH;
        /// `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH`: launchable from the device as well.
        /// The driver allows it only for a graph of kernel, memcpy and memset nodes of one
        /// device (else `CUDA_ERROR_INVALID_VALUE`), and never with
        /// [`AUTO_FREE_ON_LAUNCH`](Self::AUTO_FREE_ON_LAUNCH) (refused before any driver call).
        /// Refused before any driver call for a graph that keeps allocations.
        const DEVICE_LAUNCH = ffi::CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH;
        /// `CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY`: each kernel node runs at its own
        /// priority attribute, not the launch stream's.
        const USE_NODE_PRIORITY = ffi::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    }
}

impl InstantiateFlags {
    /// The flags for the driver, once the combination the driver documents as invalid is
    /// refused.
    fn checked(self) -> Result<u64> {
        if self.contains(Self::AUTO_FREE_ON_LAUNCH | Self::DEVICE_LAUNCH) {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "a graph launched from the device cannot free its allocations on launch \
                 (AUTO_FREE_ON_LAUNCH with DEVICE_LAUNCH)"
                    .to_owned(),
            ));
        }
        Ok(self.bits())
    }
}

/// The kind of a node of a graph (`CUgraphNodeType`), as [`Graph::nodes`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[doc(alias = "CUgraphNodeType")]
pub enum NodeKind {
    /// A kernel launch.
    Kernel,
    /// A copy.
    Memcpy,
    /// A memset.
    Memset,
    /// A host function.
    Host,
    /// A child graph.
    ChildGraph,
    /// A node that does nothing (a join point).
    Empty,
    /// A wait for an event.
    EventWait,
    /// A record of an event.
    EventRecord,
    /// A signal of external semaphores.
    ExternalSemaphoreSignal,
    /// A wait on external semaphores.
    ExternalSemaphoreWait,
    /// A memory allocation (a stream-ordered allocation captured).
    MemAlloc,
    /// A memory free.
    MemFree,
    /// A batch of memory operations.
    BatchMemOp,
    /// A conditional node (IF, WHILE, SWITCH).
    Conditional,
    /// A type this version of custack does not name.
    Other(u32),
}

impl NodeKind {
    /// The kind of the driver's `CUgraphNodeType` `raw`.
    #[must_use]
    pub fn from_raw(raw: ffi::CUgraphNodeType) -> Self {
        match raw {
            ffi::CU_GRAPH_NODE_TYPE_KERNEL => Self::Kernel,
            ffi::CU_GRAPH_NODE_TYPE_MEMCPY => Self::Memcpy,
            ffi::CU_GRAPH_NODE_TYPE_MEMSET => Self::Memset,
            ffi::CU_GRAPH_NODE_TYPE_HOST => Self::Host,
            ffi::CU_GRAPH_NODE_TYPE_GRAPH => Self::ChildGraph,
            ffi::CU_GRAPH_NODE_TYPE_EMPTY => Self::Empty,
            ffi::CU_GRAPH_NODE_TYPE_WAIT_EVENT => Self::EventWait,
            ffi::CU_GRAPH_NODE_TYPE_EVENT_RECORD => Self::EventRecord,
            ffi::CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL => Self::ExternalSemaphoreSignal,
            ffi::CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT => Self::ExternalSemaphoreWait,
            ffi::CU_GRAPH_NODE_TYPE_MEM_ALLOC => Self::MemAlloc,
            ffi::CU_GRAPH_NODE_TYPE_MEM_FREE => Self::MemFree,
            ffi::CU_GRAPH_NODE_TYPE_BATCH_MEM_OP => Self::BatchMemOp,
            ffi::CU_GRAPH_NODE_TYPE_CONDITIONAL => Self::Conditional,
            other => Self::Other(other),
        }
    }
}

/// `cuGraphGetNodes`, `cuGraphNodeGetType`: the kinds of the live graph `raw`'s nodes, in the
/// driver's order.
fn nodes_of(raw: ffi::CUgraph) -> Result<Vec<NodeKind>> {
    crate::error::poison::check()?;
    let mut n = 0usize;
    // SAFETY: a live graph (the caller's); a null node array asks for the count only.
    unsafe { ffi::cuGraphGetNodes(raw, core::ptr::null_mut(), &raw mut n) }.result()?;
    let mut nodes = vec![core::ptr::null_mut(); n];
    let mut got = n;
    // SAFETY: a live graph; `nodes` holds `got` writable node handles.
    unsafe { ffi::cuGraphGetNodes(raw, nodes.as_mut_ptr(), &raw mut got) }.result()?;
    // The driver writes at most the capacity and reports the count: the graph is not changed
    // between the calls (borrowed), so `got == n`; `min` keeps the slice in bounds regardless.
    nodes.truncate(got.min(n));
    nodes
        .into_iter()
        .map(|node| {
            let mut kind = 0;
            // SAFETY: a node of the live graph, just listed; a valid out-pointer.
            unsafe { ffi::cuGraphNodeGetType(node, &raw mut kind) }.result()?;
            Ok(NodeKind::from_raw(kind))
        })
        .collect()
}

/// `cuGraphInstantiateWithFlags` of the live graph `raw` into an executable graph sharing the
/// payload of the graph borrowed for `'a`.
fn instantiate_shared<'a>(raw: ffi::CUgraph, flags: InstantiateFlags) -> Result<SharedExec<'a>> {
    crate::error::poison::check()?;
    let flags = flags.checked()?;
    let mut exec = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; a live graph of the current context (it borrows the
    // guard); `flags` checked above.
    unsafe { ffi::cuGraphInstantiateWithFlags(&raw mut exec, raw, flags) }.result()?;
    Ok(SharedExec {
        raw: exec,
        _marker: PhantomData,
    })
}

impl<'g, P: Payload> Graph<'g, P> {
    /// `cuGraphInstantiateWithFlags`—[`instantiate`](Self::instantiate) with `flags`: an
    /// executable graph that takes the payload over.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no driver call) for `AUTO_FREE_ON_LAUNCH` with
    /// `DEVICE_LAUNCH`, and for either flag on a graph that keeps allocations
    /// ([`GraphBuilder::alloc_kept`](crate::graph::GraphBuilder::alloc_kept): a launch that frees
    /// on launch would free memory the program took; one from the device would pass by the
    /// record of what each launch made), then the graph is dropped with its payload; as
    /// [`instantiate`](Self::instantiate).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphInstantiateWithFlags")]
    pub fn instantiate_with(self, flags: InstantiateFlags) -> Result<GraphExec<'g, P>> {
        let flags = flags.checked()?;
        self.instantiate_flags(flags)
    }

    /// `cuGraphInstantiateWithFlags`—An executable graph that shares this graph's payload
    /// instead of taking it: the graph survives, and can be instantiated again (with other
    /// flags), cloned, inspected or, once every [`SharedExec`] made from it is dropped,
    /// reached through [`payload_mut`](Self::payload_mut).
    ///
    /// The executable graph borrows the graph for `'a`, so the memory its nodes use can be
    /// neither freed, moved, nor reached by the host while it lives (C28.4); it launches only in
    /// a scope ([`StreamScope::bind_shared`]), which waits for the launches before the borrow
    /// ends.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no driver call) for `AUTO_FREE_ON_LAUNCH` with
    /// `DEVICE_LAUNCH`, and for a graph that keeps allocations
    /// ([`GraphBuilder::alloc_kept`](crate::graph::GraphBuilder::alloc_kept): only
    /// [`instantiate`](Self::instantiate) hands them out); the driver's errors (e.g. a graph
    /// with allocation nodes instantiated a second time while the first executable graph
    /// lives). The graph is unchanged.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// use custack::graph::InstantiateFlags;
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut graph = guard.build_graph((guard.alloc::<u32>(256)?, vec![0u32; 256]), |b, (mut d, out)| {
    ///     let set = b.fill_u32(&mut d, 7, &[])?;
    ///     b.copy_to_host(out, &d, &[set])?;
    ///     Ok(())
    /// })?;
    /// let stream = guard.stream()?;
    /// {
    ///     let exec = graph.instantiate_shared(InstantiateFlags::empty())?;
    ///     exec.upload(&stream)?;
    ///     stream.scope(|s| s.launch_graph(&s.bind_shared(&exec)))??;
    /// } // the executable graph is gone: the graph's payload is the host's again
    /// assert!(graph.payload_mut().1.iter().all(|&v| v == 7));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphInstantiateWithFlags")]
    pub fn instantiate_shared(&self, flags: InstantiateFlags) -> Result<SharedExec<'_>> {
        self.no_kept("instantiated as a shared executable graph")?;
        instantiate_shared(self.as_raw(), flags)
    }

    /// Refuses a graph that keeps allocations
    /// ([`GraphBuilder::alloc_kept`](crate::graph::GraphBuilder::alloc_kept)): only a [`GraphExec`]
    /// hands them out after its launches.
    fn no_kept(&self, what: &str) -> Result<()> {
        if self.kept.is_empty() {
            Ok(())
        } else {
            Err(Error::custack(
                ErrorKind::InvalidValue,
                format!("a graph that keeps allocations is not {what}"),
            ))
        }
    }

    /// `cuGraphClone`—A copy of this graph (its nodes, parameters and edges) over the same
    /// payload, which it borrows: instantiated ([`GraphClone::instantiate_shared`]) or inspected
    /// while the graph itself is kept unchanged. Destroyed on drop.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no driver call) for a graph that keeps allocations
    /// ([`GraphBuilder::alloc_kept`](crate::graph::GraphBuilder::alloc_kept)); the driver's errors
    /// (the driver clones no graph with memory allocation or free nodes,
    /// [`GraphBuilder::alloc`](crate::graph::GraphBuilder::alloc), nor with conditional nodes).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphClone")]
    pub fn clone_graph(&self) -> Result<GraphClone<'_>> {
        crate::error::poison::check()?;
        self.no_kept("cloned")?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: a valid out-pointer; a live graph of the current context. The clone's nodes
        // name the memory this graph's payload owns, borrowed for the clone's life.
        unsafe { ffi::cuGraphClone(&raw mut raw, self.as_raw()) }.result()?;
        Ok(GraphClone {
            raw,
            _marker: PhantomData,
        })
    }

    /// `cuGraphGetNodes`, `cuGraphNodeGetType`—The kind of each of the graph's nodes, in the
    /// driver's order (a captured graph's copies and kernels, a built graph's nodes; a
    /// conditional node's body is not listed, nor a child graph's nodes).
    ///
    /// # Errors
    ///
    /// The driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphGetNodes")]
    #[doc(alias = "cuGraphNodeGetType")]
    pub fn nodes(&self) -> Result<Vec<NodeKind>> {
        nodes_of(self.as_raw())
    }

    /// The payload for the host to read, in its [`Read`](Payload::Read) form (views and slices
    /// of the memory the graph was built on), without giving the graph up: it stays
    /// instantiable, cloneable and inspectable once the borrow ends.
    ///
    /// `&mut self`, not `&self`, although nothing is written: a [`SharedExec`] borrows the graph
    /// shared and launches in a scope whose closure may hold another shared borrow of it, so a
    /// `&self` read could see memory that launch writes. The exclusive borrow proves no
    /// executable graph made by [`instantiate_shared`](Self::instantiate_shared) or from a
    /// [clone](Self::clone_graph) lives, so no launch that uses the payload can be pending; a
    /// graph itself is never launched. (An executable graph that took the payload over reads it
    /// with [`GraphExec::payload`], under `&self`: its launches need it by value or `&mut`.)
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// use custack::graph::InstantiateFlags;
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut graph = guard.build_graph((guard.alloc::<u32>(4)?, vec![0u32; 4]), |b, (mut d, out)| {
    ///     let set = b.fill_u32(&mut d, 7, &[])?;
    ///     b.copy_to_host(out, &d, &[set])?;
    ///     Ok(())
    /// })?;
    /// let stream = guard.stream()?;
    /// {
    ///     let exec = graph.instantiate_shared(InstantiateFlags::empty())?;
    ///     stream.scope(|s| s.launch_graph(&s.bind_shared(&exec)))??;
    /// }
    /// let (_dev, out) = graph.payload(); // read, the graph kept
    /// assert_eq!(out, &[7; 4]);
    /// let _again = graph.instantiate_shared(InstantiateFlags::empty())?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    pub fn payload(&mut self) -> P::Read<'_> {
        P::read(self.held_mut())
    }

    /// The payload for the host to read and write, in its [`Access`](Payload::Access) form:
    /// `&mut self` proves no [`SharedExec`] made from the graph lives (each borrows it), so no
    /// launch that uses the payload can be pending; a graph itself is never launched.
    pub fn payload_mut(&mut self) -> P::Access<'_> {
        P::access(self.held_mut())
    }
}

/// A copy of a [`Graph`] (`cuGraphClone`) whose nodes use the payload of the graph it borrows
/// for `'a`. Lent by [`Graph::clone_graph`]; destroyed on drop (`cuGraphDestroy`).
#[doc(alias = "cuGraphClone")]
#[derive(Debug)]
pub struct GraphClone<'a> {
    raw: ffi::CUgraph,
    _marker: PhantomData<(&'a (), *const ())>,
}

impl<'a> GraphClone<'a> {
    /// The raw `CUgraph`.
    pub fn as_raw(&self) -> ffi::CUgraph {
        self.raw
    }

    /// `cuGraphGetNodes`, `cuGraphNodeGetType`—As [`Graph::nodes`].
    ///
    /// # Errors
    ///
    /// The driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphGetNodes")]
    pub fn nodes(&self) -> Result<Vec<NodeKind>> {
        nodes_of(self.raw)
    }

    /// `cuGraphInstantiateWithFlags`—As [`Graph::instantiate_shared`]: the executable graph
    /// borrows the original graph (`'a`), whose payload its nodes use, not this clone (an
    /// executable graph does not depend on the graph it was made from).
    ///
    /// # Errors
    ///
    /// As [`Graph::instantiate_shared`].
    pub fn instantiate_shared(&self, flags: InstantiateFlags) -> Result<SharedExec<'a>> {
        instantiate_shared(self.raw, flags)
    }
}

impl Drop for GraphClone<'_> {
    fn drop(&mut self) {
        let raw = self.raw;
        destroy_in_drop(Object::Graph, raw as u64, || {
            // SAFETY: a live graph made by `cuGraphClone`, destroyed once; no executable graph
            // depends on it.
            unsafe { ffi::cuGraphDestroy(raw) }.result()
        });
    }
}

/// An executable graph sharing the payload of the graph it borrows for `'a`
/// ([`Graph::instantiate_shared`], [`GraphClone::instantiate_shared`]): the graph, and the
/// memory its nodes use, outlive it. Launched in a scope ([`StreamScope::bind_shared`]) only:
/// it is no [`Payload`], so no submission can hold a launch of it past the borrow. Destroyed
/// on drop (`cuGraphExecDestroy`).
///
/// Two executable graphs of one graph launched on two streams at once use the same memory
/// with no order between them: they race as two nodes with no path between them do (plain
/// data, no host access while either may run, so no undefined behaviour, but a bug). Launch
/// them on one stream, or order the streams with an event.
#[doc(alias = "CUgraphExec")]
#[derive(Debug)]
pub struct SharedExec<'a> {
    raw: ffi::CUgraphExec,
    _marker: PhantomData<(&'a (), *const ())>,
}

static_assertions::assert_not_impl_any!(SharedExec<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(GraphClone<'static>: Send, Sync);

impl SharedExec<'_> {
    /// The raw `CUgraphExec`.
    pub fn as_raw(&self) -> ffi::CUgraphExec {
        self.raw
    }

    /// `cuGraphUpload`—As [`GraphExec::upload`]: the upload touches none of the payload's
    /// memory, and later launches are ordered after it.
    ///
    /// # Errors
    ///
    /// The driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphUpload")]
    pub fn upload(&self, stream: &Stream<'_>) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live executable graph of the current context (it borrows the guard through
        // its graph) and a live stream of the caller's; the upload touches only the graph's
        // own device state.
        unsafe { ffi::cuGraphUpload(self.raw, stream.as_raw()) }.result()
    }
}

impl Drop for SharedExec<'_> {
    fn drop(&mut self) {
        let raw = self.raw;
        destroy_in_drop(Object::GraphExec, raw as u64, || {
            // SAFETY: a live executable graph, destroyed once. No launch is pending: it
            // launches only in scopes that borrow it, each waiting for its stream before it
            // ends.
            unsafe { ffi::cuGraphExecDestroy(raw) }.result()
        });
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// Binds an executable graph that shares its graph's payload to this scope, so the scope
    /// can launch it ([`launch_graph`](Self::launch_graph)). The executable graph is borrowed
    /// until the scope ends, which waits for its launches: the graph it borrows stays alive,
    /// unmoved and out of the host's reach until then.
    pub fn bind_shared(&self, exec: &'scope SharedExec<'_>) -> ScopedGraph<'scope> {
        // SAFETY: the executable graph is borrowed for 'scope, and through it the graph whose
        // payload its nodes use; the scope waits for every launch before 'scope ends.
        unsafe { ScopedGraph::from_raw(exec.raw) }
    }
}
