//! Memory allocation and free nodes of a graph built node by node
//! ([`GraphBuilder::alloc`], [`GraphBuilder::free`]): a [`GraphAlloc`] is device memory that
//! exists from its allocation node to its free node, in graph order, and the builder checks that
//! every node that uses it lies between the two.
//!
//! How a use is seen: the allocation's pointer leaves it only when a node is being made (as
//! the [`ScopedRead`](crate::ScopedRead) or [`ScopedWrite`](crate::ScopedWrite) side of a
//! memset or copy, or a kernel argument); each time, the allocation notes its use in a
//! per-thread list, which the next node the builder makes takes. The root graph's [`Tracker`] then checks the node's ancestors (the dependencies named
//! and everything before them) against the allocation's node, and keeps the node among the
//! allocation's users, which its free node must come after. A conditional node's body has no
//! tracker: a node of a body that uses an allocation is refused. A use noted by a method that
//! then failed before making its node is taken by the next node made: a check stricter than
//! needed, never a missed one.

use super::{GraphBuilder, GraphNode};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::vocabulary::binding::{GraphAlloc, take_uses};
use crate::vocabulary::plain::DeviceCopy;
use core::cell::RefCell;
use std::collections::HashMap;

/// The numbers of the trackers, one per build.
static NEXT_TRACKER: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(1);

/// A set of node numbers.
type Bits = Vec<u64>;

fn has(bits: &Bits, i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

fn set(bits: &mut Bits, i: usize) {
    if bits.len() <= i / 64 {
        bits.resize(i / 64 + 1, 0);
    }
    if let Some(w) = bits.get_mut(i / 64) {
        *w |= 1 << (i % 64);
    }
}

/// One allocation of the build: its node's number, the nodes that used it, whether freed.
#[derive(Debug)]
struct Alloc {
    node: usize,
    users: Vec<usize>,
    freed: bool,
}

/// The root graph's nodes made since its first allocation node (numbered in that order), each
/// with its ancestors among them, and the allocations.
#[derive(Debug, Default)]
struct State {
    index: HashMap<usize, usize>,
    ancestors: Vec<Bits>,
    allocs: Vec<Alloc>,
}

/// What a node is to the allocations: one that may use some, an allocation node, or the free
/// node of allocation `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// Any other node.
    Plain,
    /// An allocation node.
    Alloc,
    /// The free node of allocation `n`.
    Free(usize),
}

/// A node checked, to be kept once the driver made it: its ancestors, the allocations it uses,
/// its role.
#[derive(Debug)]
pub(super) struct Plan {
    ancestors: Bits,
    uses: Vec<usize>,
    role: Role,
}

/// The reachability of the root graph's nodes, as far as allocations need it.
#[derive(Debug)]
pub(super) struct Tracker {
    id: u64,
    state: RefCell<State>,
}

impl Tracker {
    pub(super) fn new() -> Self {
        Self {
            id: NEXT_TRACKER.fetch_add(1, core::sync::atomic::Ordering::Relaxed),
            state: RefCell::new(State::default()),
        }
    }

