//! C28.15 a fork's scope returned from `Branch::run` as its value, to enqueue on the fork
//! after the branch (or the capture) ended: `run`'s closure is generic over its scope's
//! lifetime, so its result type cannot name the scope.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, a) = (guard.stream()?, guard.stream()?);
    let graph = stream.capture_forks((&a, ()), (), |_s, (), ba| {
        let _t = ba.run(|t, ()| Ok(t))?; //~ ERROR lifetime may not live long enough
        Ok(())
    })?;
    drop(graph);
    Ok(())
}
