//! Graphs built node by node under the restricted profile: [`InitPhase::build_graph`] lends
//! the full API's [`GraphBuilder`] (C28.1, C28.10) through a [`RestrictedGraphBuilder`], which adds only
//! the subset's nodes — declared kernels, device memsets and copies, records of and waits for
//! events the init phase made, and conditional nodes (IF, IF/ELSE, WHILE, SWITCH) whose bodies
//! hold the same — and counts every node it makes, bodies' included, against the budget's
//! graph nodes. The graph is instantiated and uploaded in the init phase, and is the
//! [`RestrictedGraph`] a capture makes: launched in the run phase's scopes, whose waits the
//! context's [`WaitBound`](crate::safety::WaitBound) bounds, and nowhere else. Between launches
//! the run phase updates the parameters of its kernel nodes within their contracts
//! ([`RestrictedGraph::update_kernels`], [`RestrictedKernelUpdater`]).
//!
//! ```text
//!   init.build_graph(&stream, payload, |b, bound| …)  -> RestrictedGraph   (init phase only)
//!     b.fill_u32(&mut x, 0, &[])                       cuGraphAddMemsetNode
//!     b.kernel(&k, config, args, &[n])                 cuGraphAddKernelNode (declared kernel)
//!     b.while_loop(cond, &[n], |body| …)               cuGraphAddNode (conditional)
//!   run phase: stream.scope(|s| { let (g, bound) = s.bind_graph(&mut graph); s.launch_graph(&g) })
//!   graph.update_kernels(|u, bound| u.set_kernel(u.kernel_node(&k, 0)?, config, args))
//! ```
//!
//! There is no host node (no callback, C26), no host memory copy node (page-locked copies are
//! the scope's, before and after the launch: a graph's payload may hold pageable memory, which
//! the builder cannot tell from page-locked), no child graph, and no allocation node.

use crate::asynchronous::event::{Event, ScopedEvent};
use crate::asynchronous::payload::{Payload, held_as_itself, sealed as payload_sealed};
use crate::error::Result;
use crate::graph::{BodyGraph, Condition, GraphBuilder, GraphNode, KernelNode, NodeUpdater};
use crate::kernel::contract::{ContractArgs, PlainLaunch};
use crate::kernel::launch::LaunchConfig;
use crate::safety::values::{RestrictedEvent, RestrictedGraph, RestrictedKernel};
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::plain::DeviceCopy;
use core::cell::Cell;
use std::rc::Rc;

use crate::graph::RootGraph;

/// A graph being built in an init phase ([`InitPhase::build_graph`]), lent to its closure: the
/// full API's [`GraphBuilder<'b, G>`](GraphBuilder), lending only the subset's nodes, each
/// counted against the budget's [`graph_nodes`](crate::safety::Budget::graph_nodes). Its
/// nodes are the builder's [`GraphNode<'b, G>`](GraphNode), branded as C28.1 states: they do not
/// leave the closure, nor a conditional body, nor name a node of another graph.
///
/// `'a` is the borrow of the builder; `'b` and `G` are the builder's brand.
///
/// [`InitPhase::build_graph`]: crate::safety::InitPhase::build_graph
#[derive(Debug)]
pub struct RestrictedGraphBuilder<'a, 'b, G = RootGraph> {
    builder: &'a GraphBuilder<'b, G>,
    /// The nodes made so far in the whole graph, bodies included.
    nodes: &'a Cell<usize>,
}

static_assertions::assert_not_impl_any!(RestrictedGraphBuilder<'static, 'static>: Send, Sync);

