//! The kinds of the nodes of graphs built node by node, and of the graph each child-graph node
//! runs, for the updates of an executable graph's nodes one by one (`cuGraphExec*NodeSetParams`,
//! `cuGraphExecEvent*NodeSetEvent`): each names a node of the graph the executable graph was
//! made from, which must be of the call's kind (a violation otherwise), and a child-graph
//! node's new graph must keep its topology, as far as the double sees it: its node count and,
//! for a built graph, the kinds of its nodes in the order they were added (the driver's
//! `CUDA_ERROR_INVALID_VALUE` otherwise). Kept in the checking mode only.

use crate::mode::CHECK;
use core::sync::atomic::Ordering::Relaxed;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A node's kind, as `CUgraphNodeType` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NodeKind {
    Kernel,
    Memcpy,
    Memset,
    Host,
    Child,
    EventRecord,
    EventWait,
}

/// What the double knows of a graph's topology: its node count and, for a graph built node by
/// node, its nodes' kinds in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Topology {
    pub(crate) nodes: usize,
    pub(crate) kinds: Option<Vec<NodeKind>>,
}

impl Topology {
    /// Whether a graph of topology `new` may take the place of one of this topology: the same
    /// count, and the same kinds where both are known.
    pub(crate) fn kept_by(&self, new: &Topology) -> bool {
        self.nodes == new.nodes
            && match (&self.kinds, &new.kinds) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

#[derive(Default)]
struct Kinds {
    /// Each node's kind.
    nodes: HashMap<usize, NodeKind>,
    /// Per graph built node by node, its nodes' kinds in the order they were added.
    graphs: HashMap<usize, Vec<NodeKind>>,
    /// Per child-graph node, the topology of the graph it runs.
    children: HashMap<usize, Topology>,
}

static KINDS: Mutex<Option<Kinds>> = Mutex::new(None);

fn kinds() -> MutexGuard<'static, Option<Kinds>> {
    KINDS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `f` on the record, in the checking mode only.
fn with<R>(f: impl FnOnce(&mut Kinds) -> R) -> Option<R> {
    if !CHECK.load(Relaxed) {
        return None;
    }
    Some(f(kinds().get_or_insert_with(Kinds::default)))
}

/// Node `node` of kind `kind` was added to graph `graph`.
pub(crate) fn made(graph: usize, node: usize, kind: NodeKind) {
    with(|k| {
        k.nodes.insert(node, kind);
        k.graphs.entry(graph).or_default().push(kind);
    });
}

/// Node `node`, a child-graph node of `graph`, runs a copy of a graph of topology `child`.
pub(crate) fn child_made(graph: usize, node: usize, child: Topology) {
    made(graph, node, NodeKind::Child);
    with(|k| k.children.insert(node, child));
}

/// The kinds of the nodes of `graph`, if it was built node by node.
pub(crate) fn kinds_of(graph: usize) -> Option<Vec<NodeKind>> {
    with(|k| k.graphs.get(&graph).cloned()).flatten()
}

/// `what` names node `node` as one of kind `kind`: `false`, with a violation, when the double
/// knows it as a node of another kind. A node it does not know is left to the call's own
/// check (`check::kernel_node_set`: a node of the graph the executable graph was made from).
pub(crate) fn is(node: usize, kind: NodeKind, what: &str) -> bool {
    let known = with(|k| k.nodes.get(&node).copied()).flatten();
    match known {
        Some(k) if k != kind => {
            crate::mode::violation(&format!(
                "{what}: node {node:#x} is a {k:?} node, not a {kind:?} node"
            ));
            false
        }
        _ => true,
    }
}

/// The topology of the graph child-graph node `node` runs (as it was added, or last set).
pub(crate) fn child_of(node: usize) -> Option<Topology> {
    with(|k| k.children.get(&node).cloned()).flatten()
}

/// `what` (`cuGraphNodeSetEnabled`) names node `node`: `false`, with a violation, for a node
/// the double knows as a host, child-graph or event node (the call takes kernel, memset and
/// memcpy nodes only).
pub(crate) fn can_be_disabled(node: usize, what: &str) -> bool {
    let known = with(|k| k.nodes.get(&node).copied()).flatten();
    match known {
        Some(
            k @ (NodeKind::Host | NodeKind::Child | NodeKind::EventRecord | NodeKind::EventWait),
        ) => {
            crate::mode::violation(&format!(
                "{what}: node {node:#x} is a {k:?} node: only kernel, memset and memcpy nodes \
                 are enabled or disabled"
            ));
            false
        }
        _ => true,
    }
}
