//! C28.15 captures forked over several streams: memory bound to the capturing stream's scope
//! (`Stream::capture_forks`) cannot be used by a fork's scope inside its `Branch::run`: the
//! fork's branch and the origin's have no order between them in the graph.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, a, b) = (guard.stream()?, guard.stream()?, guard.stream()?);
    let x = guard.alloc::<u32>(1024)?;
    let graph = stream.capture_forks(((&a, ()), (&b, ())), x, |s, mut x, (ba, _bb)| {
        s.fill_u32(&mut x, 1)?;
        ba.run(|t, ()| t.fill_u32(&mut x, 2)) //~ ERROR E0521
    })?;
    drop(graph);
    Ok(())
}