impl<'b, G> RestrictedGraphBuilder<'_, 'b, G> {
    /// Counts a node made.
    fn counted(&self, node: Result<GraphNode<'b, G>>) -> Result<GraphNode<'b, G>> {
        let node = node?;
        self.nodes.set(self.nodes.get().saturating_add(1));
        Ok(node)
    }

    /// `cuGraphAddKernelNode`—Adds a launch of a kernel the init phase looked up, checked as
    /// [`RestrictedScope::run`](crate::safety::RestrictedScope::run) checks a launch
    /// ([`GraphBuilder::kernel`]).
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::kernel`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddKernelNode")]
    pub fn kernel<C: PlainLaunch, A: ContractArgs<'b, C>>(
        &self,
        kernel: &RestrictedKernel<'b, C>,
        config: LaunchConfig,
        args: A,
        deps: &[GraphNode<'b, G>],
    ) -> Result<GraphNode<'b, G>> {
        self.counted(self.builder.kernel(kernel.declared(), config, args, deps))
    }

    /// `cuGraphAddMemsetNode`—Adds setting every byte of `dst` to `value`
    /// ([`GraphBuilder::fill_bytes`]).
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::fill_bytes`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemsetNode")]
    pub fn fill_bytes<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'b, T>,
        value: u8,
        deps: &[GraphNode<'b, G>],
    ) -> Result<GraphNode<'b, G>> {
        self.counted(self.builder.fill_bytes(dst, value, deps))
    }

    /// `cuGraphAddMemsetNode`—Adds setting every 32-bit word of `dst` to `value`
    /// ([`GraphBuilder::fill_u32`]).
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::fill_u32`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemsetNode")]
    pub fn fill_u32<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'b, T>,
        value: u32,
        deps: &[GraphNode<'b, G>],
    ) -> Result<GraphNode<'b, G>> {
        self.counted(self.builder.fill_u32(dst, value, deps))
    }

    /// `cuGraphAddMemcpyNode`—Adds a copy between two buffers of the payload's device memory
    /// ([`GraphBuilder::copy_device`]).
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::copy_device`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemcpyNode")]
    pub fn copy_device<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'b, T>,
        src: impl ScopedRead<'b, T>,
        deps: &[GraphNode<'b, G>],
    ) -> Result<GraphNode<'b, G>> {
        self.counted(self.builder.copy_device(dst, src, deps))
    }

    /// `cuGraphConditionalHandleCreate`—A condition for one conditional node of this graph
    /// ([`GraphBuilder::condition`]); not a node, so not counted.
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::condition`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphConditionalHandleCreate")]
    pub fn condition(&self, default: u32, assign_default: bool) -> Result<Condition<'b, G>> {
        self.builder.condition(default, assign_default)
    }

    /// `cuGraphAddNode`—An IF node ([`GraphBuilder::if_then`]), its body built through a
    /// restricted builder of its own brand.
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::if_then`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddNode")]
    pub fn if_then(
        &self,
        cond: Condition<'b, G>,
        deps: &[GraphNode<'b, G>],
        then: impl for<'c> FnOnce(&RestrictedGraphBuilder<'_, 'b, BodyGraph<'c>>) -> Result<()>,
    ) -> Result<GraphNode<'b, G>> {
        let nodes = self.nodes;
        self.counted(self.builder.if_then(cond, deps, |body| {
            then(&RestrictedGraphBuilder {
                builder: body,
                nodes,
            })
        }))
    }

    /// `cuGraphAddNode`—An IF/ELSE node ([`GraphBuilder::if_else`]), each body built through a
    /// restricted builder of its own brand.
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::if_else`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddNode")]
    pub fn if_else(
        &self,
        cond: Condition<'b, G>,
        deps: &[GraphNode<'b, G>],
        bodies: impl for<'c, 'e> FnOnce(
            &RestrictedGraphBuilder<'_, 'b, BodyGraph<'c>>,
            &RestrictedGraphBuilder<'_, 'b, BodyGraph<'e>>,
        ) -> Result<()>,
    ) -> Result<GraphNode<'b, G>> {
        let nodes = self.nodes;
        self.counted(self.builder.if_else(cond, deps, |then, otherwise| {
            bodies(
                &RestrictedGraphBuilder {
                    builder: then,
                    nodes,
                },
                &RestrictedGraphBuilder {
                    builder: otherwise,
                    nodes,
                },
            )
        }))
    }

    /// `cuGraphAddNode`—A WHILE node ([`GraphBuilder::while_loop`]), its body built through a
    /// restricted builder of its own brand.
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::while_loop`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddNode")]
    pub fn while_loop(
        &self,
        cond: Condition<'b, G>,
        deps: &[GraphNode<'b, G>],
        body: impl for<'c> FnOnce(&RestrictedGraphBuilder<'_, 'b, BodyGraph<'c>>) -> Result<()>,
    ) -> Result<GraphNode<'b, G>> {
        let nodes = self.nodes;
        self.counted(self.builder.while_loop(cond, deps, |inner| {
            body(&RestrictedGraphBuilder {
                builder: inner,
                nodes,
            })
        }))
    }

    /// `cuGraphAddNode`—A SWITCH node of `cases` bodies ([`GraphBuilder::switch`]), each built
    /// through a restricted builder of its own brand.
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::switch`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddNode")]
    pub fn switch(
        &self,
        cond: Condition<'b, G>,
        deps: &[GraphNode<'b, G>],
        cases: u32,
        mut case: impl for<'c> FnMut(u32, &RestrictedGraphBuilder<'_, 'b, BodyGraph<'c>>) -> Result<()>,
    ) -> Result<GraphNode<'b, G>> {
        let nodes = self.nodes;
        self.counted(self.builder.switch(cond, deps, cases, |n, body| {
            case(
                n,
                &RestrictedGraphBuilder {
                    builder: body,
                    nodes,
                },
            )
        }))
    }
}

/// Event nodes: only in the root graph, as [`GraphBuilder`]'s.
impl<'b> RestrictedGraphBuilder<'_, 'b> {
    /// `cuGraphAddEventRecordNode`—Adds a record of an event the init phase made, which the
    /// payload shares (an `Rc<RestrictedEvent>`) ([`GraphBuilder::record`]).
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::record`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddEventRecordNode")]
    pub fn record(&self, event: &ScopedEvent<'b>, deps: &[GraphNode<'b>]) -> Result<GraphNode<'b>> {
        self.counted(self.builder.record(event, deps))
    }

    /// `cuGraphAddEventWaitNode`—Adds a wait for an event the init phase made, which the
    /// payload shares (an `Rc<RestrictedEvent>`) ([`GraphBuilder::wait`]).
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::wait`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddEventWaitNode")]
    pub fn wait(&self, event: &ScopedEvent<'b>, deps: &[GraphNode<'b>]) -> Result<GraphNode<'b>> {
        self.counted(self.builder.wait(event, deps))
    }
}

/// Builds a graph of the restricted profile with `guard`'s builder: `f` receives the restricted
/// builder; the number of nodes made, bodies included, comes back with the graph.
pub(crate) fn build<'g, P: Payload>(
    guard: &'g crate::context::stack::PushedGuard<'g, 'g>,
    payload: P,
    f: impl for<'a, 'b> FnOnce(&'a RestrictedGraphBuilder<'a, 'b>, P::Bound<'b>) -> Result<()> + 'static,
) -> Result<(crate::graph::Graph<'g, P>, usize)> {
    let nodes = Rc::new(Cell::new(0usize));
    let counted = Rc::clone(&nodes);
    let graph = guard.build_graph(payload, move |builder, bound| {
        f(
            &RestrictedGraphBuilder {
                builder,
                nodes: &counted,
            },
            bound,
        )
    })?;
    Ok((graph, nodes.get()))
}

/// The kernel nodes of a [`RestrictedGraph`] built in an init phase, lent by
/// [`RestrictedGraph::update_kernels`] to its closure: the full API's
/// [`NodeUpdater<'u>`](NodeUpdater), lending only its kernel nodes (memset and memcpy nodes
/// stay as built), naming kernels the init phase looked up.
#[derive(Debug)]
#[repr(transparent)]
pub struct RestrictedKernelUpdater<'u> {
    updater: NodeUpdater<'u>,
}

