//! C28.15 captures forked over several streams: a fork's `Branch` (of `Stream::capture_forks`)
//! cannot leave the capture's closure to be run after the capture ended, when its stream is no
//! longer captured. The closure is `'static` and a branch is branded by its lifetime.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, a, b) = (guard.stream()?, guard.stream()?, guard.stream()?);
    let mut kept = None;
    let graph = stream.capture_forks(((&a, ()), (&b, ())), (), |_s, (), (ba, _bb)| {
        kept = Some(ba); //~ ERROR E0521
        Ok(())
    })?;
    drop((graph, kept));
    Ok(())
}
