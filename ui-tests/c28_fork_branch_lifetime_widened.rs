//! C28.15 a fork's `Branch` given a longer lifetime than the capture's closure by variance
//! (a `Branch<'o, _>` as a `Branch<'static, _>`, to be stored past the capture): a branch
//! is invariant in its lifetime.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use custack::graph::Branch;

fn widen<'o>(branch: Branch<'o, ()>) -> Branch<'static, ()> {
    branch //~ ERROR lifetime may not live long enough
}

fn main() {
    let _ = widen;
}
