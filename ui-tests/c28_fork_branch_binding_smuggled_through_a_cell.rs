//! C28.15 one fork's payload binding smuggled to another fork's branch through a `Cell` of
//! the capture's closure, so that two branches with no order between them would both write one
//! piece of memory: each run's binding is branded with that run's own scope lifetime, which the
//! cell (named outside the run) cannot hold.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use core::cell::Cell;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, a, b) = (guard.stream()?, guard.stream()?, guard.stream()?);
    let (x, y) = (guard.alloc::<u32>(4)?, guard.alloc::<u32>(4)?);
    let graph = stream.capture_forks(((&a, x), (&b, y)), (), |_s, (), (ba, bb)| {
        let smuggled = Cell::new(None);
        ba.run(|t, mut x| {
            t.fill_u32(&mut x, 1)?;
            smuggled.set(Some(x)); //~ ERROR E0521
            Ok(())
        })?;
        bb.run(|u, _y| match smuggled.take() {
            Some(mut x) => u.fill_u32(&mut x, 2),
            None => Ok(()),
        })
    })?;
    drop(graph);
    Ok(())
}
