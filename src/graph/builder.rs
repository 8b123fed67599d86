//! The builder of a graph, node by node under the guard: [`PushedGuard::build_graph`] lends a
//! [`GraphBuilder`] to a closure, with the payload the graph will own bound to it; the closure
//! adds typed nodes ([`GraphNode`]), each after the nodes it depends on: kernels of declared
//! kernels, copies, memsets, event records and waits, child graphs. What the types promise
//! (C28) is on [`GraphBuilder`]. The other nodes are each in a file of their own: conditional
//! nodes (`conditional.rs`), memory nodes (`mem.rs`, their order in `order.rs`, kept ones in
//! `kept/`), host nodes (`host.rs`), and captured work (`capture_into.rs`).

use super::order;
use super::owned::{ChildGraph, Graph};
use super::params::{
    CopySide, DataNode, DataNodeKind, DataNodes, KernelNodes, NodeClass, copy_params,
    memset_params, with_kernel_params,
};
use crate::asynchronous::event::ScopedEvent;
use crate::asynchronous::payload::Payload;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::left_behind::{Object, destroy_in_drop};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::kernel::contract::{ContractArgs, Declared, PlainLaunch};
use crate::kernel::launch::LaunchConfig;
use crate::memory::{check_memset_unit, check_same_len};
use crate::vocabulary::binding::{Invariant, ScopedHost, ScopedHostMut, ScopedRead, ScopedWrite};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// The brand of a graph's nodes and builder: the build's `'b` (invariant, not `Send`) and the
/// graph's `G` ([`RootGraph`] or a [`BodyGraph`]).
pub(super) type Brand<'b, G> = PhantomData<(Invariant<'b>, *const (), fn() -> G)>;

/// The brand of the graph [`build_graph`](crate::PushedGuard::build_graph) makes, the default
/// of [`GraphBuilder`] and [`GraphNode`]. Never constructed.
#[derive(Debug)]
pub enum RootGraph {}

/// The brand of one body of a conditional node, `'c` fresh for each body (invariant): a node of
/// the body is no dependency outside it, nor a node outside a dependency in it. Never
/// constructed.
#[derive(Debug)]
pub struct BodyGraph<'c>(PhantomData<Invariant<'c>>, Never);

/// Makes [`BodyGraph`] impossible to construct.
#[derive(Debug)]
enum Never {}

/// A node of the graph being built by the [`GraphBuilder<'b, G>`](GraphBuilder) of the same
/// `'b` and `G`: what later nodes of that graph name as their dependencies. `Copy`; it cannot
/// leave the builder's closure, nor be a dependency in another graph (`'b` is invariant), nor
/// in a conditional node's body or the graph around one (`G`: [`RootGraph`] for the graph
/// [`build_graph`](PushedGuard::build_graph) makes, a fresh [`BodyGraph`] for each body).
#[derive(Debug)]
#[repr(transparent)]
pub struct GraphNode<'b, G = RootGraph> {
    pub(super) raw: ffi::CUgraphNode,
    _marker: Brand<'b, G>,
}

impl<G> Clone for GraphNode<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<G> Copy for GraphNode<'_, G> {}

impl<G> GraphNode<'_, G> {
    /// The raw `CUgraphNode`.
    pub fn as_raw(&self) -> ffi::CUgraphNode {
        self.raw
    }

    /// A node of the graph branded as `Self` is.
    pub(super) fn of(raw: ffi::CUgraphNode) -> Self {
        Self {
            raw,
            _marker: PhantomData,
        }
    }
}

