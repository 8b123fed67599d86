//! What the nodes a builder makes and the updates of an executable graph's nodes share: the
//! record of a memset, memcpy, host, child-graph or event node ([`DataNode`]: its kind, which
//! an update must keep), the
//! driver's parameters of a copy, a memset and a kernel node, and the contract's checks that a
//! kernel node and its update run before the driver sees them.

use crate::error::Result;
use crate::ffi;
use crate::kernel::contract::{ContractArgs, PlainLaunch};
use crate::kernel::launch::LaunchConfig;

/// A memset, memcpy, host, child-graph or event node a builder made, with what an update of it
/// must keep: its kind (a memset's unit, a copy's memory types and element type, a child
/// graph's node count) and its context.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DataNode {
    pub(crate) raw: ffi::CUgraphNode,
    pub(crate) kind: DataNodeKind,
    pub(crate) ctx: ffi::CUcontext,
}

/// The kernel nodes a builder made, grouped by the function each launches: per function (the
/// groups sorted by its handle), its nodes in the order made. What an update looks up: the
/// `index`th node of a kernel is a binary search among the graph's distinct functions, then an
/// index, whatever the number of nodes.
#[derive(Debug, Default)]
pub(crate) struct KernelNodes {
    by_function: Vec<(ffi::CUfunction, Vec<ffi::CUgraphNode>)>,
}

/// The room a kernel's list of nodes starts with (256 bytes).
const GROUP_CAPACITY: usize = 32;

impl KernelNodes {
    /// The group of `function`: `Ok` its position, `Err` where it would go.
    #[inline]
    fn group(&self, function: ffi::CUfunction) -> core::result::Result<usize, usize> {
        self.by_function
            .binary_search_by_key(&function.addr(), |(f, _)| f.addr())
    }

    /// Records `node`, made after every node recorded before, launching `function`.
    #[inline]
    pub(crate) fn push(&mut self, function: ffi::CUfunction, node: ffi::CUgraphNode) {
        match self.group(function) {
            Ok(i) => {
                if let Some((_, nodes)) = self.by_function.get_mut(i) {
                    if nodes.len() == nodes.capacity() {
                        grow(nodes);
                    }
                    nodes.push(node);
                }
            }
            Err(i) => self.first_of(i, function, node),
        }
    }

    /// Records `node`, the first of `function`, in a new group at `i`. Out of line: once per
    /// kernel of the graph, and inline its allocation and insertion kept registers busy (spills
    /// and reloads) on the path of every other node.
    #[cold]
    #[inline(never)]
    fn first_of(&mut self, i: usize, function: ffi::CUfunction, node: ffi::CUgraphNode) {
        // Room for a chain of nodes of one kernel from the start: a list grown from one
        // element reallocates at 4, 8, 16, 32 and 64 nodes (under callgrind on the checking
        // driver, 26 instructions a node of a 100-node build in the allocator).
        let mut nodes = Vec::with_capacity(GROUP_CAPACITY);
        nodes.push(node);
        self.by_function.insert(i, (function, nodes));
    }

    /// The `index`th node (from 0, in the order made) that launches `function`.
    #[inline]
    pub(crate) fn nth(&self, function: ffi::CUfunction, index: usize) -> Option<ffi::CUgraphNode> {
        let i = self.group(function).ok()?;
        self.by_function.get(i)?.1.get(index).copied()
    }

    /// Whether no kernel node is recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_function.is_empty()
    }
}

/// Doubles the room of a full list of nodes by a fresh allocation, the nodes copied, the old
/// one freed, where `Vec::push` would `realloc`: the C library's `realloc` of a block it
/// cannot extend in place takes its slow path (a search of its bins, the copy, a free into
/// them), about 680 instructions for each of a 100-node build's two growths under callgrind on
/// the checking driver, where a fresh block of a size just freed (the lists of the graph
/// before) comes from the allocator's per-thread cache. Out of line: once per doubling.
#[cold]
#[inline(never)]
fn grow(nodes: &mut Vec<ffi::CUgraphNode>) {
    let mut grown = Vec::with_capacity(nodes.capacity().saturating_mul(2).max(GROUP_CAPACITY));
    grown.extend_from_slice(nodes);
    *nodes = grown;
}

