//! C18 graphs: the scope of a stream forked into a capture (`Stream::capture_forked`) cannot
//! leave the capture's closure: past the capture's end the stream is no longer captured, so work
//! enqueued through the scope would run at once on memory bound for the graph, with no wait.
//! The closure is `'static` and the scope's lifetime is the closure's own.
//! Positive twin: `a_capture_forked_over_two_streams_joins_back_and_replays_both_branches_three_times` in `tests/gpu_graph_capture_forked.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, side) = (guard.stream()?, guard.stream()?);
    let mut kept = None;
    let graph = stream.capture_forked(&side, (), (), |_s, t, (), ()| {
        kept = Some(t); //~ ERROR E0521
        Ok(())
    })?;
    drop((graph, kept));
    Ok(())
}
