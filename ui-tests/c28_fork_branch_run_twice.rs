//! C28.15 captures forked over several streams: a fork's payload is bound once: `Branch::run`
//! (of `Stream::capture_forks`) consumes the branch, so a second run, which would bind the same
//! memory again and let two bindings write it, is a use of a moved value.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, a, b) = (guard.stream()?, guard.stream()?, guard.stream()?);
    let y = guard.alloc::<u32>(1024)?;
    let graph = stream.capture_forks(((&a, y), (&b, ())), (), |_s, (), (ba, _bb)| {
        ba.run(|t, mut y| t.fill_u32(&mut y, 1))?;
        ba.run(|t, mut y| t.fill_u32(&mut y, 2)) //~ ERROR E0382
    })?;
    drop(graph);
    Ok(())
}
