//! C28.6 replay arena: an arena buffer borrows its arena, and a graph (then an executable graph)
//! whose payload holds it borrows the arena as long. Dropping the arena, which frees its memory,
//! while an executable graph over it can still be launched does not compile.
//! Positive twin: `a_graph_built_over_arena_buffers_replays_at_stable_addresses_without_allocating`
//! in `tests/gpu_graph_arena.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let arena = guard.replay_arena(1 << 20)?;
    let x = arena.buffer::<u32>(1024)?;
    let graph = guard.build_graph(x, |b, mut x| {
        b.fill_u32(&mut x, 7, &[])?;
        Ok(())
    })?;
    let exec = graph.instantiate()?;
    drop(arena); //~ ERROR the memory freed under the executable graph
    stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    Ok(())
}
