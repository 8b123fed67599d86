//! The order of a graph's memory nodes: which nodes of the root graph being built come after
//! which (each node's ancestors, as a set of node numbers), and the graph allocations' nodes
//! and users, so that [`GraphBuilder`](super::GraphBuilder) refuses a node that uses an
//! allocation it does not come after, a free node that does not come after every user, and a
//! build that leaves an allocation unfreed.
//!
//! How a use is seen: the allocation's pointer leaves it only when a node is being made (as
//! the [`ScopedRead`](crate::ScopedRead) or [`ScopedWrite`](crate::ScopedWrite) side of a
//! memset or copy, or a kernel argument); each time, the allocation notes its use in a
//! per-thread list, which the next node the builder makes takes. The root graph's [`Tracker`]
//! then checks the node's ancestors (the dependencies named and everything before them) against
//! the allocation's node, and keeps the node among the allocation's users, which its free node
//! must come after. A conditional node's body has no tracker: a node of a body that uses an
//! allocation is refused. A use noted by a method that then failed before making its node is
//! taken by the next node made: a check stricter than needed, never a missed one.

use super::kept::record::KeptAlloc;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::vocabulary::binding::{forget_uses_of, take_uses, used_in_capture, uses_noted};
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

/// One allocation of the build: its node's number, the nodes that used it, whether freed,
/// whether kept (no free node frees it: `alloc_kept`).
#[derive(Debug)]
struct Alloc {
    node: usize,
    users: Vec<usize>,
    freed: bool,
    kept: bool,
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
    /// An allocation node whose memory no free node frees (it outlives the launch).
    Kept,
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
    /// Whether `state` lists an allocation node: set as the first is kept (in
    /// [`made`](Self::made)), never cleared (a build's allocations are never forgotten). What
    /// [`plan`](Self::plan)'s fast path reads, one load, where `state.allocs` would take a
    /// borrow's check.
    has_allocs: core::cell::Cell<bool>,
    /// The kept allocations made, in order.
    kept: RefCell<Vec<KeptAlloc>>,
}

impl Tracker {
    pub(super) fn new() -> Self {
        Self {
            id: NEXT_TRACKER.fetch_add(1, core::sync::atomic::Ordering::Relaxed),
            state: RefCell::new(State::default()),
            has_allocs: core::cell::Cell::new(false),
            kept: RefCell::new(Vec::new()),
        }
    }

    /// Records a kept allocation just made.
    pub(super) fn keep(&self, alloc: KeptAlloc) {
        self.kept.borrow_mut().push(alloc);
    }

    /// The kept allocations made, in order.
    pub(super) fn take_kept(&self) -> Vec<KeptAlloc> {
        self.kept.take()
    }

    /// The tracker's number, which its build's allocations carry.
    pub(super) fn id(&self) -> u64 {
        self.id
    }

