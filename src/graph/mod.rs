//! Graphs built node by node under the guard: [`PushedGuard::build_graph`] lends a
//! [`GraphBuilder`] to a closure, with the payload the graph will own bound to it; the closure
//! adds typed nodes ([`GraphNode`]), each after the nodes it depends on. The result is the same
//! [`Graph`] a capture makes. What the types promise (C28) is on [`GraphBuilder`].
//!
//! A built graph branches and loops on the device with conditional nodes (`conditional.rs`):
//! IF, IF/ELSE, WHILE and SWITCH, each body built through a [`GraphBuilder`] of its own brand
//! ([`BodyGraph`]), the condition set by a kernel of the graph through a [`ConditionalHandle`].
//!
//! An executable graph made from a built graph updates its kernel nodes in place
//! ([`GraphExec::update_kernels`]): a [`KernelUpdater`] lends each node the builder made as a
//! [`KernelNode`], branded for that update, and checks new arguments against the kernel's
//! contract as the builder checked the first ones.
//!
//! ```text
//!   let mut exec = guard.build_graph(payload, |b, bound| …)?.instantiate()?;
//!   exec.update_kernels(|u, (mut x, add)| {
//!       let node = u.kernel_node(&add, 0)?;                 the first node of `add`
//!       u.set_kernel(node, config, (&mut x, 5u32, n))       cuGraphExecKernelNodeSetParams
//!   })?;
//! ```

use crate::asynchronous::event::ScopedEvent;
use crate::asynchronous::graph::{ChildGraph, DataNode, DataNodeKind, Graph, GraphExec};
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

// `arena`: device memory reserved once and lent as typed buffers that graphs replay over.
pub(crate) mod arena;
pub use arena::{ARENA_ALIGN, ArenaBuffer, ReplayArena};
// `conditional`: conditional nodes (IF, IF/ELSE, WHILE, SWITCH), their bodies and their handles.
pub(crate) mod conditional;
pub use conditional::{Condition, ConditionalHandle, GraphConditionalHandle};
// `capture_into`: capture into a graph being built, and conditional nodes added to a capture.
pub(crate) mod capture_into;
pub use capture_into::CapturedGraph;
// `exec`: graphs that survive instantiation (shared executable graphs, clones, node kinds,
// instantiation flags).
pub(crate) mod exec;
// Host nodes (`GraphBuilder::host`), under the full API.
mod host;
// Memory allocation and free nodes (`GraphBuilder::alloc`, `free`), in the root graph.
mod mem;
// Allocations that outlive the launch (`GraphBuilder::alloc_kept`, `GraphExec::take_kept`).
pub(crate) mod kept;
// The order of the root graph's nodes, which checks every use of a graph allocation.
mod order;
pub use exec::{GraphClone, InstantiateFlags, NodeKind, SharedExec};
// `update`: memset and memcpy nodes of an executable graph updated in place.
pub(crate) mod update;
pub use update::{CopyNode, FillNode, NodeUpdater};

/// The brand of a graph's nodes and builder: the build's `'b` (invariant, not `Send`) and the
/// graph's `G` ([`RootGraph`] or a [`BodyGraph`]).
type Brand<'b, G> = PhantomData<(Invariant<'b>, *const (), fn() -> G)>;

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
    raw: ffi::CUgraphNode,
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
/// What the types promise (C28):
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
///   [`ConditionalHandle<'b>`](ConditionalHandle) carries the build's `'b`: it reaches only
///   kernel nodes of this build, never a launch outside it.
/// - **A graph allocation is used only while it exists.** [`alloc`](Self::alloc) returns a
///   [`GraphAlloc<'b, T>`](crate::GraphAlloc), memory that exists from its allocation node to
///   its free node at each launch, branded as nodes are (no other graph uses it, a compile
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
    raw: ffi::CUgraph,
    ctx: ffi::CUcontext,
    /// The kernel nodes made so far, in order, with their functions (a body's are not kept:
    /// only the root graph's kernel nodes are updated in place).
    kernels: core::cell::RefCell<Vec<(ffi::CUgraphNode, ffi::CUfunction)>>,
    /// The memset and memcpy nodes made so far, in order (a body's are not kept either).
    data: core::cell::RefCell<Vec<DataNode>>,
    /// The root graph's reachability for its allocations (`order.rs`); `None` in a body.
    mem: Option<order::Tracker>,
    _marker: Brand<'b, G>,
}

