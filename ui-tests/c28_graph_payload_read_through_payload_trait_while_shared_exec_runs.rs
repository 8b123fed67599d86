//! C28.14 reading a graph's payload: the host reads a graph's payload only through `&mut graph`
//! (`Graph::payload`, `Graph::payload_mut`); the `Payload` trait's hidden `read` takes the
//! graph's held form, which no `&Graph` gives, so a shared borrow of the graph, which a pending
//! launch of a `SharedExec` leaves to the scope's closure, reads nothing the launch writes.
//! Positive twin: `a_graph_s_payload_is_read_through_an_exclusive_borrow_and_kept` in
//! `tests/gpu_graph_kept_free.rs`.
use custack::graph::{Graph, InstantiateFlags};
use custack::{Context, ContextFlags, Driver, Payload, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let graph = guard.build_graph((guard.alloc::<u32>(4)?, vec![0u32; 4]), |b, (d, out)| {
        b.copy_to_host(out, &d, &[])?;
        Ok(())
    })?;
    let exec = graph.instantiate_shared(InstantiateFlags::empty())?;
    stream.scope(|s| {
        s.launch_graph(&s.bind_shared(&exec))?;
        // The launch's copy writes `out` now: the host must not read it.
        let (_d, out) = <Graph<'_, _> as Payload>::read(&graph); //~ ERROR E0308
        println!("{}", out[0]);
        Ok::<(), custack::Error>(())
    })??;
    Ok(())
}
