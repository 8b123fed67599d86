//! C18 graphs: in a capture forked over two streams (`Stream::capture_forked`), memory bound to
//! the fork's scope cannot be used by the origin's: the two branches have no order between them
//! in the graph, so a write in one would race with the other's use. Each scope has its own
//! invariant lifetime, and each payload is bound to one of them.
//! Positive twin: `a_capture_forked_over_two_streams_joins_back_and_replays_both_branches_three_times` in `tests/gpu_graph_capture_forked.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, side) = (guard.stream()?, guard.stream()?);
    let (a, b) = (guard.alloc::<u32>(1024)?, guard.alloc::<u32>(1024)?);
    let graph = stream.capture_forked(&side, a, b, |s, t, mut a, mut b| {
        t.fill_u32(&mut b, 2)?;
        s.fill_u32(&mut a, 1)?;
        s.fill_u32(&mut b, 3) //~ ERROR lifetime may not live long enough
    })?;
    drop(graph);
    Ok(())
}