/// The nodes of an executable graph its updater disabled (`cuGraphNodeSetEnabled`) and did
/// not enable again, by the driver's handle, and whether one was disabled when its node lists
/// were forgotten (it parked). The driver keeps a disabled node disabled through a whole-graph
/// update (`cuGraphExecUpdate`: measured on driver 580, the new graph's node at its place does
/// not run), and custack lends no node after that update, so such a node could never run
/// again: [`GraphExec::update`](super::GraphExec::update) refuses while any is disabled.
#[derive(Default)]
pub(crate) struct DisabledNodes {
    /// No borrow flag: the whole list is taken and put back (one updater, `&mut` on the graph).
    lent: core::cell::Cell<Vec<ffi::CUgraphNode>>,
    unlent: bool,
}

impl core::fmt::Debug for DisabledNodes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DisabledNodes")
            .field("lent", &self.lent_disabled())
            .field("unlent", &self.unlent)
            .finish()
    }
}

impl DisabledNodes {
    /// The record of an executable graph whose nodes are not lent (attached after it parked):
    /// `unlent` if a node was disabled when it parked.
    pub(crate) fn unlent(unlent: bool) -> Self {
        DisabledNodes {
            lent: core::cell::Cell::new(Vec::new()),
            unlent,
        }
    }

    /// `node` was enabled or disabled.
    pub(crate) fn noted(&self, node: ffi::CUgraphNode, enabled: bool) {
        let mut list = self.lent.take();
        if enabled {
            list.retain(|&n| n != node);
        } else if !list.contains(&node) {
            list.push(node);
        }
        self.lent.set(list);
    }

    /// How many lent nodes are disabled.
    pub(crate) fn lent_disabled(&self) -> usize {
        let list = self.lent.take();
        let count = list.len();
        self.lent.set(list);
        count
    }

    /// Whether a node was disabled when the node lists were forgotten.
    pub(crate) fn disabled_unlent(&self) -> bool {
        self.unlent
    }

    /// Whether any node is disabled, lent or not.
    pub(crate) fn any_disabled(&self) -> bool {
        self.unlent || self.lent_disabled() > 0
    }
}

/// The memset, memcpy, host, child-graph, event record and event wait nodes a builder made,
/// each kind in the order made: the `index`th of a kind is an index.
#[derive(Debug, Default)]
pub(crate) struct DataNodes {
    /// One list per [`NodeClass`], in its order.
    by_class: [Vec<DataNode>; NodeClass::COUNT],
}

impl DataNodes {
    /// Records `node`, made after every node of its kind recorded before.
    #[inline]
    pub(crate) fn push(&mut self, node: DataNode) {
        if let Some(nodes) = self.by_class.get_mut(node.kind.class() as usize) {
            nodes.push(node);
        }
    }

    /// The `index`th node of `class` (from 0, in the order made).
    #[inline]
    pub(crate) fn nth(&self, class: NodeClass, index: usize) -> Option<&DataNode> {
        self.by_class.get(class as usize)?.get(index)
    }

    /// How many nodes of `class` are recorded.
    pub(crate) fn count(&self, class: NodeClass) -> usize {
        self.by_class.get(class as usize).map_or(0, Vec::len)
    }

    /// Whether no node is recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_class.iter().all(Vec::is_empty)
    }
}

/// The kinds of node a [`DataNodes`] lists apart, each numbered by its list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NodeClass {
    /// Memset nodes.
    Fill,
    /// Memcpy nodes.
    Copy,
    /// Host nodes.
    Host,
    /// Child-graph nodes.
    Child,
    /// Event record nodes.
    Record,
    /// Event wait nodes.
    Wait,
}

impl NodeClass {
    /// The number of classes.
    const COUNT: usize = 6;

