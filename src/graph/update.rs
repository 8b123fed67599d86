//! The nodes of an executable graph updated in place, checked as the builder checked them:
//! [`GraphExec::update_nodes`] lends one [`NodeUpdater`] and the payload bound to it, for the
//! kernel nodes (`cuGraphExecKernelNodeSetParams`: a kernel's contract checks the new
//! arguments, as it checked the first ones), the memset and memcpy nodes
//! (`cuGraphExecMemsetNodeSetParams`, `cuGraphExecMemcpyNodeSetParams`), and the host,
//! child-graph and event nodes (`cuGraphExecHostNodeSetParams`,
//! `cuGraphExecChildGraphNodeSetParams`, `cuGraphExecEvent{Record,Wait}NodeSetEvent`) the
//! builder made.
//!
//! ```text
//!   exec.update_nodes(|u, bound| …)              &mut exec: no launch pending
//!     u.kernel_node(&add, 0) -> KernelNode<'u, C>  the first node of kernel `add` built
//!     u.set_kernel(node, config, args)           cuGraphExecKernelNodeSetParams
//!     u.fill_node(i)    -> FillNode<'u>          the i-th memset node the builder made
//!     u.copy_node(i)    -> CopyNode<'u>          the i-th memcpy node
//!     u.set_fill_u32(node, dst, value)           cuGraphExecMemsetNodeSetParams
//!     u.set_copy_to_host(node, dst, src)         cuGraphExecMemcpyNodeSetParams
//!     u.set_enabled(node, false)                 cuGraphNodeSetEnabled: any of the three kinds
//!     u.enabled(node)   -> bool                  cuGraphNodeGetEnabled
//!     u.host_node(i)    -> HostNode<'u>          the i-th host node
//!     u.set_host(node, move || …)                cuGraphExecHostNodeSetParams: the closure
//!                                                owned by the executable graph
//!     u.child_node(i)   -> ChildNode<'u>         the i-th child-graph node
//!     u.set_child(node, &graph)                  cuGraphExecChildGraphNodeSetParams
//!     u.record_node(i), u.wait_node(i)           the i-th event record / wait node
//!     u.set_record_event(node, &event)           cuGraphExecEventRecordNodeSetEvent
//!     u.set_wait_event(node, &event)             cuGraphExecEventWaitNodeSetEvent
//! ```
//!
//! A host closure an update gives is owned by the executable graph: freed when a later update
//! of the same node replaces it, or after the executable graph is destroyed. Either happens
//! under `&mut` on the executable graph, which proves no launch of it is pending (a pending
//! launch owns it, a scope borrows it exclusively): the one mechanism every update relies on.

use super::builder::node_count;
use super::host_fn::ExecHostFns;
use super::owned::{ChildGraph, GraphExec};
use super::params::{
    CopySide, DataNode, DataNodeKind, DataNodes, DisabledNodes, KernelNodes, NodeClass,
    copy_params, memset_params, with_kernel_params,
};
use crate::asynchronous::event::ScopedEvent;
use crate::asynchronous::payload::Payload;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::kernel::contract::{ContractArgs, Declared, PlainLaunch};
use crate::kernel::launch::LaunchConfig;
use crate::memory::{check_memset_unit, check_same_len};
use crate::vocabulary::binding::{Invariant, ScopedHost, ScopedHostMut, ScopedRead, ScopedWrite};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// The brand of an update: `'u` invariant, not `Send`.
type Brand<'u> = PhantomData<(Invariant<'u>, *const ())>;

/// A kernel node of the executable graph whose [`NodeUpdater<'u>`](NodeUpdater) has the
/// same `'u`, of a kernel declared with contract `C`: what
/// [`set_kernel`](NodeUpdater::set_kernel) takes. It cannot leave the update's closure, nor
/// name a node of another executable graph (`'u` is invariant).
#[derive(Debug)]
pub struct KernelNode<'u, C> {
    raw: ffi::CUgraphNode,
    function: ffi::CUfunction,
    _marker: Brand<'u>,
    _contract: PhantomData<fn() -> C>,
}

// By hand, not derived: a derive would ask `C: Copy`, which no contract type is, and a node
// names its contract only as a marker.
impl<C> Clone for KernelNode<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C> Copy for KernelNode<'_, C> {}

/// A memset, memcpy, host, child-graph or event node of the executable graph whose
/// [`NodeUpdater<'u>`](NodeUpdater) has the same `'u`, of the kind `K` names
/// ([`node_kind`]): one handle for the six kinds, each lent by its own method of the updater
/// and taken by its own update ([`FillNode`], [`CopyNode`], [`HostNode`], [`ChildNode`],
/// [`RecordNode`], [`WaitNode`] name them). It cannot leave the update's closure, nor name a
/// node of another executable graph (`'u` is invariant), nor stand for a node of another kind
/// (`K` differs).
#[derive(Debug)]
pub struct UpdateNode<'u, K> {
    /// The node's record in the lent list: a reference, so that a handle is one word wherever
    /// the lookups' `Result`s move it.
    node: &'u DataNode,
    _marker: Brand<'u>,
    _kind: PhantomData<fn() -> K>,
}