static_assertions::assert_not_impl_any!(GraphBuilder<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(GraphNode<'static>: Send, Sync);

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
    /// or an executable graph made from it, lives (C28).
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
        let mut ctx = core::ptr::null_mut();
        // SAFETY: a valid out-pointer; this guard's context is current.
        unsafe { ffi::cuCtxGetCurrent(&raw mut ctx) }.result()?;
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
    fn new(raw: ffi::CUgraph, ctx: ffi::CUcontext) -> Self {
        Self {
            raw,
            ctx,
            kernels: core::cell::RefCell::new(Vec::new()),
            data: core::cell::RefCell::new(Vec::new()),
            mem: None,
            _marker: PhantomData,
        }
    }

    /// The raw `CUgraph` being built.
    pub fn as_raw(&self) -> ffi::CUgraph {
        self.raw
    }

    /// Adds a node with `add(out, graph, deps, count)`, the driver call that makes it.
    fn add(
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
    fn add_as(
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
        let plan = if let Some(t) = &self.mem {
            Some(t.plan(deps.iter().map(GraphNode::as_raw), role)?)
        } else {
            order::none_in_body()?;
            None
        };
        crate::error::poison::check()?;
        let mut raw = core::ptr::null_mut();
        // A `GraphNode` is `repr(transparent)` over its `CUgraphNode` (the marker is zero-sized),
        // so a slice of them is an array of the driver's node handles, read for this call only.
        let (nodes, count) = (deps.as_ptr().cast::<ffi::CUgraphNode>(), deps.len());
        add(&raw mut raw, self.raw, nodes, count).result()?;
        let index = match (&self.mem, plan) {
            (Some(t), Some(plan)) => t.made(raw, plan),
            _ => 0,
        };
        Ok((
            GraphNode {
                raw,
                _marker: PhantomData,
            },
            index,
        ))
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
        self.kernels.borrow_mut().push((node.raw, function));
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
        let ((ptr, len), src) = (dst.raw_parts(), src.into());
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
        self.add(deps, |out, parent, deps, n| {
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes;
            // `child` is a live graph the payload owns, with its own payload, never launched
            // here (the driver copies it), whose nodes use only what that payload owns.
            unsafe { ffi::cuGraphAddChildGraphNode(out, parent, deps, n, child) }
        })
    }
}

/// One side of a contiguous copy: its memory type, host pointer and device pointer.
pub(crate) type CopySide<Ptr> = (core::ffi::c_uint, Ptr, ffi::CUdeviceptr);

/// A contiguous 1D copy of `bytes` between the sides given, as a `CUDA_MEMCPY3D`: what copy
/// nodes and their updates share.
pub(crate) fn copy_params(
    dst: CopySide<*mut core::ffi::c_void>,
    src: CopySide<*const core::ffi::c_void>,
    bytes: usize,
) -> ffi::CUDA_MEMCPY3D {
    ffi::CUDA_MEMCPY3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: src.0,
        srcHost: src.1,
        srcDevice: src.2,
        srcArray: core::ptr::null_mut(),
        reserved0: core::ptr::null_mut(),
        srcPitch: bytes,
        srcHeight: 1,
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: dst.0,
        dstHost: dst.1,
        dstDevice: dst.2,
        dstArray: core::ptr::null_mut(),
        reserved1: core::ptr::null_mut(),
        dstPitch: bytes,
        dstHeight: 1,
        WidthInBytes: bytes,
        Height: 1,
        Depth: 1,
    }
}

/// A 1D memset of `count` units of `unit` bytes at `ptr`: what memset nodes and their updates
/// share.
pub(crate) fn memset_params(
    ptr: ffi::CUdeviceptr,
    value: u32,
    unit: u32,
    count: usize,
) -> ffi::CUDA_MEMSET_NODE_PARAMS {
    ffi::CUDA_MEMSET_NODE_PARAMS {
        dst: ptr,
        pitch: 0,
        value,
        elementSize: unit,
        width: count,
        height: 1,
    }
}

/// Runs the contract's checks of `args` for a launch of `function` with shape `config` (every
/// buffer's length against its extent, as [`StreamScope::run`](crate::StreamScope::run) does),
/// then calls `f` with the kernel node parameters naming them, valid for the call: the one
/// checking that kernel nodes and their updates share.
fn with_kernel_params<'s, C: PlainLaunch, A: ContractArgs<'s, C>, R>(
    function: ffi::CUfunction,
    config: &LaunchConfig,
    args: &A,
    f: impl FnOnce(*const ffi::CUDA_KERNEL_NODE_PARAMS_v2) -> Result<R>,
) -> Result<R> {
    args.check(config)?;
    args.with_params(|params| {
        let node = ffi::CUDA_KERNEL_NODE_PARAMS_v2 {
            func: function,
            gridDimX: config.grid.0,
            gridDimY: config.grid.1,
            gridDimZ: config.grid.2,
            blockDimX: config.block.0,
            blockDimY: config.block.1,
            blockDimZ: config.block.2,
            sharedMemBytes: config.shared_mem_bytes,
            // One pointer per argument of the contract, live for this call (the driver copies
            // them when it takes the parameters).
            kernelParams: params,
            extra: core::ptr::null_mut(),
            kern: core::ptr::null_mut(),
            ctx: core::ptr::null_mut(),
        };
        f(&raw const node)
    })
}

/// A kernel node of the executable graph whose [`KernelUpdater<'u>`](KernelUpdater) has the
/// same `'u`, of a kernel declared with contract `C`: what
/// [`set_kernel`](KernelUpdater::set_kernel) takes. It cannot leave the update's closure, nor
/// name a node of another executable graph (`'u` is invariant).
#[derive(Debug, Clone, Copy)]
pub struct KernelNode<'u, C> {
    raw: ffi::CUgraphNode,
    function: ffi::CUfunction,
    _marker: PhantomData<(Invariant<'u>, *const ())>,
    _contract: PhantomData<fn() -> C>,
}

/// The kernel nodes of an executable graph, lent by [`GraphExec::update_kernels`] to its
/// closure for the brand `'u`, with the graph's payload bound for `'u`.
///
/// ```text
///   exec.update_kernels(|u, bound| …)               &mut exec: no launch pending
///     u.kernel_node(&add, 0)   -> KernelNode<'u, C> the first node of kernel `add` built
///     u.set_kernel(node, config, args)              cuGraphExecKernelNodeSetParams
/// ```
///
/// What the types promise (C28): the new arguments are checked against the contract as a
/// launch's are, and name only the payload's memory (the closure is `'static`, as the
/// builder's), which the executable graph owns; a node is one of this executable graph's
/// (branded `'u`), running the kernel its contract names (the node's function is the one it
/// was built with).
#[derive(Debug)]
pub struct KernelUpdater<'u> {
    exec: ffi::CUgraphExec,
    kernels: &'u [(ffi::CUgraphNode, ffi::CUfunction)],
    _marker: PhantomData<(Invariant<'u>, *const ())>,
}

static_assertions::assert_not_impl_any!(KernelUpdater<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(KernelNode<'static, ()>: Send, Sync);

impl<P: Payload> GraphExec<'_, P> {
    /// Updates the parameters of the graph's kernel nodes in place, in `f`, which receives a
    /// [`KernelUpdater`] and the payload bound to it: the next launch runs the nodes with the
    /// new parameters. Only a graph built node by node
    /// ([`PushedGuard::build_graph`]) lends its kernel nodes, and only until a whole-graph
    /// [`update`](Self::update) (which may change the functions they run).
    ///
    /// `f` is `'static` (move what it needs in), as the builder's: the new parameters can name
    /// only what the payload owns, so nothing they touch can be freed while this executable
    /// graph lives (C28).
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
    /// let payload = (guard.alloc::<u32>(1024)?, module.declared::<AddU32>()?);
    /// let cfg = LaunchConfig::for_elements(1024);
    /// let graph = guard.build_graph(payload, move |b, (mut x, add)| {
    ///     let set = b.fill_u32(&mut x, 0, &[])?;
    ///     b.kernel(&add, cfg, (&mut x, 2u32, 1024u32), &[set])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// // From now on the kernel node adds 5 to the first 512 elements.
    /// exec.update_kernels(move |u, (mut x, add)| {
    ///     let node = u.kernel_node(&add, 0)?;
    ///     u.set_kernel(node, LaunchConfig::for_elements(512), (&mut x, 5u32, 512u32))
    /// })?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    pub fn update_kernels(
        &mut self,
        f: impl for<'u> FnOnce(&'u KernelUpdater<'u>, P::Bound<'u>) -> Result<()> + 'static,
    ) -> Result<()> {
        crate::error::poison::check()?;
        let (exec, kernels) = (self.as_raw(), core::mem::take(&mut self.kernels));
        let updater = KernelUpdater {
            exec,
            kernels: &kernels,
            _marker: PhantomData,
        };
        // SAFETY: `&mut self`: no launch of the executable graph is pending, and the payload
        // stays where it is, owned by the executable graph, which no host code reaches while
        // `f` runs; the bound handles cannot leave `f` ('u is invariant and `f` is `'static`),
        // and the parameters they go into are the executable graph's, which owns the payload.
        let bound = unsafe { P::bind(self.held_mut()) };
        let result = f(&updater, bound);
        self.kernels = kernels;
        result
    }
}