static_assertions::assert_not_impl_any!(RestrictedKernelUpdater<'static>: Send, Sync);

impl<'u> RestrictedKernelUpdater<'u> {
    fn of(updater: &'u NodeUpdater<'u>) -> &'u Self {
        // SAFETY: `RestrictedKernelUpdater` is `repr(transparent)` over `NodeUpdater` with
        // the same lifetime, so the reference is to a value of the same layout, borrowed as
        // long.
        unsafe { &*core::ptr::from_ref(updater).cast::<Self>() }
    }

    /// The `index`th kernel node (from 0, in the order the builder made them in the root
    /// graph) that launches `kernel` ([`NodeUpdater::kernel_node`]).
    ///
    /// # Errors
    ///
    /// As [`NodeUpdater::kernel_node`]: no such node (a captured graph lends none).
    pub fn kernel_node<C: PlainLaunch>(
        &self,
        kernel: &RestrictedKernel<'u, C>,
        index: usize,
    ) -> Result<KernelNode<'u, C>> {
        self.updater.kernel_node(kernel.declared(), index)
    }

    /// `cuGraphExecKernelNodeSetParams`—Sets the launch shape and arguments of `node` for the
    /// next launches, checked against the kernel's contract ([`NodeUpdater::set_kernel`]).
    ///
    /// # Errors
    ///
    /// As [`NodeUpdater::set_kernel`] (then the node is unchanged).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecKernelNodeSetParams")]
    pub fn set_kernel<C: PlainLaunch, A: ContractArgs<'u, C>>(
        &self,
        node: KernelNode<'u, C>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        self.updater.set_kernel(node, config, args)
    }
}

