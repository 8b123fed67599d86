//! C28.6 replay arena: an arena buffer is lent once. It is not `Clone`, and a graph's payload owns
//! it: the same buffer handed to a second graph (two executable graphs writing it, each
//! believing it has it exclusively) does not compile. A second buffer is carved instead.
//! Positive twin: `a_graph_captured_over_arena_buffers_replays_at_stable_addresses_without_allocating`
//! in `tests/gpu_graph_arena.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let arena = guard.replay_arena(1 << 20)?;
    let x = arena.buffer::<u32>(1024)?;
    let one = guard.build_graph(x, |b, mut x| {
        b.fill_u32(&mut x, 1, &[])?;
        Ok(())
    })?;
    let two = guard.build_graph(x, |b, mut x| { //~ ERROR use of moved value: `x`
        b.fill_u32(&mut x, 2, &[])?;
        Ok(())
    })?;
    let (_one, _two) = (one.instantiate()?, two.instantiate()?);
    Ok(())
}