// By hand, not derived: a derive would ask `K: Clone`, which the markers, never made, need not
// be.
impl<K> Clone for UpdateNode<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K> Copy for UpdateNode<'_, K> {}

impl<'u, K> UpdateNode<'u, K> {
    /// The handle of `node`, found by its kind's class (the caller's `K`).
    #[inline]
    fn of(node: &'u DataNode) -> Self {
        Self {
            node,
            _marker: PhantomData,
            _kind: PhantomData,
        }
    }
}

/// The kinds of an [`UpdateNode`]: markers, never made.
pub mod node_kind {
    /// A memset node: [`FillNode`](super::FillNode).
    #[derive(Debug)]
    pub enum Fill {}
    /// A memcpy node: [`CopyNode`](super::CopyNode).
    #[derive(Debug)]
    pub enum Copy {}
    /// A host node: [`HostNode`](super::HostNode).
    #[derive(Debug)]
    pub enum Host {}
    /// A child-graph node: [`ChildNode`](super::ChildNode).
    #[derive(Debug)]
    pub enum Child {}
    /// An event record node: [`RecordNode`](super::RecordNode).
    #[derive(Debug)]
    pub enum Record {}
    /// An event wait node: [`WaitNode`](super::WaitNode).
    #[derive(Debug)]
    pub enum Wait {}
}

/// A memset node of the executable graph whose [`NodeUpdater<'u>`](NodeUpdater) has the same
/// `'u`: what [`set_fill_bytes`](NodeUpdater::set_fill_bytes) and
/// [`set_fill_u32`](NodeUpdater::set_fill_u32) take. It cannot leave the update's closure, nor
/// name a node of another executable graph (`'u` is invariant).
pub type FillNode<'u> = UpdateNode<'u, node_kind::Fill>;

/// A memcpy node of the executable graph whose [`NodeUpdater<'u>`](NodeUpdater) has the same
/// `'u`: what the `set_copy_*` methods take, each for the direction the node was built with.
pub type CopyNode<'u> = UpdateNode<'u, node_kind::Copy>;

/// A host node of the executable graph whose [`NodeUpdater<'u>`](NodeUpdater) has the same
/// `'u`: what [`set_host`](NodeUpdater::set_host) takes. It cannot leave the update's closure,
/// nor name a node of another executable graph (`'u` is invariant).
pub type HostNode<'u> = UpdateNode<'u, node_kind::Host>;

/// A child-graph node of the executable graph whose [`NodeUpdater<'u>`](NodeUpdater) has the
/// same `'u`: what [`set_child`](NodeUpdater::set_child) takes.
pub type ChildNode<'u> = UpdateNode<'u, node_kind::Child>;

/// An event record node of the executable graph whose [`NodeUpdater<'u>`](NodeUpdater) has the
/// same `'u`: what [`set_record_event`](NodeUpdater::set_record_event) takes.
pub type RecordNode<'u> = UpdateNode<'u, node_kind::Record>;

/// An event wait node of the executable graph whose [`NodeUpdater<'u>`](NodeUpdater) has the
/// same `'u`: what [`set_wait_event`](NodeUpdater::set_wait_event) takes.
pub type WaitNode<'u> = UpdateNode<'u, node_kind::Wait>;

/// The kernel, memset, memcpy, host, child-graph and event nodes of an executable graph, lent
/// by [`GraphExec::update_nodes`] to its closure for the brand `'u`, with the graph's payload
/// bound for `'u`: the one updater of a built graph's nodes.
///
/// What the types promise (C28.5): the new arguments and memory are the payload's (the closure
/// is `'static`, as the builder's), which the executable graph owns; a node is one of this
/// executable graph's (branded `'u`). A kernel node runs the kernel its contract names (the
/// node's function is the one it was built with), and its new arguments are checked against
/// the contract as a launch's are. What is checked before the driver sees a memset or memcpy
/// update: the lengths of the two sides of a copy, a memset's alignment and whole units, that
/// nothing is empty, and that the update keeps the node's kind: a memset's unit, a copy's
/// direction (host to device, device to host, device to device) and element type, which the
/// driver cannot change.
///
/// Its host, child-graph and event nodes too (C28.11): a host node's new closure is
/// `Fn + Send + Sync + 'static` (as [`GraphBuilder::host`](crate::graph::GraphBuilder::host)'s)
/// and owned by the executable graph until no launch can call it; a child-graph node's new
/// graph and an event node's new event are the payload's, bound for `'u` (as
/// [`GraphBuilder::child`](crate::graph::GraphBuilder::child) and
/// [`record`](crate::graph::GraphBuilder::record) take them), so they live as long as the
/// executable graph; a child graph must have as many nodes as the node's (checked before the
/// driver, which checks the rest of its topology).
#[doc(alias = "KernelUpdater")]
#[derive(Debug)]
pub struct NodeUpdater<'u> {
    exec: ffi::CUgraphExec,
    /// The kernel nodes the builder made, by function, in order.
    kernels: &'u KernelNodes,
    /// The memset, memcpy, host, child-graph and event nodes the builder made, by kind, in
    /// order.
    nodes: &'u DataNodes,
    /// The closures the updates gave the host nodes, which the executable graph owns.
    hosts: &'u ExecHostFns,
    /// The nodes disabled and not enabled again, for the whole-graph update's refusal.
    disabled: &'u DisabledNodes,
    _marker: Brand<'u>,
}