impl<P: Payload> RestrictedGraph<'_, P> {
    /// `cuGraphExecKernelNodeSetParams`—Updates the parameters of the kernel nodes of a graph
    /// built in the init phase ([`InitPhase::build_graph`](crate::safety::InitPhase::build_graph)),
    /// in `f`, which receives a [`RestrictedKernelUpdater`] and the payload bound to it
    /// ([`GraphExec::update_nodes`](crate::graph::GraphExec::update_nodes)): the next launch runs
    /// them with the new parameters, each checked against its kernel's contract. Allowed in
    /// either phase: it changes parameters, creates nothing and allocates nothing.
    ///
    /// `&mut self`: no launch of the graph is pending. Its launches are in the run phase's
    /// scopes, which borrow the graph until their work is complete (or end the process past the
    /// context's [`WaitBound`](crate::safety::WaitBound)). The graph's structure never changes
    /// (no whole-graph update, C27).
    ///
    /// # Errors
    ///
    /// As [`GraphExec::update_nodes`](crate::graph::GraphExec::update_nodes): a captured graph
    /// lends no kernel nodes (`ErrorKind::InvalidValue` for each asked for).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecKernelNodeSetParams")]
    pub fn update_kernels(
        &mut self,
        f: impl for<'u> FnOnce(&'u RestrictedKernelUpdater<'u>, P::Bound<'u>) -> Result<()> + 'static,
    ) -> Result<()> {
        self.graph_mut()
            .update_nodes(move |updater, bound| f(RestrictedKernelUpdater::of(updater), bound))
    }
}

impl payload_sealed::Sealed for Rc<RestrictedEvent<'_>> {}
/// An event the init phase made, shared with a graph's payload: its record and wait nodes
/// ([`RestrictedGraphBuilder::record`], [`RestrictedGraphBuilder::wait`]) name it, and the
/// program's scopes record and wait on it through the `Rc`. It lives as long as the graph.
impl<'g> Payload for Rc<RestrictedEvent<'g>> {
    type Bound<'scope> = ScopedEvent<'scope>;
    type Access<'a>
        = &'a RestrictedEvent<'g>
    where
        Self: 'a;
    type Read<'a>
        = &'a RestrictedEvent<'g>
    where
        Self: 'a;
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> ScopedEvent<'scope> {
        // SAFETY: the event lives while the payload holds its `Rc` (the caller's promise
        // covers the held payload).
        unsafe { ScopedEvent::of(held.event()) }
    }
    #[inline]
    fn access<'a>(held: &'a mut Self) -> &'a RestrictedEvent<'g>
    where
        Self: 'a,
    {
        held
    }
    #[inline]
    fn read<'a>(held: &'a Self) -> &'a RestrictedEvent<'g>
    where
        Self: 'a,
    {
        held
    }
    unsafe fn left_behind(held: &Self) {
        let event: &Event<'_> = held.event();
        crate::error::left_behind::left_behind(
            crate::error::left_behind::Object::Event,
            event.as_raw() as u64,
        );
    }
}
