//! C28.15 captures forked over several streams: memory bound to one fork's branch
//! (`Branch::run` of `Stream::capture_forks`) cannot be used by another fork's scope: the two
//! branches have no order between them in the graph, so a write in one would race with the
//! other's use. Each run lends a scope with a lifetime of its own.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, a, b) = (guard.stream()?, guard.stream()?, guard.stream()?);
    let (x, y) = (guard.alloc::<u32>(1024)?, guard.alloc::<u32>(1024)?);
    let graph = stream.capture_forks(((&a, x), (&b, y)), (), |_s, (), (ba, bb)| {
        ba.run(|t, mut x| {
            t.fill_u32(&mut x, 1)?;
            bb.run(|u, _y| u.fill_u32(&mut x, 2)) //~ ERROR E0521
        })
    })?;
    drop(graph);
    Ok(())
}
