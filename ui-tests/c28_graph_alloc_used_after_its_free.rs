//! C28.8 graph allocations: `GraphBuilder::free` consumes the `GraphAlloc` it frees, so no node
//! made after the free node can use its memory (the builder checks, at run time, that the free
//! node comes after every node made before it that used the memory).
//! Positive twin: `a_built_graph_allocates_fills_adds_copies_and_frees_its_own_memory_at_each_launch`
//! in `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _g = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc::<u32>(4, &[])?;
        let set = b.fill_u32(&mut x, 1, &[made])?;
        let freed = b.free(x, &[set])?;
        b.fill_u32(&mut x, 2, &[freed])?; //~ ERROR E0382
        Ok(())
    })?;
    Ok(())
}