    /// Checks a node about to be made after `deps` in the role `role`, taking the uses noted
    /// for it: every allocation it uses is live and its allocation node among the node's
    /// ancestors; a free node has its allocation's node and every user among them.
    pub(super) fn plan(
        &self,
        deps: impl IntoIterator<Item = ffi::CUgraphNode>,
        role: Role,
    ) -> Result<Plan> {
        let noted = take_uses();
        let state = self.state.borrow();
        let mut ancestors = Bits::new();
        for d in deps {
            if let Some(&i) = state.index.get(&(d as usize)) {
                set(&mut ancestors, i);
                if let Some(a) = state.ancestors.get(i) {
                    for (k, w) in a.iter().enumerate() {
                        if ancestors.len() <= k {
                            ancestors.resize(k + 1, 0);
                        }
                        if let Some(x) = ancestors.get_mut(k) {
                            *x |= w;
                        }
                    }
                }
            }
        }
        let mut uses = Vec::new();
        for (tracker, n) in noted {
            if tracker != self.id {
                // Noted in a build that ended before making its node: no allocation of this one.
                continue;
            }
            let a = state
                .allocs
                .get(n)
                .ok_or_else(|| refused("an unknown graph allocation"))?;
            if a.freed {
                return Err(refused(
                    "a node uses a graph allocation after its free node was made",
                ));
            }
            if !has(&ancestors, a.node) {
                return Err(refused(
                    "a node uses a graph allocation without its allocation node among its \
                     ancestors: name that node, or a node after it, among the dependencies",
                ));
            }
            uses.push(n);
        }
        if let Role::Free(n) = role {
            let a = state
                .allocs
                .get(n)
                .ok_or_else(|| refused("an unknown graph allocation"))?;
            if a.freed {
                return Err(refused("a graph allocation freed twice"));
            }
            if !has(&ancestors, a.node) {
                return Err(refused(
                    "a free node of a graph allocation without its allocation node among its \
                     ancestors",
                ));
            }
            if let Some(u) = a.users.iter().find(|&&u| !has(&ancestors, u)) {
                let user = state.index.iter().find(|&(_, &i)| i == *u).map(|(r, _)| *r);
                return Err(refused(&format!(
                    "a free node of a graph allocation without every node that used it among \
                     its ancestors (node {:#x} is not): name them, or nodes after them, among \
                     the dependencies",
                    user.unwrap_or(0)
                )));
            }
        }
        Ok(Plan {
            ancestors,
            uses,
            role,
        })
    }

    /// Keeps node `raw`, made as `plan` checked; for an allocation node, returns its number.
    pub(super) fn made(&self, raw: ffi::CUgraphNode, plan: Plan) -> usize {
        let mut state = self.state.borrow_mut();
        if state.allocs.is_empty() && plan.role != Role::Alloc {
            // Before the first allocation node: no node is after one, nor its user.
            return 0;
        }
        let i = state.ancestors.len();
        state.index.insert(raw as usize, i);
        state.ancestors.push(plan.ancestors);
        for n in plan.uses {
            if let Some(a) = state.allocs.get_mut(n) {
                a.users.push(i);
            }
        }
        match plan.role {
            Role::Plain => 0,
            Role::Alloc => {
                state.allocs.push(Alloc {
                    node: i,
                    users: Vec::new(),
                    freed: false,
                });
                state.allocs.len() - 1
            }
            Role::Free(n) => {
                if let Some(a) = state.allocs.get_mut(n) {
                    a.freed = true;
                }
                0
            }
        }
    }

    /// Whether every allocation was freed.
    pub(super) fn all_freed(&self) -> Result<()> {
        let state = self.state.borrow();
        let unfreed = state.allocs.iter().filter(|a| !a.freed).count();
        if unfreed == 0 {
            Ok(())
        } else {
            Err(refused(&format!(
                "{unfreed} graph allocation(s) not freed by the end of the build: every \
                 allocation node needs a free node in the same graph"
            )))
        }
    }
}

/// Refuses, in a conditional node's body, a node that uses an allocation (taking the uses).
pub(super) fn none_in_body() -> Result<()> {
    if take_uses().is_empty() {
        Ok(())
    } else {
        Err(refused(
            "a graph allocation is not usable in a conditional node's body",
        ))
    }
}

fn refused(what: &str) -> Error {
    Error::custack(ErrorKind::InvalidValue, what.to_owned())
}

