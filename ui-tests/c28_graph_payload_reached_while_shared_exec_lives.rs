//! C28.4 graphs that survive instantiation: the host reaches a graph's payload only through
//! `&mut graph`, which no executable graph made by `instantiate_shared` may borrow at the same
//! time, so the host cannot write (or read) the memory while a launch of it may run.
//! Positive twin: `two_shared_execs_and_a_clone_run_over_one_graph_s_payload_which_survives_them`
//! in `tests/gpu_graph_exec.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use custack::graph::InstantiateFlags;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let mut graph = guard.build_graph((guard.alloc::<u32>(4)?, vec![0u32; 4]), |b, (d, out)| {
        b.copy_to_host(out, &d, &[])?;
        Ok(())
    })?;
    let exec = graph.instantiate_shared(InstantiateFlags::empty())?;
    stream.scope(|s| {
        s.launch_graph(&s.bind_shared(&exec))?;
        let (_d, out) = graph.payload_mut(); //~ ERROR E0502
        out[0] = 1;
        Ok::<(), custack::Error>(())
    })??;
    Ok(())
}