    /// Checks a node about to be made after `deps` in the role `role`, taking the uses noted
    /// for it: every allocation it uses is live and its allocation node among the node's
    /// ancestors; a free node has its allocation's node and every user among them.
    ///
    /// `None` where there is nothing to keep: a plain node before the first allocation node
    /// (no node can use, free or follow an allocation yet, and [`made`](Self::made) would keep
    /// no such node). That is the path of every node of a graph without memory nodes, most
    /// graphs: no lookup of its dependencies, no plan made, moved or kept.
    // Always: with `#[inline]` alone the compiler kept it out of line (a call, a prologue and
    // a Result through memory per node), 35 of the builder's ~190 instructions per kernel
    // node, measured under callgrind.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(super) fn plan(
        &self,
        deps: impl IntoIterator<Item = ffi::CUgraphNode>,
        role: Role,
    ) -> Result<Option<Plan>> {
        // The common case, checked first and inline: nothing noted, no allocation node yet.
        // `uses_noted` is one load of a flag that is false only while the list of uses is
        // empty, so the list (whose thread-local access costs more) is taken only where a use
        // may be in it, or where the node needs the slow path anyway.
        if role == Role::Plain && !uses_noted() && !self.has_allocs.get() {
            return Ok(None);
        }
        self.plan_noted(deps, role, take_uses())
    }

    /// [`plan`](Self::plan) where a use is noted, an allocation node made, or the node is a
    /// memory node: out of line.
    #[inline(never)]
    fn plan_noted(
        &self,
        deps: impl IntoIterator<Item = ffi::CUgraphNode>,
        role: Role,
        noted: Vec<(u64, usize)>,
    ) -> Result<Option<Plan>> {
        if role == Role::Plain && self.state.borrow().allocs.is_empty() {
            if noted.iter().any(|&(tracker, _)| tracker == self.id) {
                return Err(refused("an unknown graph allocation"));
            }
            return Ok(None);
        }
        self.plan_after_allocs(deps, role, noted).map(Some)
    }

    /// [`plan`](Self::plan) once the build has an allocation node, or for a memory node.
    #[inline(never)]
    fn plan_after_allocs(
        &self,
        deps: impl IntoIterator<Item = ffi::CUgraphNode>,
        role: Role,
        noted: Vec<(u64, usize)>,
    ) -> Result<Plan> {
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
            if a.kept {
                return Err(refused(
                    "a kept graph allocation (alloc_kept) is freed by the program that takes it \
                     after the launch, not by a free node",
                ));
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
        if state.allocs.is_empty() && !matches!(plan.role, Role::Alloc | Role::Kept) {
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
            Role::Alloc | Role::Kept => {
                state.allocs.push(Alloc {
                    node: i,
                    users: Vec::new(),
                    freed: false,
                    kept: plan.role == Role::Kept,
                });
                self.has_allocs.set(true);
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

    /// Whether every allocation was freed, and none was used by work captured into the graph.
    pub(super) fn all_freed(&self) -> Result<()> {
        if used_in_capture(self.id, false) {
            return Err(refused(
                "a graph allocation used while a capture into the graph ran \
                 (GraphBuilder::capture): the driver made the captured nodes, so the builder \
                 cannot check them against the allocation's and free's nodes; use it in the \
                 builder's own nodes, outside the capture's closure",
            ));
        }
        let state = self.state.borrow();
        let unfreed = state.allocs.iter().filter(|a| !a.freed && !a.kept).count();
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

impl Drop for Tracker {
    fn drop(&mut self) {
        // The build is over: its mark, if any, is cleared, and the uses of its allocations a
        // failed call noted without a node to take them (its allocations are gone with it), so
        // that no later build's node, or a conditional body that refuses every noted use, sees
        // them.
        used_in_capture(self.id, true);
        forget_uses_of(self.id);
    }
}

/// Refuses, in a conditional node's body, a node that uses an allocation (taking the uses).
pub(super) fn none_in_body() -> Result<()> {
    if !uses_noted() || take_uses().is_empty() {
        Ok(())
    } else {
        Err(refused(
            "a graph allocation is not usable in a conditional node's body",
        ))
    }
}

pub(super) fn refused(what: &str) -> Error {
    Error::custack(ErrorKind::InvalidValue, what.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::binding::note_use;

    fn node(n: usize) -> ffi::CUgraphNode {
        // A node handle is only a key here.
        core::ptr::without_provenance_mut(n)
    }

    /// Makes node `raw` after `deps` in `role` through `t`, as the builder does.
    fn make(t: &Tracker, raw: usize, deps: &[usize], role: Role) -> Result<usize> {
        let plan = t.plan(deps.iter().map(|&d| node(d)), role)?;
        Ok(plan.map_or(0, |plan| t.made(node(raw), plan)))
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

    /// A use a failed call noted, which no node took, goes with its build: a later conditional
    /// body (which refuses every noted use) and a later build do not see it; another live
    /// build's noted use stays.
    #[test]
    fn a_build_s_untaken_uses_end_with_it() {
        let (t, other) = (Tracker::new(), Tracker::new());
        let a = make(&t, 1, &[], Role::Alloc).unwrap_or(usize::MAX);
        note_use(t.id, a);
        drop(t);
        assert!(none_in_body().is_ok(), "the ended build's use is gone");
        note_use(other.id, 0);
        let ended = Tracker::new();
        note_use(ended.id, 0);
        drop(ended);
        assert!(none_in_body().is_err(), "the live build's use stays");
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
    fn a_kept_allocation_needs_no_free_refuses_one_and_still_orders_its_uses() {
        let t = Tracker::new();
        make(&t, 1, &[], Role::Plain).ok();
        let k = make(&t, 2, &[], Role::Kept).unwrap_or(usize::MAX);
        assert!(
            t.all_freed().is_ok(),
            "a kept allocation is freed after the launch"
        );
        // A use not after its allocation node: refused, as for any allocation.
        note_use(t.id, k);
        assert!(make(&t, 3, &[1], Role::Plain).is_err());
        note_use(t.id, k);
        assert!(make(&t, 4, &[2], Role::Plain).is_ok());
        // Its free node: refused, even after every use.
        assert!(make(&t, 5, &[4], Role::Free(k)).is_err());
        let a = make(&t, 6, &[], Role::Alloc).unwrap_or(usize::MAX);
        assert!(
            t.all_freed().is_err(),
            "a plain allocation still needs its free"
        );
        assert!(make(&t, 7, &[6], Role::Free(a)).is_ok());
        assert!(t.all_freed().is_ok());
    }

    #[test]
    fn a_use_inside_a_capture_into_the_graph_refuses_the_build() {
        use crate::vocabulary::binding::CapturingUses;
        let t = Tracker::new();
        let a = make(&t, 1, &[], Role::Alloc).unwrap_or(usize::MAX);
        // A use noted for the builder's next node before the capture stays that node's.
        note_use(t.id, a);
        let inside = CapturingUses::enter();
        // A captured memset over the allocation: a node the builder never sees.
        note_use(t.id, a);
        drop(inside);
        assert!(
            make(&t, 2, &[], Role::Plain).is_err(),
            "the earlier use was kept"
        );
        // The captured node is no user the tracker knows: the free after the allocation node
        // alone passes its own check, so the build's end must refuse.
        assert!(make(&t, 3, &[1], Role::Free(a)).is_ok());
        let end = t.all_freed();
        assert!(end.is_err_and(|e| e.to_string().contains("GraphBuilder::capture")));
        // Another build is not marked.
        let other = Tracker::new();
        assert!(other.all_freed().is_ok());
        let id = t.id;
        drop(t);
        assert!(!used_in_capture(id, false), "the mark goes with its build");
    }

    #[test]
    fn a_use_noted_before_any_allocation_node_is_seen_by_the_next_node() {
        // The fast path (a plain node, no allocation node yet) skips the list of uses only
        // while nothing is noted: a use of this build's allocation 0, which no node made, is
        // still refused there, and taken (the node after it passes).
        let t = Tracker::new();
        assert!(make(&t, 1, &[], Role::Plain).is_ok(), "nothing noted");
        note_use(t.id, 0);
        let err = make(&t, 2, &[1], Role::Plain).err();
        assert!(err.is_some_and(|e| e.to_string().contains("unknown graph allocation")));
        assert!(make(&t, 3, &[1], Role::Plain).is_ok(), "the use was taken");
        // A use noted before a capture into the graph is put back for the builder's next node
        // when the capture ends: that node sees it, on the same fast path.
        note_use(t.id, 0);
        drop(crate::vocabulary::binding::CapturingUses::enter());
        assert!(
            make(&t, 4, &[3], Role::Plain).is_err(),
            "the use put back is seen"
        );
        assert!(make(&t, 5, &[4], Role::Plain).is_ok());
        // In a body too: a use noted is refused, once.
        note_use(t.id, 0);
        assert!(none_in_body().is_err());
        assert!(none_in_body().is_ok());
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
