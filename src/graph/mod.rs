//! CUDA graphs: work recorded once, as a graph of nodes that owns the memory they use, and
//! launched any number of times. A graph is made by capturing the work a closure enqueues on a
//! stream, or built node by node; either way it is a [`Graph`] that owns its
//! [`Payload`](crate::Payload), instantiated into a [`GraphExec`] that keeps owning it for as
//! long as it can be launched, in a submission or in a scope.
//!
//! ```text
//!   stream.capture(payload, |s, bound| …)        -> Graph<'g, P>      capture.rs
//!   stream.capture_forked(&fork, p, q, |s, t, …) -> Graph<'g, (P, Q)> capture.rs
//!   stream.capture_forks(((&a, qa), (&b, qb)), p, |s, p, (ba, bb)| …)  capture.rs, forks.rs
//!     ba.run(|t, qa| …)                          a fork's own scope      forks.rs
//!   guard.build_graph(payload, |b, bound| …)     -> Graph<'g, P>      builder.rs
//!     b.kernel / copy_* / fill_* / record / wait / child              builder.rs
//!     b.condition, if_then, if_else, while_loop, switch              conditional.rs
//!     b.alloc, free                                                   mem.rs, order.rs
//!     b.alloc_kept                                                    kept/
//!     b.host(move || …, &deps)                                        host.rs
//!     b.capture(&deps, |s| …)                                         capture_into.rs
//!   graph.instantiate()                          -> GraphExec<'g, P>  owned.rs
//!   graph.instantiate_shared(flags), clone_graph -> SharedExec<'_>    shared.rs
//!   stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?          owned.rs
//!   exec.update_nodes(|u, bound| …)              kernel, memset, memcpy nodes  update.rs
//!     u.set_enabled(node, false)                 a node skipped at the next launches
//!   exec.take_kept::<T>(k)                       -> DeviceBuffer     kept/
//!   guard.replay_arena(bytes)                    -> ReplayArena      arena.rs
//!   graph.write_dot(path, DotFlags::VERBOSE)                          dot.rs
//! ```
//!
//! What the types promise is the contract's row C28 (`docs/invariants.md`), one sub-row per
//! rule, stated where each part is: built graphs and their nodes' brands (C28.1), conditional
//! bodies (C28.2) and memory nodes (C28.8) on [`GraphBuilder`], capture into a graph (C28.3) on
//! [`GraphBuilder::capture`], executable graphs that borrow their graph (C28.4) on
//! [`SharedExec`], updates (C28.5) on [`NodeUpdater`], replay arenas (C28.6) on
//! [`ReplayArena`], host nodes (C28.7) on [`GraphBuilder::host`], kept allocations (C28.9) on
//! [`GraphBuilder::alloc_kept`], the restricted builder (C28.10) in `custack::safety`. A
//! capture's closure is `'static` and reaches only its payload (C18), as the builder's does.
//!
//! Graphs and everything made from them are lent by the guard like every other handle: not used
//! under another context, not sent to another thread. These names were at the crate root
//! before (`custack::GraphBuilder`, now `custack::graph::GraphBuilder`); the changelog lists
//! every move, and the docs' search finds `KernelUpdater`, folded into [`NodeUpdater`].

// The graph and its executable form, each owning its payload; their launches.
pub(crate) mod owned;
pub use owned::{ChildGraph, Graph, GraphExec, LaunchableGraph, ScopedGraph, UpdateError};
// The DOT output of a graph.
mod dot;
pub use dot::DotFlags;
// Executable graphs that borrow their graph's payload, clones, node kinds, instantiation flags.
mod shared;
pub use shared::{GraphClone, InstantiateFlags, NodeKind, SharedExec};
// Stream capture, on one stream or forked over others, and the one reader of a capture's graph.
mod capture;
// The streams a capture forks, with their payloads, and the branch each is lent through.
mod forks;
pub use forks::{Branch, Forks};
// The builder: a graph node by node, its kernel, copy, memset, event and child-graph nodes.
mod builder;
pub use builder::{BodyGraph, GraphBuilder, GraphNode, RootGraph};
// What the builder's nodes and their updates share: node records and parameters.
mod params;
// Conditional nodes (IF, IF/ELSE, WHILE, SWITCH), their bodies and their handles.
mod conditional;
pub use crate::vocabulary::argument::{ConditionalHandle, GraphConditionalHandle};
pub use conditional::Condition;
// Capture into a graph being built, and conditional nodes added in the middle of a capture.
mod capture_into;
pub use capture_into::CapturedGraph;
// Memory allocation and free nodes of the root graph, and the order that checks their uses.
mod mem;
mod order;
pub use crate::vocabulary::binding::GraphAlloc;
// Allocations that outlive the launch: made by the builder, recorded and handed out by the
// executable graph.
pub(crate) mod kept;
// Host functions a graph owns: host nodes, and host functions a capture takes; the closure
// and the functions the driver calls with it, which an executable graph's updates give too.
mod host;
pub(crate) mod host_fn;
// The one updater of an executable graph's kernel, memset, memcpy, host, child-graph and event
// nodes.
mod update;
pub use update::{
    ChildNode, CopyNode, ExecNode, FillNode, HostNode, KernelNode, NodeUpdater, RecordNode,
    UpdateNode, WaitNode, node_kind,
};
// Device memory reserved once and lent as typed buffers that graphs replay over.
mod arena;
pub use arena::{ARENA_ALIGN, ArenaBuffer, ReplayArena};
