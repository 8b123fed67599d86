//! C28.12 an executable graph uploaded while a scope frees one of its kept allocations in stream
//! order: `GraphExec::upload` takes `&mut self`, and the scope holds the executable graph
//! borrowed (`StreamScope::bind_kept`) until its end has waited for the free, so no upload, on
//! any stream, maps memory at the allocation's address while a pending copy still reads it.
//! Positive twin: `an_upload_while_a_taken_kept_allocation_lives_or_is_being_freed_leaves_it_the_program_s`
//! in `tests/gpu_graph_kept_attack.rs` (the upload after the scope's end).
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, other) = (guard.stream()?, guard.stream()?);
    let graph = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc_kept::<u32>(4, &[])?;
        b.fill_u32(&mut x, 7, &[made])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let x = exec.take_kept::<u32>(0)?;
    let mut out = vec![0u32; 4];
    stream.scope(|s| {
        let x = s.bind_kept(&exec, x)?;
        s.copy_to_host(&mut out, &x)?;
        x.free()?;
        exec.upload(&other) //~ ERROR E0502
    })??;
    Ok(())
}