impl<'u> KernelUpdater<'u> {
    /// The `index`th kernel node (from 0, in the order the builder made them) that launches
    /// `kernel`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if the graph has no such node (or lends no kernel nodes).
    pub fn kernel_node<C: PlainLaunch>(
        &self,
        kernel: &Declared<'u, C>,
        index: usize,
    ) -> Result<KernelNode<'u, C>> {
        let function = kernel.as_raw();
        self.kernels
            .iter()
            .filter(|(_, f)| *f == function)
            .nth(index)
            .map(|&(raw, function)| KernelNode {
                raw,
                function,
                _marker: PhantomData,
                _contract: PhantomData,
            })
            .ok_or_else(|| {
                Error::custack(
                    ErrorKind::InvalidValue,
                    format!("the executable graph has no kernel node {index} of this kernel"),
                )
            })
    }

    /// `cuGraphExecKernelNodeSetParams`—Sets the launch shape and arguments of `node` for the
    /// next launches, checked as [`GraphBuilder::kernel`] checks a new node (the compiler
    /// checks the arguments against the contract; every buffer's length is checked against its
    /// extent for `config` before the update). The arguments are copied into the node.
    ///
    /// # Errors
    ///
    /// As [`GraphBuilder::kernel`] (then the node is unchanged); the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecKernelNodeSetParams")]
    #[allow(clippy::needless_pass_by_value)]
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
}
