//! C28.6 replay arena: resetting an arena lends its memory again, so it takes `&mut self`; an
//! executable graph over one of its buffers borrows the arena, so a reset while that graph can
//! still be launched (a new buffer would alias the graph's) does not compile.
//! Positive twin:
//! `an_arena_lends_disjoint_aligned_buffers_refuses_past_its_capacity_and_lends_again_after_reset`
//! in `tests/gpu_graph_arena.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut arena = guard.replay_arena(1 << 20)?;
    let x = arena.buffer::<u32>(1024)?;
    let graph = guard.build_graph(x, |b, mut x| {
        b.fill_u32(&mut x, 7, &[])?;
        Ok(())
    })?;
    let exec = graph.instantiate()?;
    arena.reset()?; //~ ERROR the memory lent again under the executable graph
    let _alias = arena.buffer::<u32>(1024)?;
    stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    Ok(())
}