/// A graph being built, lent by [`PushedGuard::build_graph`] to its closure for the brand
/// `'b` of its nodes. Each method adds one node after `deps` (nodes of this graph made
/// before) and returns it.
///
/// ```text
///   guard.build_graph(payload, |b, bound| …)   -> Graph<'g, P>      cuGraphCreate
///     b.fill_u32(&mut dst, v, &[])             -> GraphNode<'b>     cuGraphAddMemsetNode
///     b.kernel(&k, config, args, &[n])         -> GraphNode<'b>     cuGraphAddKernelNode
///     b.copy_to_host(out, &src, &[n])          -> GraphNode<'b>     cuGraphAddMemcpyNode
///     b.record(&e, &[n]), b.wait(&e, &[])      -> GraphNode<'b>     cuGraphAddEvent{Record,Wait}Node
///     b.child(&g, &[n])                        -> GraphNode<'b>     cuGraphAddChildGraphNode
///     b.alloc::<T>(len, &[n])                  -> (GraphNode<'b>,   cuGraphAddMemAllocNode
///                                                  GraphAlloc<'b, T>)
///     b.free(a, &[n])                          -> GraphNode<'b>     cuGraphAddMemFreeNode
///     b.condition(1, true)                     -> Condition<'b>     cuGraphConditionalHandleCreate
///     b.while_loop(cond, &[n], |body| …)       -> GraphNode<'b>     cuGraphAddNode (if_then,
///                                                                   if_else, switch alike)
///   graph.instantiate()                        -> GraphExec<'g, P>  launched as a captured one
/// ```
///
/// What the types promise (C28.1, C28.2, C28.8):
///
/// - **A node depends only on nodes of its own graph.** A [`GraphNode<'b>`](GraphNode) is
///   branded with the builder's lifetime `'b`, which the closure receives for any `'b`
///   (`for<'b>`) and which is invariant: a node cannot leave its closure, and a node of one
///   graph is not a dependency in another (a compile error). A node exists only once it is
///   made, so dependencies always point back: the graph has no cycle.
/// - **The memory the nodes touch is the graph's payload.** The closure is `'static`, as a
///   capture's is: it reaches only what the payload binds (device and host memory, declared
///   kernels, shared events, child graphs), never a borrow of the caller's. The payload moves
///   into the graph, then into the executable graph, which lends views of it between launches
///   but never the memory itself. So no buffer a node writes can be freed, moved or reached
///   by the host while an executable graph that writes it can be launched (a compile error),
///   and a launch borrows or owns the executable graph as any other launch does (C18).
/// - **A conditional body's nodes stay in their body.** Each body of a conditional node is
///   built through a `GraphBuilder<'b, BodyGraph<'c>>`, `'c` fresh for that body: its nodes are
///   `GraphNode<'b, BodyGraph<'c>>`, no dependency of the graph around it nor of another body,
///   and that graph's nodes none of its (a compile error). The condition's
///   [`ConditionalHandle<'b>`](crate::graph::ConditionalHandle) carries the build's `'b`: it reaches only
///   kernel nodes of this build, never a launch outside it.
/// - **A graph allocation is used only while it exists.** [`alloc`](Self::alloc) returns a
///   [`GraphAlloc<'b, T>`](crate::graph::GraphAlloc), memory that exists from its allocation node
///   to its free node at each launch, branded as nodes are (no other graph uses it, a compile
///   error), and consumed by [`free`](Self::free) (no node made after the free uses it, a
///   compile error). The builder knows each node's ancestors and refuses, before the driver
///   sees it, a node that uses the allocation without its allocation node among them, a free
///   node without every node that used it among them, and a build that ends with an
///   allocation not freed ([`ErrorKind::InvalidValue`]). Only the root graph's builder
///   allocates (a body's node that uses an allocation is refused: the driver takes no memory
///   node in a body), and only its own nodes use an allocation: a build that used one while a
///   capture into the graph ([`capture`](Self::capture)) ran is refused at its end.
/// - **Kernel nodes are checked as launches are.** [`kernel`](Self::kernel) takes a
///   [`Declared`] kernel and the arguments of its contract, and runs the contract's checks
///   (every buffer's length against its extent for the launch shape) before the node is made,
///   as [`StreamScope::run`](crate::StreamScope::run) does before a launch. Kernel arguments
///   are copied into the node when it is made.
///
/// Nodes with no path between them may run concurrently. Two such nodes that touch the same
/// memory race: the result is unspecified, as for plain data written by two streams (any bit
/// pattern is a valid value of plain data, and no host code reads the payload while a launch
/// may run), so it is no undefined behaviour, but it is a bug: order them with a dependency.
#[derive(Debug)]
pub struct GraphBuilder<'b, G = RootGraph> {
    pub(super) raw: ffi::CUgraph,
    pub(super) ctx: ffi::CUcontext,
    /// The kernel nodes made so far, by function, in order (a body's are not kept: only the
    /// root graph's kernel nodes are updated in place).
    kernels: core::cell::RefCell<KernelNodes>,
    /// The memset, memcpy, host, child-graph and event nodes made so far, by kind, in order (a
    /// body's are not kept either).
    data: core::cell::RefCell<DataNodes>,
    /// The root graph's reachability for its allocations (`order.rs`); `None` in a body.
    pub(super) mem: Option<order::Tracker>,
    _marker: Brand<'b, G>,
}