/// Memory allocation and free nodes: only in the root graph (the driver takes no memory node
/// in a conditional node's body nor in a child graph).
impl<'b> GraphBuilder<'b> {
    /// `cuGraphAddMemAllocNode`—Adds an allocation of `len` elements of `T` after `deps` and
    /// returns the node with the memory, a [`GraphAlloc`] that later nodes of this build use
    /// (`&mut a` to write, `&a` to read) and that [`free`](Self::free) frees. The memory exists
    /// at each launch from this node until its free node: every node that uses it must have
    /// this node among its ancestors (the builder refuses one that does not), and every
    /// allocation must be freed in the graph before the build ends.
    ///
    /// An allocation that outlives the launch (freed by a later launch or outside the graph)
    /// is not offered: its memory would belong to no value of the program, a relaunch before
    /// its free fails in the driver, and nothing would free it if the program forgot to. Freed
    /// within the graph, every launch is whole and can be repeated.
    ///
    /// The driver allows one executable graph at a time of a graph with memory nodes (a second
    /// [`instantiate`](crate::Graph::instantiate) while the first lives fails), and neither
    /// clones it nor takes it as a child graph: those calls return the driver's error.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if `len` is 0 or `T` is zero-sized, [`ErrorKind::SizeOverflow`];
    /// the driver's errors.
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
    /// let payload = (module.declared::<AddU32>()?, vec![0u32; 1024]);
    /// let graph = guard.build_graph(payload, |b, (add, out)| {
    ///     let (made, mut x) = b.alloc::<u32>(1024, &[])?;
    ///     let set = b.fill_u32(&mut x, 40, &[made])?;
    ///     let cfg = LaunchConfig::for_elements(1024);
    ///     let added = b.kernel(&add, cfg, (&mut x, 2u32, 1024u32), &[set])?;
    ///     let copied = b.copy_to_host(out, &x, &[added])?;
    ///     b.free(x, &[copied])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// let stream = guard.stream()?;
    /// exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// assert!(exec.payload().1.iter().all(|&v| v == 42));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemAllocNode")]
    pub fn alloc<T: DeviceCopy>(
        &self,
        len: usize,
        deps: &[GraphNode<'b>],
    ) -> Result<(GraphNode<'b>, GraphAlloc<'b, T>)> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(|| {
            Error::custack(ErrorKind::SizeOverflow, "graph allocation".to_owned())
        })?;
        if bytes == 0 {
            return Err(refused("a graph allocation of 0 bytes"));
        }
        let mut device = 0;
        // SAFETY: a valid out-pointer; the builder's context is current.
        unsafe { ffi::cuCtxGetDevice(&raw mut device) }.result()?;
        let mut params = ffi::CUDA_MEM_ALLOC_NODE_PARAMS {
            poolProps: ffi::CUmemPoolProps {
                allocType: ffi::CU_MEM_ALLOCATION_TYPE_PINNED,
                handleTypes: ffi::CU_MEM_HANDLE_TYPE_NONE,
                location: ffi::CUmemLocation {
                    type_: ffi::CU_MEM_LOCATION_TYPE_DEVICE,
                    id: device,
                },
                win32SecurityAttributes: core::ptr::null_mut(),
                maxSize: 0,
                usage: 0,
                reserved: [0; 54],
            },
            accessDescs: core::ptr::null(),
            accessDescCount: 0,
            bytesize: bytes,
            dptr: 0,
        };
        let (node, index) = self.add_as(deps, Role::Alloc, |out, graph, deps, n| {
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes;
            // `params` is valid for reads and for the driver's write of `dptr`, for this call.
            unsafe { ffi::cuGraphAddMemAllocNode(out, graph, deps, n, &raw mut params) }
        })?;
        let tracker = self.mem.as_ref().map_or(0, |t| t.id);
        // SAFETY: the memory of the allocation node just made, of `bytes` bytes, numbered
        // `index` in this build's tracker `tracker`.
        Ok((node, unsafe {
            GraphAlloc::from_raw_parts(params.dptr, len, tracker, index)
        }))
    }

