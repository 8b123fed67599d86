//! C28.14 reading a graph's payload: `Graph::payload` reads through `&mut graph` although it
//! writes nothing, so it cannot run while an executable graph made by `instantiate_shared`
//! borrows the graph and a launch of it may write what the host would read.
//! Positive twin: `a_graph_s_payload_is_read_through_an_exclusive_borrow_and_kept` in
//! `tests/gpu_graph_kept_free.rs`.
use custack::graph::InstantiateFlags;
use custack::{Context, ContextFlags, Driver, Stack};

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
        let (_d, out) = graph.payload(); //~ ERROR E0502
        println!("{}", out[0]);
        Ok::<(), custack::Error>(())
    })??;
    Ok(())
}