static_assertions::assert_not_impl_any!(GraphBuilder<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(GraphNode<'static>: Send, Sync);

/// `cuGraphGetNodes`—The number of nodes of `graph` (live, of the current context).
pub(super) fn node_count(graph: ffi::CUgraph) -> Result<usize> {
    let mut n = 0usize;
    // SAFETY: a live graph (the caller's); a null node array asks for the count only.
    unsafe { ffi::cuGraphGetNodes(graph, core::ptr::null_mut(), &raw mut n) }.result()?;
    Ok(n)
}

/// Destroys a graph whose building did not complete (an error or a panic in the closure).
struct Unfinished(ffi::CUgraph);

impl Drop for Unfinished {
    fn drop(&mut self) {
        let graph = self.0;
        destroy_in_drop(Object::Graph, graph as u64, || {
            // SAFETY: a live graph made by `build_graph`, never instantiated, destroyed once.
            unsafe { ffi::cuGraphDestroy(graph) }.result()
        });
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuGraphCreate`—Builds a graph node by node in `f`, which receives a [`GraphBuilder`]
    /// and `payload` bound to it; the graph owns `payload` from now on, as a captured graph
    /// does ([`Stream::capture`](crate::Stream::capture)).
    ///
    /// `f` is `'static` (move what it needs in): the nodes can use only what the payload
    /// owns, so nothing they touch can be freed, moved or reached by the host while the graph,
    /// or an executable graph made from it, lives (C28.1).
    ///
    /// # Errors
    ///
    /// The driver's errors, a node's checks (a contract's extents, lengths), or `f`'s; then the
    /// graph is destroyed and the payload dropped (nothing ran).
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
    ///     let added = b.kernel(&add, cfg, (&mut x, 2u32, 1024u32), &[set])?;
    ///     b.copy_to_host(out, &x, &[added])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// let stream = guard.stream()?;
    /// exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// let (_x, _add, out) = exec.payload();
    /// assert!(out.iter().all(|&v| v == 42));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphCreate")]
    pub fn build_graph<P: Payload>(
        &self,
        payload: P,
        f: impl for<'b> FnOnce(&'b GraphBuilder<'b>, P::Bound<'b>) -> Result<()> + 'static,
    ) -> Result<Graph<'_, P>> {
        crate::error::poison::check()?;
        // This guard's context is current.
        let ctx = crate::context::raw::current()?;
        let mut payload = payload.hold();
        let mut raw = core::ptr::null_mut();
        // SAFETY: a valid out-pointer; flags 0, as documented.
        unsafe { ffi::cuGraphCreate(&raw mut raw, 0) }.result()?;
        // Declared after `payload`, so it drops first: the graph goes before the memory its
        // nodes name (it never ran, so either order is sound).
        let unfinished = Unfinished(raw);
        let mut builder = GraphBuilder::new(raw, ctx);
        builder.mem = Some(order::Tracker::new());
        // SAFETY: the payload moves into the graph without moving the memory it names, and is
        // out of the host's reach there (then in the executable graph, which lends only views
        // of it); the bound handles cannot leave `f` ('b is invariant and `f` is `'static`).
        let bound = unsafe { P::bind(&mut payload) };
        f(&builder, bound)?;
        if let Some(t) = &builder.mem {
            t.all_freed()?;
        }
        core::mem::forget(unfinished);
        // SAFETY: a live graph of the current context, never launched, whose nodes use only
        // what `payload` owns (the only memory and code `f` could reach).
        let mut graph = unsafe { Graph::from_parts(raw, payload) };
        graph.set_kernels(builder.kernels.take());
        graph.set_data_nodes(builder.data.take());
        if let Some(t) = &builder.mem {
            graph.kept = t.take_kept();
        }
        Ok(graph)
    }
}

impl<'b, G> GraphBuilder<'b, G> {
    /// A builder of the graph `raw` of the current context `ctx`, branded `'b` and `G`.
    pub(super) fn new(raw: ffi::CUgraph, ctx: ffi::CUcontext) -> Self {
        Self {
            raw,
            ctx,
            kernels: core::cell::RefCell::default(),
            data: core::cell::RefCell::default(),
            mem: None,
            _marker: PhantomData,
        }
    }

    /// The raw `CUgraph` being built.
    pub fn as_raw(&self) -> ffi::CUgraph {
        self.raw
    }

    /// Records `node`, of kind `kind` (a host node's index is filled in here), for the updates
    /// of the executable graph made from the graph.
    pub(super) fn note(&self, node: GraphNode<'b, G>, kind: DataNodeKind) -> GraphNode<'b, G> {
        let mut data = self.data.borrow_mut();
        let kind = match kind {
            DataNodeKind::Host { .. } => DataNodeKind::Host {
                index: data.count(NodeClass::Host),
            },
            other => other,
        };
        data.push(DataNode {
            raw: node.raw,
            kind,
            ctx: self.ctx,
        });
        node
    }

    /// Adds a node with `add(out, graph, deps, count)`, the driver call that makes it.
    #[inline]
    pub(super) fn add(
        &self,
        deps: &[GraphNode<'b, G>],
        add: impl FnOnce(
            *mut ffi::CUgraphNode,
            ffi::CUgraph,
            *const ffi::CUgraphNode,
            usize,
        ) -> ffi::CUresult,
    ) -> Result<GraphNode<'b, G>> {
        self.add_as(deps, order::Role::Plain, add)
            .map(|(node, _)| node)
    }

    /// Adds a node in the role `role` towards the graph's allocations (`order.rs`), after the
    /// checks of the allocations it uses (or frees); returns it with the number of the
    /// allocation it makes (an allocation node's, 0 otherwise).
    #[inline]
    pub(super) fn add_as(
        &self,
        deps: &[GraphNode<'b, G>],
        role: order::Role,
        add: impl FnOnce(
            *mut ffi::CUgraphNode,
            ffi::CUgraph,
            *const ffi::CUgraphNode,
            usize,
        ) -> ffi::CUresult,
    ) -> Result<(GraphNode<'b, G>, usize)> {
        if let Some(t) = &self.mem {
            if let Some(plan) = t.plan(deps.iter().map(GraphNode::as_raw), role)? {
                return self.add_planned(t, plan, deps, add);
            }
        } else {
            order::none_in_body()?;
        }
        // No plan to keep (most nodes): nothing lives across the driver call but the node.
        Ok((self.add_raw(deps, add)?, 0))
    }

    /// [`add_as`](Self::add_as) of a node the tracker `t` keeps as `plan` checked (a memory
    /// node, or a node after the first allocation node): out of line, so that the plan, which
    /// lives across the driver call, takes no room on the path of the other nodes.
    #[inline(never)]
    fn add_planned(
        &self,
        t: &order::Tracker,
        plan: order::Plan,
        deps: &[GraphNode<'b, G>],
        add: impl FnOnce(
            *mut ffi::CUgraphNode,
            ffi::CUgraph,
            *const ffi::CUgraphNode,
            usize,
        ) -> ffi::CUresult,
    ) -> Result<(GraphNode<'b, G>, usize)> {
        let node = self.add_raw(deps, add)?;
        let index = t.made(node.raw, plan);
        Ok((node, index))
    }

    /// Makes a node with `add` after `deps`, once the process is checked not poisoned.
    #[inline]
    fn add_raw(
        &self,
        deps: &[GraphNode<'b, G>],
        add: impl FnOnce(
            *mut ffi::CUgraphNode,
            ffi::CUgraph,
            *const ffi::CUgraphNode,
            usize,
        ) -> ffi::CUresult,
    ) -> Result<GraphNode<'b, G>> {
        crate::error::poison::check()?;
        let mut raw = core::ptr::null_mut();
        // A `GraphNode` is `repr(transparent)` over its `CUgraphNode` (the marker is zero-sized),
        // so a slice of them is an array of the driver's node handles, read for this call only.
        let (nodes, count) = (deps.as_ptr().cast::<ffi::CUgraphNode>(), deps.len());
        add(&raw mut raw, self.raw, nodes, count).result()?;
        Ok(GraphNode {
            raw,
            _marker: PhantomData,
        })
    }

    /// `cuGraphAddKernelNode`—Adds a launch of a declared kernel: a safe call, checked as
    /// [`StreamScope::run`](crate::StreamScope::run) checks a launch (the compiler checks the
    /// arguments against the contract; every buffer's length is checked against its extent for
    /// `config` before the node is made). The arguments are copied into the node.
    ///
    /// # Errors
    ///
    /// As [`run`](crate::StreamScope::run): [`ErrorKind::BufferTooShort`] naming the parameter,
    /// [`ErrorKind::SizeOverflow`], a `requires(..)` clause that does not hold (then no node is
    /// made); the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddKernelNode")]
    #[allow(clippy::needless_pass_by_value)]
    #[inline]
    pub fn kernel<C: PlainLaunch, A: ContractArgs<'b, C>>(
        &self,
        kernel: &Declared<'b, C>,
        config: LaunchConfig,
        args: A,
        deps: &[GraphNode<'b, G>],
    ) -> Result<GraphNode<'b, G>> {
        let function = kernel.as_raw();
        let node = with_kernel_params(function, &config, &args, |params| {
            self.add(deps, |out, graph, deps, n| {
                // SAFETY: a live graph of the current context; `deps` holds `n` nodes of it
                // (branded 'b); `params` names a kernel of a module the payload owns (bound for
                // 'b) and arguments its contract's checks accepted for `config` (see
                // `with_kernel_params`), all of the payload's memory, owned by the graph and
                // every executable graph made from it; the driver copies them.
                unsafe { ffi::cuGraphAddKernelNode_v2(out, graph, deps, n, params) }
            })
        })?;
        self.kernels.borrow_mut().push(function, node.raw);
        Ok(node)
    }

    /// A contiguous copy of `bytes` between the sides given, as a `CUDA_MEMCPY3D`.
    fn copy_node(
        &self,
        dst: CopySide<*mut core::ffi::c_void>,
        src: CopySide<*const core::ffi::c_void>,
        bytes: usize,
        elem: &'static str,
        deps: &[GraphNode<'b, G>],
    ) -> Result<GraphNode<'b, G>> {
        let copy = copy_params(dst, src, bytes);
        let ctx = self.ctx;
        let node = self.add(deps, |out, graph, deps, n| {
            // SAFETY: a live graph of the current context `ctx`; `deps` holds `n` of its nodes;
            // both sides are the payload's memory (host memory valid for `bytes`, device memory
            // of `ctx` holding `bytes`: the callers checked the lengths), owned by the graph and
            // every executable graph made from it, and disjoint (the destination is bound
            // exclusively); any bit pattern is a valid `T`.
            unsafe { ffi::cuGraphAddMemcpyNode(out, graph, deps, n, &raw const copy, ctx) }
        })?;
        let kind = DataNodeKind::Copy {
            dst: dst.0,
            src: src.0,
            elem,
        };
        self.data.borrow_mut().push(DataNode {
            raw: node.raw,
            kind,
            ctx,
        });
        Ok(node)
    }

    /// `cuGraphAddMemcpyNode`—Adds a copy from host memory of the payload to device memory of
    /// the payload.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`]; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemcpyNode")]
    pub fn copy_to_device<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'b, T>,
        src: impl Into<ScopedHost<'b, T>>,
        deps: &[GraphNode<'b, G>],
    ) -> Result<GraphNode<'b, G>> {
        // The host side first: its conversion may be a program's `From`, which could make a node
        // (taking the use `raw_parts` notes for a graph allocation) between the two.
        let src = src.into();
        let (ptr, len) = dst.raw_parts();
        check_same_len("copy_to_device", len, src.len())?;
        self.copy_node(
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null_mut(), ptr),
            (ffi::CU_MEMORYTYPE_HOST, src.as_ptr().cast(), 0),
            len * size_of::<T>(),
            core::any::type_name::<T>(),
            deps,
        )
    }

    /// `cuGraphAddMemcpyNode`—Adds a copy from device memory of the payload to host memory of
    /// the payload.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`]; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemcpyNode")]
    pub fn copy_to_host<T: DeviceCopy>(
        &self,
        dst: impl Into<ScopedHostMut<'b, T>>,
        src: impl ScopedRead<'b, T>,
        deps: &[GraphNode<'b, G>],
    ) -> Result<GraphNode<'b, G>> {
        let (dst, (ptr, len)) = (dst.into(), src.raw_parts());
        check_same_len("copy_to_host", dst.len(), len)?;
        self.copy_node(
            (ffi::CU_MEMORYTYPE_HOST, dst.as_mut_ptr().cast(), 0),
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null(), ptr),
            len * size_of::<T>(),
            core::any::type_name::<T>(),
            deps,
        )
    }

    /// `cuGraphAddMemcpyNode`—Adds a device-to-device copy between memory of the payload (the
    /// two cannot overlap: `dst` is bound exclusively).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`]; the driver's errors.
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
        let ((dst, len), (src, src_len)) = (dst.raw_parts(), src.raw_parts());
        check_same_len("copy_device", len, src_len)?;
        self.copy_node(
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null_mut(), dst),
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null(), src),
            len * size_of::<T>(),
            core::any::type_name::<T>(),
            deps,
        )
    }

    /// A memset node of `count` elements of `unit` bytes at `ptr`.
    fn memset(
        &self,
        ptr: ffi::CUdeviceptr,
        value: u32,
        unit: u32,
        count: usize,
        deps: &[GraphNode<'b, G>],
    ) -> Result<GraphNode<'b, G>> {
        let memset = memset_params(ptr, value, unit, count);
        let ctx = self.ctx;
        let node = self.add(deps, |out, graph, deps, n| {
            // SAFETY: a live graph of the current context `ctx`; `deps` holds `n` of its nodes;
            // `ptr` is device memory of the payload holding `count` units (the callers'),
            // owned by the graph and every executable graph made from it.
            unsafe { ffi::cuGraphAddMemsetNode(out, graph, deps, n, &raw const memset, ctx) }
        })?;
        self.data.borrow_mut().push(DataNode {
            raw: node.raw,
            kind: DataNodeKind::Fill { unit },
            ctx,
        });
        Ok(node)
    }

    /// `cuGraphAddMemsetNode`—Adds setting every byte of `dst` to `value`.
    ///
    /// # Errors
    ///
    /// The driver's errors.
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
        let (ptr, len) = dst.raw_parts();
        self.memset(ptr, u32::from(value), 1, len * size_of::<T>(), deps)
    }

    /// `cuGraphAddMemsetNode`—Adds setting every 32-bit word of `dst` to `value`.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` (no driver call) if `dst` is not 4-byte aligned or not a
    /// whole number of 32-bit words; the driver's errors.
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
        let (ptr, len) = dst.raw_parts();
        let bytes = len * size_of::<T>();
        check_memset_unit(ptr, bytes, 4)?;
        self.memset(ptr, value, 4, bytes / 4, deps)
    }
}

