//! C28.9 kept graph allocations: the buffer `take_kept` hands out borrows the executable graph,
//! because the next launch makes the allocation again at the same address. Launching the graph
//! again (here in a scope, which borrows it exclusively) while the taken buffer lives does not
//! compile; the buffer is freed (dropped) first.
//! Positive twin: `a_kept_graph_allocation_is_taken_after_each_launch_read_and_freed_then_launched_again`
//! in `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let graph = guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc_kept::<u32>(1024, &[])?;
        b.fill_u32(&mut x, 7, &[made])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    let stream = guard.stream()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let x = exec.take_kept::<u32>(0)?;
    stream.scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))??; //~ ERROR cannot borrow `exec` as mutable because it is also borrowed as immutable
    assert_eq!(x.to_vec()?, vec![7; 1024]);
    Ok(())
}