/// A node of the executable graph whose [`NodeUpdater<'u>`](NodeUpdater) has the same `'u`
/// that the driver can enable and disable: a [`KernelNode`], [`FillNode`] or [`CopyNode`]
/// (kernel, memset and memcpy nodes, the kinds `cuGraphNodeSetEnabled` takes). What
/// [`set_enabled`](NodeUpdater::set_enabled) and [`enabled`](NodeUpdater::enabled) take.
/// Sealed: implemented by those three only, each branded `'u`.
pub trait ExecNode<'u>: Copy + private::Node {}

mod private {
    use crate::ffi;
    /// The driver's handle of an [`ExecNode`](super::ExecNode), in the graph the executable
    /// graph was made from (and keeps).
    pub trait Node {
        fn raw_node(&self) -> ffi::CUgraphNode;
    }
}

impl<C> private::Node for KernelNode<'_, C> {
    fn raw_node(&self) -> ffi::CUgraphNode {
        self.raw
    }
}
impl<'u, C> ExecNode<'u> for KernelNode<'u, C> {}
impl private::Node for FillNode<'_> {
    fn raw_node(&self) -> ffi::CUgraphNode {
        self.node.raw
    }
}
impl<'u> ExecNode<'u> for FillNode<'u> {}
impl private::Node for CopyNode<'_> {
    fn raw_node(&self) -> ffi::CUgraphNode {
        self.node.raw
    }
}
impl<'u> ExecNode<'u> for CopyNode<'u> {}