/// Event and child graph nodes: only in the root graph (a conditional node's body takes no
/// event node, nor a graph that may hold one).
impl<'b> GraphBuilder<'b> {
    /// `cuGraphAddEventRecordNode`—Adds a record of an event the payload shares (an
    /// `Rc<Event>`), so that work outside the graph can wait for the nodes before it.
    ///
    /// # Errors
    ///
    /// The driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddEventRecordNode")]
    pub fn record(&self, event: &ScopedEvent<'b>, deps: &[GraphNode<'b>]) -> Result<GraphNode<'b>> {
        let event = event.as_raw();
        self.add(deps, |out, graph, deps, n| {
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes; the
            // event is the payload's (its `Rc` keeps it alive while the graph or an executable
            // graph made from it lives).
            unsafe { ffi::cuGraphAddEventRecordNode(out, graph, deps, n, event) }
        })
        .map(|node| self.note(node, DataNodeKind::Record))
    }

    /// `cuGraphAddEventWaitNode`—Adds a wait for an event the payload shares (an
    /// `Rc<Event>`): the nodes after it wait for the work recorded before the event.
    ///
    /// # Errors
    ///
    /// The driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddEventWaitNode")]
    pub fn wait(&self, event: &ScopedEvent<'b>, deps: &[GraphNode<'b>]) -> Result<GraphNode<'b>> {
        let event = event.as_raw();
        self.add(deps, |out, graph, deps, n| {
            // SAFETY: as in `record`.
            unsafe { ffi::cuGraphAddEventWaitNode(out, graph, deps, n, event) }
        })
        .map(|node| self.note(node, DataNodeKind::Wait))
    }

    /// `cuGraphAddChildGraphNode`—Adds a node that runs a copy of a graph the payload owns
    /// (captured or built): the driver copies its nodes, which keep using its payload's
    /// memory, owned by this graph's payload for as long as it or an executable graph made
    /// from it lives.
    ///
    /// A graph that keeps allocations ([`alloc_kept`](Self::alloc_kept)) is no child: the
    /// executable graph made from this one would have no record of what its launches make, so
    /// nothing could take or free it, and its relaunches would fail in the driver.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no driver call) for a child that keeps allocations (checked
    /// here whatever the driver takes: its newer child-graph ownership, `cuGraphAddNode` with
    /// `CUDA_CHILD_GRAPH_NODE_PARAMS`, moves a graph with memory nodes into its parent, which
    /// custack does not call); the driver's errors (e.g. a child with allocation nodes: "The
    /// graph cannot be used in a child node", `cuGraphAddMemFreeNode`'s restrictions on graphs
    /// with memory nodes).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddChildGraphNode")]
    pub fn child(&self, graph: &ChildGraph<'b>, deps: &[GraphNode<'b>]) -> Result<GraphNode<'b>> {
        if graph.keeps_allocations() {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "a graph that keeps allocations (alloc_kept) is not a child graph: the parent's \
                 executable graph would have no record of what its launches make"
                    .to_owned(),
            ));
        }
        let child = graph.as_raw();
        if child == self.raw {
            // Unreachable through the types (a graph being built is not in its own payload);
            // refused rather than handed to the driver.
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "a graph cannot be a child of itself".to_owned(),
            ));
        }
        // What an update of the node must give it again (`NodeUpdater::set_child`).
        let nodes = node_count(child)?;
        self.add(deps, |out, parent, deps, n| {
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes;
            // `child` is a live graph the payload owns, with its own payload, never launched
            // here (the driver copies it), whose nodes use only what that payload owns.
            unsafe { ffi::cuGraphAddChildGraphNode(out, parent, deps, n, child) }
        })
        .map(|node| self.note(node, DataNodeKind::Child { nodes }))
    }
}