    /// `cuGraphAddMemFreeNode`—Adds the free of `alloc` after `deps`, which must have every
    /// node that used it among their ancestors (or be those nodes); it consumes `alloc`, so no
    /// later node can use it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no node made) if a node that used `alloc`, or its
    /// allocation node, is not among the ancestors of `deps`; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemFreeNode")]
    #[allow(clippy::needless_pass_by_value)]
    pub fn free<T: DeviceCopy>(
        &self,
        alloc: GraphAlloc<'b, T>,
        deps: &[GraphNode<'b>],
    ) -> Result<GraphNode<'b>> {
        let (ptr, index) = (alloc.device_ptr(), alloc.index());
        let (node, _) = self.add_as(deps, Role::Free(index), |out, graph, deps, n| {
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes; `ptr`
            // is the memory of an allocation node of this graph, not freed before (`alloc` is
            // consumed here), and every node that used it comes before (checked).
            unsafe { ffi::cuGraphAddMemFreeNode(out, graph, deps, n, ptr) }
        })?;
        Ok(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::binding::note_use;

    fn node(n: usize) -> ffi::CUgraphNode {
        // A node handle is only a key here.
        n as ffi::CUgraphNode
    }

    /// Makes node `raw` after `deps` in `role` through `t`, as the builder does.
    fn make(t: &Tracker, raw: usize, deps: &[usize], role: Role) -> Result<usize> {
        let plan = t.plan(deps.iter().map(|&d| node(d)), role)?;
        Ok(t.made(node(raw), plan))
    }

    #[test]
    fn a_use_needs_the_allocation_node_among_its_ancestors() {
        let t = Tracker::new();
        make(&t, 1, &[], Role::Plain).ok();
        let a = make(&t, 2, &[1], Role::Alloc).unwrap_or(usize::MAX);
        // Node 3 after node 1 only: not after the allocation node.
        note_use(t.id, a);
        let err = make(&t, 3, &[1], Role::Plain).err();
        assert!(err.is_some_and(|e| e.kind() == ErrorKind::InvalidValue));
        // Node 4 after node 5, itself after the allocation: accepted (ancestors are transitive).
        assert!(make(&t, 5, &[2], Role::Plain).is_ok());
        note_use(t.id, a);
        assert!(make(&t, 4, &[5], Role::Plain).is_ok());
        // Freed after node 5 only: node 4, a user, is not among its ancestors.
        assert!(make(&t, 6, &[5], Role::Free(a)).is_err());
        assert!(t.all_freed().is_err(), "the refused free freed nothing");
        assert!(make(&t, 7, &[4], Role::Free(a)).is_ok());
        assert!(t.all_freed().is_ok());
        // A use after the free, a second free: refused.
        note_use(t.id, a);
        assert!(make(&t, 8, &[7], Role::Plain).is_err());
        assert!(make(&t, 9, &[7], Role::Free(a)).is_err());
    }

    #[test]
    fn a_free_needs_every_user_and_the_allocation_node() {
        let t = Tracker::new();
        let a = make(&t, 1, &[], Role::Alloc).unwrap_or(usize::MAX);
        let b = make(&t, 2, &[], Role::Alloc).unwrap_or(usize::MAX);
        // Free of `a` after `b`'s node only.
        assert!(make(&t, 3, &[2], Role::Free(a)).is_err());
        // Two users of `a` on two branches; the free after one branch is refused.
        note_use(t.id, a);
        make(&t, 4, &[1], Role::Plain).ok();
        note_use(t.id, a);
        note_use(t.id, b);
        assert!(make(&t, 5, &[1, 2], Role::Plain).is_ok());
        assert!(make(&t, 6, &[4], Role::Free(a)).is_err());
        assert!(make(&t, 7, &[4, 5], Role::Free(a)).is_ok());
        assert!(t.all_freed().is_err(), "b is not freed");
        assert!(make(&t, 8, &[5], Role::Free(b)).is_ok());
        assert!(t.all_freed().is_ok());
    }

    #[test]
    fn uses_of_another_build_are_dropped_and_bodies_refuse_uses() {
        let t = Tracker::new();
        note_use(t.id + 1_000_000, 0);
        assert!(make(&t, 1, &[], Role::Plain).is_ok());
        note_use(t.id, 0);
        assert!(none_in_body().is_err());
        assert!(none_in_body().is_ok(), "the uses were taken");
    }
}
