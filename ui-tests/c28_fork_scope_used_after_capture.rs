//! C28.15 captures forked over several streams: a fork's scope (lent by `Branch::run` of
//! `Stream::capture_forks`) cannot be kept and used after the capture: past its end the stream
//! is no longer captured, so work enqueued through the scope would run at once on memory
//! bound for the graph, with no wait. The scope's lifetime is the run's own.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, a, b) = (guard.stream()?, guard.stream()?, guard.stream()?);
    let mut kept = None;
    let graph = stream.capture_forks(((&a, ()), (&b, ())), (), |_s, (), (ba, _bb)| {
        ba.run(|t, ()| {
            kept = Some(t); //~ ERROR E0521
            Ok(())
        })
    })?;
    drop((graph, kept));
    Ok(())
}
