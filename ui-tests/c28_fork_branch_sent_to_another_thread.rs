//! C28.15 a fork's `Branch` run on another thread reached through `std::thread::scope`
//! inside the capture's closure, where no capture mark of this thread would refuse a scope or
//! a submission: a `Branch` is neither `Send` nor `Sync`.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, a) = (guard.stream()?, guard.stream()?);
    let graph = stream.capture_forks((&a, ()), (), |_s, (), ba| {
        std::thread::scope(|ts| ts.spawn(move || ba.run(|_t, ()| Ok(()))).join()) //~ ERROR E0277
            .unwrap_or(Ok(()))
    })?;
    drop(graph);
    Ok(())
}
