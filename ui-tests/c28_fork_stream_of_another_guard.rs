//! C28.15 captures forked over several streams: a stream of another guard cannot be forked into
//! a capture (`Stream::capture_forks`): every fork is a `&Stream<'g>` lent by a guard, and the
//! outer guard's stream keeps that guard borrowed, so no inner guard (another context) can be
//! pushed while it is held.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let (ctx_a, ctx_b) = (
        Context::new(device, ContextFlags::empty())?,
        Context::new(device, ContextFlags::empty())?,
    );
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&ctx_a)?;
    let side = guard_a.stream()?;
    guard_a.with_pushed(&ctx_b, |guard_b| -> custack::Result<()> {
        //~^ ERROR E0502
        let stream = guard_b.stream()?;
        let graph = stream.capture_forks((&side, ()), (), |_s, (), _branch| Ok(()))?;
        drop(graph);
        Ok(())
    })??;
    Ok(())
}