    /// The driver's name of the class, for errors.
    pub(crate) fn name(self) -> &'static str {
        match self {
            NodeClass::Fill => "memset",
            NodeClass::Copy => "memcpy",
            NodeClass::Host => "host",
            NodeClass::Child => "child-graph",
            NodeClass::Record => "event record",
            NodeClass::Wait => "event wait",
        }
    }
}

/// What a [`DataNode`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DataNodeKind {
    /// A memset of `unit`-byte units.
    Fill { unit: u32 },
    /// A 1D copy between these memory types (`CU_MEMORYTYPE_*`) of elements of this type.
    Copy {
        dst: core::ffi::c_uint,
        src: core::ffi::c_uint,
        elem: &'static str,
    },
    /// A host node, the `index`th of its graph (where an executable graph keeps the closure
    /// an update gives it).
    Host { index: usize },
    /// A child-graph node whose graph had `nodes` nodes when it was added (what an update's
    /// graph must have too).
    Child { nodes: usize },
    /// An event record node.
    Record,
    /// An event wait node.
    Wait,
}

impl DataNodeKind {
    /// The list the node is kept in.
    pub(crate) fn class(self) -> NodeClass {
        match self {
            DataNodeKind::Fill { .. } => NodeClass::Fill,
            DataNodeKind::Copy { .. } => NodeClass::Copy,
            DataNodeKind::Host { .. } => NodeClass::Host,
            DataNodeKind::Child { .. } => NodeClass::Child,
            DataNodeKind::Record => NodeClass::Record,
            DataNodeKind::Wait => NodeClass::Wait,
        }
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
#[inline]
pub(crate) fn with_kernel_params<'s, C: PlainLaunch, A: ContractArgs<'s, C>, R>(
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A handle that is only a key here (never passed to the driver).
    fn handle<T>(n: usize) -> *mut T {
        core::ptr::without_provenance_mut(n)
    }

    /// A node disabled twice counts once, enabled once it counts no more; a node never
    /// disabled, enabled, changes nothing; the record of a graph that parked with a node
    /// disabled says so with no node lent.
    #[test]
    fn disabled_nodes_count_each_node_once_until_it_is_enabled() {
        let d = DisabledNodes::default();
        assert!(!d.any_disabled());
        let (a, b) = (handle(0x10), handle(0x20));
        d.noted(a, false);
        d.noted(a, false);
        d.noted(b, true);
        assert_eq!((d.lent_disabled(), d.any_disabled()), (1, true));
        d.noted(b, false);
        d.noted(a, true);
        assert_eq!((d.lent_disabled(), d.any_disabled()), (1, true));
        d.noted(b, true);
        assert_eq!(
            (d.lent_disabled(), d.any_disabled(), d.disabled_unlent()),
            (0, false, false)
        );
        let parked = DisabledNodes::unlent(true);
        assert_eq!(
            (
                parked.lent_disabled(),
                parked.any_disabled(),
                parked.disabled_unlent()
            ),
            (0, true, true)
        );
        assert!(!DisabledNodes::unlent(false).any_disabled());
    }

    #[test]
    fn a_kernel_s_nth_node_is_its_own_nth_in_build_order() {
        let (f, g, h) = (handle(0x300), handle(0x100), handle(0x200));
        let mut k = KernelNodes::default();
        assert!(k.is_empty());
        // Interleaved: f, g, f, h, g, f (h's handle between the other two: groups stay sorted).
        for (function, node) in [(f, 1), (g, 2), (f, 3), (h, 4), (g, 5), (f, 6)] {
            k.push(function, handle(node));
        }
        assert!(!k.is_empty());
        let nodes = |function| {
            (0..4)
                .map(|i| k.nth(function, i).map(<*mut _>::addr))
                .collect::<Vec<_>>()
        };
        assert_eq!(nodes(f), [Some(1), Some(3), Some(6), None]);
        assert_eq!(nodes(g), [Some(2), Some(5), None, None]);
        assert_eq!(nodes(h), [Some(4), None, None, None]);
        assert_eq!(
            nodes(handle(0x250)),
            [None; 4],
            "no node of an unknown kernel"
        );
    }

    #[test]
    fn a_kernel_s_list_keeps_its_nodes_in_order_through_each_growth() {
        // Past two doublings of one kernel's list (32 and 64 nodes), another kernel's nodes
        // interleaved: every node stays the nth of its own kernel.
        let (f, g) = (handle(0x100), handle(0x200));
        let mut k = KernelNodes::default();
        for n in 0..(4 * GROUP_CAPACITY + 3) {
            k.push(f, handle(2 * n + 1));
            if n % 3 == 0 {
                k.push(g, handle(2 * n + 2));
            }
        }
        for n in 0..(4 * GROUP_CAPACITY + 3) {
            assert_eq!(
                k.nth(f, n).map(<*mut _>::addr),
                Some(2 * n + 1),
                "node {n} of f"
            );
        }
        assert_eq!(k.nth(f, 4 * GROUP_CAPACITY + 3), None);
        for (i, n) in (0..(4 * GROUP_CAPACITY + 3)).step_by(3).enumerate() {
            assert_eq!(
                k.nth(g, i).map(<*mut _>::addr),
                Some(2 * n + 2),
                "node {i} of g"
            );
        }
    }

    #[test]
    fn a_host_child_or_event_node_s_index_counts_its_own_kind_only() {
        let ctx = handle(0x10);
        let node = |n, kind| DataNode {
            raw: handle(n),
            kind,
            ctx,
        };
        let mut d = DataNodes::default();
        for n in [
            node(1, DataNodeKind::Host { index: 0 }),
            node(2, DataNodeKind::Record),
            node(3, DataNodeKind::Child { nodes: 3 }),
            node(4, DataNodeKind::Wait),
            node(5, DataNodeKind::Host { index: 1 }),
            node(6, DataNodeKind::Record),
        ] {
            d.push(n);
        }
        let nodes = |class| {
            (0..3)
                .map(|i| d.nth(class, i).map(|n| n.raw.addr()))
                .collect::<Vec<_>>()
        };
        assert_eq!(nodes(NodeClass::Host), [Some(1), Some(5), None]);
        assert_eq!(nodes(NodeClass::Record), [Some(2), Some(6), None]);
        assert_eq!(nodes(NodeClass::Child), [Some(3), None, None]);
        assert_eq!(nodes(NodeClass::Wait), [Some(4), None, None]);
        assert_eq!(nodes(NodeClass::Fill), [None; 3]);
        assert_eq!(d.count(NodeClass::Host), 2);
        assert!(
            d.nth(NodeClass::Child, 0)
                .is_some_and(|n| n.kind == DataNodeKind::Child { nodes: 3 })
        );
    }

    #[test]
    fn a_memset_or_memcpy_node_s_index_counts_its_own_kind_only() {
        let ctx = handle(0x10);
        let fill = |n| DataNode {
            raw: handle(n),
            kind: DataNodeKind::Fill { unit: 4 },
            ctx,
        };
        let copy = |n| DataNode {
            raw: handle(n),
            kind: DataNodeKind::Copy {
                dst: ffi::CU_MEMORYTYPE_HOST,
                src: ffi::CU_MEMORYTYPE_DEVICE,
                elem: "u32",
            },
            ctx,
        };
        let mut d = DataNodes::default();
        assert!(d.is_empty());
        for node in [copy(1), fill(2), fill(3), copy(4), fill(5)] {
            d.push(node);
        }
        assert!(!d.is_empty());
        let nodes = |class| {
            (0..4)
                .map(|i| d.nth(class, i).map(|n| n.raw.addr()))
                .collect::<Vec<_>>()
        };
        assert_eq!(nodes(NodeClass::Fill), [Some(2), Some(3), Some(5), None]);
        assert_eq!(nodes(NodeClass::Copy), [Some(1), Some(4), None, None]);
        assert!(
            d.nth(NodeClass::Fill, 0)
                .is_some_and(|n| n.kind == DataNodeKind::Fill { unit: 4 })
        );
        assert_eq!(nodes(NodeClass::Host), [None; 4]);
    }
}