static_assertions::assert_not_impl_any!(NodeUpdater<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(KernelNode<'static, ()>: Send, Sync);
static_assertions::assert_not_impl_any!(FillNode<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(CopyNode<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(HostNode<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(ChildNode<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(RecordNode<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(WaitNode<'static>: Send, Sync);

impl<P: Payload> GraphExec<'_, P> {
    /// `cuGraphExecKernelNodeSetParams`, `cuGraphExecMemsetNodeSetParams`,
    /// `cuGraphExecMemcpyNodeSetParams`—Updates the graph's kernel, memset and memcpy nodes (and
    /// its host, child-graph and event nodes: [`NodeUpdater::set_host`],
    /// [`set_child`](NodeUpdater::set_child), [`set_record_event`](NodeUpdater::set_record_event),
    /// [`set_wait_event`](NodeUpdater::set_wait_event)) in place, in `f`, which receives a
    /// [`NodeUpdater`] and the payload bound to it: the next launch runs the nodes with the new
    /// parameters. Only a graph built node by node
    /// ([`PushedGuard::build_graph`](crate::PushedGuard::build_graph)) lends its nodes, and
    /// only until a whole-graph [`update`](Self::update) (which may change the functions its
    /// kernel nodes run).
    ///
    /// `f` is `'static` (move what it needs in), as the builder's: the new parameters can name
    /// only what the payload owns, so nothing they touch can be freed while this executable
    /// graph lives (C28.5).
    ///
    /// # Errors
    ///
    /// `f`'s: a node's checks or the driver's errors. The nodes updated before the error keep
    /// their new parameters (each update is checked before it is made).
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
    /// let payload = (
    ///     guard.alloc::<u32>(1024)?,
    ///     guard.alloc::<u32>(1024)?,
    ///     module.declared::<AddU32>()?,
    ///     vec![0u32; 1024],
    /// );
    /// let cfg = LaunchConfig::for_elements(1024);
    /// let graph = guard.build_graph(payload, move |b, (mut x, _y, add, out)| {
    ///     let set = b.fill_u32(&mut x, 7, &[])?;
    ///     let added = b.kernel(&add, cfg, (&mut x, 2u32, 1024u32), &[set])?;
    ///     b.copy_to_host(out, &x, &[added])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// // From now on the graph sets `y` to 9, adds 5 to its first 512 elements and copies `y` out.
    /// exec.update_nodes(move |u, (_x, mut y, add, out)| {
    ///     u.set_fill_u32(u.fill_node(0)?, &mut y, 9)?;
    ///     let node = u.kernel_node(&add, 0)?;
    ///     u.set_kernel(node, LaunchConfig::for_elements(512), (&mut y, 5u32, 512u32))?;
    ///     u.set_copy_to_host(u.copy_node(0)?, out, &y)
    /// })?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecKernelNodeSetParams")]
    #[doc(alias = "cuGraphExecMemsetNodeSetParams")]
    #[doc(alias = "cuGraphExecMemcpyNodeSetParams")]
    pub fn update_nodes(
        &mut self,
        f: impl for<'u> FnOnce(&'u NodeUpdater<'u>, P::Bound<'u>) -> Result<()> + 'static,
    ) -> Result<()> {
        crate::error::poison::check()?;
        // The node lists and the host closures are lent in place, each a field of its own
        // beside the payload, which is bound from its own field meanwhile (no move of either
        // list in and out per update). A panic in `f` leaves them where they are: every update
        // made before it is the driver's and is recorded, so the lists stay true and the
        // closures stay owned until the executable graph is destroyed.
        let exec = self.as_raw();
        let ((kernels, nodes, hosts, disabled), held) = self.lend_nodes();
        let updater = NodeUpdater {
            exec,
            kernels,
            nodes,
            hosts,
            disabled,
            _marker: PhantomData,
        };
        // SAFETY: `&mut self`: no launch of the executable graph is pending, and the payload
        // stays where it is, owned by the executable graph, which no host code reaches while
        // `f` runs; the bound handles cannot leave `f` ('u is invariant and `f` is `'static`),
        // and the parameters they go into are the executable graph's, which owns the payload.
        let bound = unsafe { P::bind(held) };
        f(&updater, bound)
    }

    /// As [`update_nodes`](Self::update_nodes), the same updater: the name under which
    /// custack 0.1 lent it for kernel nodes (`KernelUpdater`).
    ///
    /// # Errors
    ///
    /// As [`update_nodes`](Self::update_nodes).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecKernelNodeSetParams")]
    pub fn update_kernels(
        &mut self,
        f: impl for<'u> FnOnce(&'u NodeUpdater<'u>, P::Bound<'u>) -> Result<()> + 'static,
    ) -> Result<()> {
        self.update_nodes(f)
    }
}

/// A refusal of an update that would change what a node is.
fn refused(what: &str) -> Error {
    Error::custack(ErrorKind::InvalidValue, what.to_owned())
}

/// The error of a lookup of a node the executable graph does not have: out of line, so that
/// the lookups, inlined where they are called, carry no formatting.
#[cold]
#[inline(never)]
fn no_node(kind: &str, index: usize) -> Error {
    if kind == "kernel" {
        refused(&format!(
            "the executable graph has no kernel node {index} of this kernel"
        ))
    } else {
        refused(&format!("the executable graph has no {kind} node {index}"))
    }
}

impl<'u> NodeUpdater<'u> {
    /// The `index`th kernel node (from 0, in the order the builder made them) that launches
    /// `kernel`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if the graph has no such node (or lends no kernel nodes).
    #[inline]
    pub fn kernel_node<C: PlainLaunch>(
        &self,
        kernel: &Declared<'u, C>,
        index: usize,
    ) -> Result<KernelNode<'u, C>> {
        let function = kernel.as_raw();
        self.kernels
            .nth(function, index)
            .map(|raw| KernelNode {
                raw,
                function,
                _marker: PhantomData,
                _contract: PhantomData,
            })
            .ok_or_else(|| no_node("kernel", index))
    }

    /// `cuGraphExecKernelNodeSetParams`—Sets the launch shape and arguments of `node` for the
    /// next launches, checked as [`GraphBuilder::kernel`](crate::graph::GraphBuilder::kernel)
    /// checks a new node (the compiler checks the arguments against the contract; every
    /// buffer's length is checked against its extent for `config` before the update). The
    /// arguments are copied into the node.
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::kernel`](crate::graph::GraphBuilder::kernel) (then the node is
    /// unchanged); the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecKernelNodeSetParams")]
    #[allow(clippy::needless_pass_by_value)]
    #[inline]
    pub fn set_kernel<C: PlainLaunch, A: ContractArgs<'u, C>>(
        &self,
        node: KernelNode<'u, C>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        crate::error::poison::check()?;
        with_kernel_params(node.function, &config, &args, |params| {
            // SAFETY: a live executable graph of the current context (its `&mut` is held for
            // 'u), with no launch pending; `node` is a kernel node of the graph it was made from
            // (branded 'u, taken from its list), kept alive by it; `params` names the node's own
            // function (a kernel of a module the payload owns, whose contract `C` is) and
            // arguments its contract's checks accepted for `config`, all of the payload's
            // memory, owned by the executable graph; the driver copies them.
            unsafe { ffi::cuGraphExecKernelNodeSetParams_v2(self.exec, node.raw, params) }.result()
        })
    }

    /// `cuGraphNodeSetEnabled`—Enables or disables `node` (a kernel, memset or memcpy node of
    /// this executable graph) for the next launches. A disabled node runs as an empty node: its
    /// work is skipped, the order it was part of is kept (its dependents still wait for its
    /// dependencies), and its parameters are kept, including those set while it is disabled;
    /// enabled again, it runs with them. Every node is enabled when the graph is instantiated.
    /// While a node is disabled, a whole-graph update ([`GraphExec::update`]) is refused: the
    /// driver would keep the node disabled through it, and no node is lent after it.
    ///
    /// Disabling a node changes what a launch writes, never which memory the graph may touch:
    /// every node's memory is the payload's, owned by the executable graph whether the node
    /// runs or not. Like the parameter updates, it takes the updater, which only
    /// [`GraphExec::update_nodes`] lends, with `&mut` on the executable graph: no launch of it
    /// is pending (a pending launch would not be affected, as the driver documents, but none
    /// can be).
    ///
    /// # Errors
    ///
    /// The driver's errors.
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
    /// let payload = (guard.alloc_zeroed::<u32>(1024)?, module.declared::<AddU32>()?, vec![0u32; 1024]);
    /// let cfg = LaunchConfig::for_elements(1024);
    /// let graph = guard.build_graph(payload, move |b, (mut x, add, out)| {
    ///     let added = b.kernel(&add, cfg, (&mut x, 1u32, 1024u32), &[])?;
    ///     b.copy_to_host(out, &x, &[added])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// // The next launches copy `x` out without adding to it.
    /// exec.update_nodes(|u, (_x, add, _out)| {
    ///     let node = u.kernel_node(&add, 0)?;
    ///     u.set_enabled(node, false)?;
    ///     assert!(!u.enabled(node)?);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphNodeSetEnabled")]
    pub fn set_enabled(&self, node: impl ExecNode<'u>, enabled: bool) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live executable graph of the current context (its `&mut` is held for 'u),
        // no launch pending; `node` is a kernel, memset or memcpy node (the kinds the call
        // takes: `ExecNode` is sealed to those three) of the graph it was made from (branded
        // 'u, taken from its lists), kept alive by it. Skipping a node's work frees nothing
        // and names no memory: every node's memory stays the payload's, owned by the
        // executable graph.
        unsafe { ffi::cuGraphNodeSetEnabled(self.exec, node.raw_node(), u32::from(enabled)) }
            .result()?;
        self.disabled.noted(node.raw_node(), enabled);
        Ok(())
    }

    /// `cuGraphNodeGetEnabled`—Whether `node` (a kernel, memset or memcpy node of this
    /// executable graph) runs at the next launches ([`set_enabled`](Self::set_enabled)).
    ///
    /// # Errors
    ///
    /// The driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphNodeGetEnabled")]
    pub fn enabled(&self, node: impl ExecNode<'u>) -> Result<bool> {
        crate::error::poison::check()?;
        let mut on = 0u32;
        // SAFETY: as in `set_enabled`; a valid out-pointer.
        unsafe { ffi::cuGraphNodeGetEnabled(self.exec, node.raw_node(), &raw mut on) }.result()?;
        Ok(on != 0)
    }

    /// The `index`th node of `class` (from 0, in the order the builder made them).
    #[inline]
    fn nth(&self, class: NodeClass, index: usize) -> Result<&'u DataNode> {
        match self.nodes.nth(class, index) {
            Some(node) => Ok(node),
            None => Err(no_node(class.name(), index)),
        }
    }

    /// The `index`th memset node (from 0, in the order the builder made them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if the graph has no such node (or lends no nodes).
    #[inline]
    pub fn fill_node(&self, index: usize) -> Result<FillNode<'u>> {
        Ok(UpdateNode::of(self.nth(NodeClass::Fill, index)?))
    }

    /// The `index`th memcpy node (from 0, in the order the builder made them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if the graph has no such node (or lends no nodes).
    #[inline]
    pub fn copy_node(&self, index: usize) -> Result<CopyNode<'u>> {
        Ok(UpdateNode::of(self.nth(NodeClass::Copy, index)?))
    }

    /// `cuGraphExecMemsetNodeSetParams` of `node` to `count` units of `unit` bytes at `ptr`.
    fn set_fill(
        &self,
        node: FillNode<'u>,
        ptr: ffi::CUdeviceptr,
        value: u32,
        unit: u32,
        count: usize,
    ) -> Result<()> {
        crate::error::poison::check()?;
        if node.node.kind != (DataNodeKind::Fill { unit }) {
            return Err(refused(
                "a memset node keeps its unit: fill_bytes and fill_u32 nodes are updated alike",
            ));
        }
        if count == 0 {
            return Err(refused("a memset node cannot be made empty"));
        }
        let params = memset_params(ptr, value, unit, count);
        // SAFETY: a live executable graph of the current context (its `&mut` is held for 'u),
        // no launch pending; `node` is a memset node of the graph it was made from (branded 'u,
        // taken from its list, kept alive by it), of context `ctx`; `ptr` is device memory of
        // the payload holding `count` units (the callers'), owned by the executable graph.
        unsafe {
            ffi::cuGraphExecMemsetNodeSetParams(
                self.exec,
                node.node.raw,
                &raw const params,
                node.node.ctx,
            )
        }
        .result()
    }

    /// `cuGraphExecMemsetNodeSetParams`—Sets every byte of `dst` to `value` at the next
    /// launches, in place of what the memset node `node` (a `fill_bytes` node) set.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no driver call) for a `fill_u32` node or an empty `dst`;
    /// the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecMemsetNodeSetParams")]
    pub fn set_fill_bytes<T: DeviceCopy>(
        &self,
        node: FillNode<'u>,
        dst: impl ScopedWrite<'u, T>,
        value: u8,
    ) -> Result<()> {
        let (ptr, len) = dst.raw_parts();
        self.set_fill(node, ptr, u32::from(value), 1, len * size_of::<T>())
    }

    /// `cuGraphExecMemsetNodeSetParams`—Sets every 32-bit word of `dst` to `value` at the next
    /// launches, in place of what the memset node `node` (a `fill_u32` node) set.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` (no driver call) if `dst` is not 4-byte aligned or not a
    /// whole number of words; [`ErrorKind::InvalidValue`] for a `fill_bytes` node or an empty
    /// `dst`; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecMemsetNodeSetParams")]
    pub fn set_fill_u32<T: DeviceCopy>(
        &self,
        node: FillNode<'u>,
        dst: impl ScopedWrite<'u, T>,
        value: u32,
    ) -> Result<()> {
        let (ptr, len) = dst.raw_parts();
        let bytes = len * size_of::<T>();
        check_memset_unit(ptr, bytes, 4)?;
        self.set_fill(node, ptr, value, 4, bytes / 4)
    }

    /// `cuGraphExecMemcpyNodeSetParams` of `node` to a copy of `bytes` between the sides
    /// given, once its kind is checked.
    fn set_copy<T: DeviceCopy>(
        &self,
        node: CopyNode<'u>,
        dst: CopySide<*mut core::ffi::c_void>,
        src: CopySide<*const core::ffi::c_void>,
        bytes: usize,
    ) -> Result<()> {
        crate::error::poison::check()?;
        let kind = DataNodeKind::Copy {
            dst: dst.0,
            src: src.0,
            elem: core::any::type_name::<T>(),
        };
        if node.node.kind != kind {
            return Err(refused(&format!(
                "a memcpy node keeps its direction and element type: {:?}, not {kind:?}",
                node.node.kind
            )));
        }
        if bytes == 0 {
            return Err(refused("a memcpy node cannot be made empty"));
        }
        let params = copy_params(dst, src, bytes);
        // SAFETY: a live executable graph of the current context (its `&mut` is held for 'u),
        // no launch pending; `node` is a memcpy node of the graph it was made from (branded 'u,
        // kept alive by it), of context `ctx`, of the same memory types; both sides are the
        // payload's memory holding `bytes` (the callers checked the lengths), owned by the
        // executable graph, and disjoint (the destination is bound exclusively).
        unsafe {
            ffi::cuGraphExecMemcpyNodeSetParams(
                self.exec,
                node.node.raw,
                &raw const params,
                node.node.ctx,
            )
        }
        .result()
    }

    /// `cuGraphExecMemcpyNodeSetParams`—Copies host memory of the payload to device memory of
    /// the payload at the next launches, in place of what the memcpy node `node` (a
    /// `copy_to_device` node of the same `T`) copied.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`]; [`ErrorKind::InvalidValue`] (no driver call) for a node
    /// of another direction or element type, or an empty copy; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecMemcpyNodeSetParams")]
    pub fn set_copy_to_device<T: DeviceCopy>(
        &self,
        node: CopyNode<'u>,
        dst: impl ScopedWrite<'u, T>,
        src: impl Into<ScopedHost<'u, T>>,
    ) -> Result<()> {
        // The host side first: its conversion may be a program's `From`, which could make a node
        // (taking the use `raw_parts` notes for a graph allocation) between the two.
        let src = src.into();
        let (ptr, len) = dst.raw_parts();
        check_same_len("set_copy_to_device", len, src.len())?;
        self.set_copy::<T>(
            node,
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null_mut(), ptr),
            (ffi::CU_MEMORYTYPE_HOST, src.as_ptr().cast(), 0),
            len * size_of::<T>(),
        )
    }

    /// `cuGraphExecMemcpyNodeSetParams`—Copies device memory of the payload to host memory of
    /// the payload at the next launches, in place of what the memcpy node `node` (a
    /// `copy_to_host` node of the same `T`) copied.
    ///
    /// # Errors
    ///
    /// As [`set_copy_to_device`](Self::set_copy_to_device).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecMemcpyNodeSetParams")]
    pub fn set_copy_to_host<T: DeviceCopy>(
        &self,
        node: CopyNode<'u>,
        dst: impl Into<ScopedHostMut<'u, T>>,
        src: impl ScopedRead<'u, T>,
    ) -> Result<()> {
        let (dst, (ptr, len)) = (dst.into(), src.raw_parts());
        check_same_len("set_copy_to_host", dst.len(), len)?;
        self.set_copy::<T>(
            node,
            (ffi::CU_MEMORYTYPE_HOST, dst.as_mut_ptr().cast(), 0),
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null(), ptr),
            len * size_of::<T>(),
        )
    }

    /// `cuGraphExecMemcpyNodeSetParams`—Copies device memory of the payload to other device
    /// memory of the payload at the next launches, in place of what the memcpy node `node` (a
    /// `copy_device` node of the same `T`) copied.
    ///
    /// # Errors
    ///
    /// As [`set_copy_to_device`](Self::set_copy_to_device).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecMemcpyNodeSetParams")]
    pub fn set_copy_device<T: DeviceCopy>(
        &self,
        node: CopyNode<'u>,
        dst: impl ScopedWrite<'u, T>,
        src: impl ScopedRead<'u, T>,
    ) -> Result<()> {
        let ((dst, len), (src, src_len)) = (dst.raw_parts(), src.raw_parts());
        check_same_len("set_copy_device", len, src_len)?;
        self.set_copy::<T>(
            node,
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null_mut(), dst),
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null(), src),
            len * size_of::<T>(),
        )
    }
}

/// The host, child-graph and event nodes (C28.11).
impl<'u> NodeUpdater<'u> {
    /// The `index`th host node (from 0, in the order the builder made them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if the graph has no such node (or lends no nodes).
    #[inline]
    pub fn host_node(&self, index: usize) -> Result<HostNode<'u>> {
        Ok(UpdateNode::of(self.nth(NodeClass::Host, index)?))
    }

    /// The `index`th child-graph node (from 0, in the order the builder made them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if the graph has no such node (or lends no nodes).
    #[inline]
    pub fn child_node(&self, index: usize) -> Result<ChildNode<'u>> {
        Ok(UpdateNode::of(self.nth(NodeClass::Child, index)?))
    }

    /// The `index`th event record node (from 0, in the order the builder made them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if the graph has no such node (or lends no nodes).
    #[inline]
    pub fn record_node(&self, index: usize) -> Result<RecordNode<'u>> {
        Ok(UpdateNode::of(self.nth(NodeClass::Record, index)?))
    }

    /// The `index`th event wait node (from 0, in the order the builder made them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if the graph has no such node (or lends no nodes).
    #[inline]
    pub fn wait_node(&self, index: usize) -> Result<WaitNode<'u>> {
        Ok(UpdateNode::of(self.nth(NodeClass::Wait, index)?))
    }

    /// `cuGraphExecHostNodeSetParams`—Makes the host node `node` call `f` at the next
    /// launches, in place of the closure it called. `f` is owned by the executable graph: it
    /// lives until a later update of the same node replaces it or the executable graph is
    /// destroyed, and is dropped then, on this thread. Both happen under `&mut` on the
    /// executable graph (this updater is lent only by [`GraphExec::update_nodes`]), which
    /// proves no launch of it is pending, so no launch can call a closure after it is dropped.
    /// The closure the builder gave the node stays owned by the graph's user object, as
    /// before.
    ///
    /// `f` is `Fn + Send + Sync + 'static`, as
    /// [`GraphBuilder::host`](crate::graph::GraphBuilder::host)'s: the driver calls it on its
    /// own thread, after this call returns. A panic is caught and reported by the next wait of
    /// the graph's context; `f` (and its drop) must not call the CUDA API.
    ///
    /// # Errors
    ///
    /// The driver's errors; then `f` is leaked (whether the node names it is not known).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    ///
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let (first, second) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    /// let seen = Arc::clone(&first);
    /// let graph = guard.build_graph((), move |b, ()| {
    ///     b.host(move || { seen.fetch_add(1, Ordering::Relaxed); }, &[])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// let seen = Arc::clone(&second);
    /// exec.update_nodes(move |u, ()| {
    ///     u.set_host(u.host_node(0)?, move || { seen.fetch_add(1, Ordering::Relaxed); })
    /// })?;
    /// let stream = guard.stream()?;
    /// exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// assert_eq!((first.load(Ordering::Relaxed), second.load(Ordering::Relaxed)), (0, 1));
    /// # drop(exec);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecHostNodeSetParams")]
    pub fn set_host<F: Fn() + Send + Sync + 'static>(
        &self,
        node: HostNode<'u>,
        f: F,
    ) -> Result<()> {
        crate::error::poison::check()?;
        let DataNodeKind::Host { index } = node.node.kind else {
            // Unreachable: a `HostNode` comes from the host nodes' list only.
            return Err(refused("not a host node"));
        };
        let Some(slot) = self.hosts.slot(index) else {
            // Unreachable: the executable graph has a slot per host node of its list, made
            // with it; refused before the driver, so no closure it names is ever unowned.
            return Err(refused("a host node without its slot"));
        };
        // In the allocation of the closure this node's last update replaced, where it was of
        // `F`'s type (no allocation, no free per update of a node with closures of one type).
        let (params, owned) = slot.make(node.node.ctx as usize, f);
        // SAFETY: a live executable graph of the current context (its `&mut` is held for 'u),
        // no launch pending; `node` is a host node of the graph it was made from (branded 'u,
        // taken from its list, kept alive by it); `params` names `call::<F>` with the box
        // `owned` holds, which the executable graph keeps (below) until nothing can call it.
        unsafe { ffi::cuGraphExecHostNodeSetParams(self.exec, node.node.raw, &raw const params) }
            .result()?;
        if let Some(old) = slot.replace(owned) {
            // SAFETY: the node no longer names it (the driver took the new parameters), no
            // other node ever did, and no launch is pending (`&mut` on the executable graph
            // for 'u): nothing can call it any more. Its closure is dropped here, out of the
            // slot (a `Cell`: no borrow is held); its allocation is kept for the node's next
            // closure.
            let spare = unsafe { old.retire() };
            slot.keep_spare(spare);
        }
        Ok(())
    }

    /// `cuGraphExecChildGraphNodeSetParams`—Makes the child-graph node `node` run the nodes of
    /// `graph` (a graph the payload owns, bound for `'u`) with their parameters at the next
    /// launches: the driver copies them, and they keep using `graph`'s payload, owned by the
    /// executable graph's payload for as long as it lives (as
    /// [`GraphBuilder::child`](crate::graph::GraphBuilder::child)'s). `graph` must have the
    /// topology and node insertion order of the node's graph: its node count is checked here,
    /// the rest by the driver.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no driver call) for a graph that keeps allocations or has
    /// another number of nodes; `CUDA_ERROR_INVALID_VALUE` from the driver for another
    /// topology (said in the error's detail); the driver's errors. Then the node is unchanged.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let seven = stream.capture(guard.alloc::<u32>(256)?, |s, mut x| s.fill_u32(&mut x, 7))?;
    /// let nine = stream.capture(guard.alloc::<u32>(256)?, |s, mut x| s.fill_u32(&mut x, 9))?;
    /// let graph = guard.build_graph((seven, nine), |b, (seven, _nine)| {
    ///     b.child(&seven, &[])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// // From now on the node sets the second graph's memory to 9.
    /// exec.update_nodes(|u, (_seven, nine)| u.set_child(u.child_node(0)?, &nine))?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecChildGraphNodeSetParams")]
    pub fn set_child(&self, node: ChildNode<'u>, graph: &ChildGraph<'u>) -> Result<()> {
        crate::error::poison::check()?;
        let DataNodeKind::Child { nodes } = node.node.kind else {
            // Unreachable: a `ChildNode` comes from the child-graph nodes' list only.
            return Err(refused("not a child-graph node"));
        };
        if graph.keeps_allocations() {
            return Err(refused(
                "a graph that keeps allocations (alloc_kept) is not a child graph: the \
                 executable graph would have no record of what its launches make",
            ));
        }
        let child = graph.as_raw();
        let count = node_count(child)?;
        if count != nodes {
            return Err(refused(&format!(
                "a child-graph node keeps its topology: the new graph has {count} nodes, the \
                 node's {nodes}"
            )));
        }
        // SAFETY: a live executable graph of the current context (its `&mut` is held for 'u),
        // no launch pending; `node` is a child-graph node of the graph it was made from
        // (branded 'u, taken from its list, kept alive by it); `child` is a live graph the
        // payload owns (bound for 'u), whose nodes use only what its own payload owns, owned
        // by the executable graph's payload; the driver copies its nodes' parameters.
        unsafe { ffi::cuGraphExecChildGraphNodeSetParams(self.exec, node.node.raw, child) }
            .result()
            .map_err(|e| {
                if e.kind() == ErrorKind::InvalidValue {
                    e.with_detail(
                        "the driver refused the child graph (its error for a graph whose \
                         topology or node insertion order is not the node's graph's)",
                    )
                } else {
                    e
                }
            })
    }

    /// `cuGraphExecEventRecordNodeSetEvent`—Makes the event record node `node` record `event`
    /// (an event the payload shares, bound for `'u`, as
    /// [`GraphBuilder::record`](crate::graph::GraphBuilder::record) takes it) at the next
    /// launches. The payload's `Rc` keeps the event alive for as long as the executable graph
    /// lives, so every launch that records it finds it.
    ///
    /// # Errors
    ///
    /// The driver's errors (an event of another context than the graph's, say).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, EventFlags, Stack};
    /// use std::rc::Rc;
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let (a, b) = (Rc::new(guard.event(EventFlags::empty())?), Rc::new(guard.event(EventFlags::empty())?));
    /// let graph = guard.build_graph((Rc::clone(&a), Rc::clone(&b)), |g, (a, _b)| {
    ///     g.record(&a, &[])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// exec.update_nodes(|u, (_a, b)| u.set_record_event(u.record_node(0)?, &b))?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecEventRecordNodeSetEvent")]
    #[inline]
    pub fn set_record_event(&self, node: RecordNode<'u>, event: &ScopedEvent<'u>) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live executable graph of the current context (its `&mut` is held for 'u),
        // no launch pending; `node` is an event record node of the graph it was made from
        // (branded 'u, taken from its list, kept alive by it); the event is the payload's (its
        // `Rc` keeps it alive while the executable graph lives).
        unsafe { ffi::cuGraphExecEventRecordNodeSetEvent(self.exec, node.node.raw, event.as_raw()) }
            .result()
    }

    /// `cuGraphExecEventWaitNodeSetEvent`—Makes the event wait node `node` wait for `event`
    /// (an event the payload shares, bound for `'u`, as
    /// [`GraphBuilder::wait`](crate::graph::GraphBuilder::wait) takes it) at the next launches.
    ///
    /// # Errors
    ///
    /// The driver's errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, EventFlags, Stack};
    /// use std::rc::Rc;
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let (a, b) = (Rc::new(guard.event(EventFlags::empty())?), Rc::new(guard.event(EventFlags::empty())?));
    /// let graph = guard.build_graph((Rc::clone(&a), Rc::clone(&b)), |g, (a, _b)| {
    ///     g.wait(&a, &[])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// exec.update_nodes(|u, (_a, b)| u.set_wait_event(u.wait_node(0)?, &b))?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecEventWaitNodeSetEvent")]
    #[inline]
    pub fn set_wait_event(&self, node: WaitNode<'u>, event: &ScopedEvent<'u>) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: as in `set_record_event`, for an event wait node.
        unsafe { ffi::cuGraphExecEventWaitNodeSetEvent(self.exec, node.node.raw, event.as_raw()) }
            .result()
    }
}
