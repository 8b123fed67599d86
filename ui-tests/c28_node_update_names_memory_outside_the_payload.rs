//! C28.5 memset and memcpy node updates: `update_nodes` takes a `'static` closure, so a new copy
//! or memset can name only memory of the executable graph's payload, never a buffer of the
//! caller's that could be freed while the executable graph can still be launched.
//! Positive twin: `memcpy_and_memset_nodes_updated_in_place_copy_and_set_their_new_memory` in
//! `tests/gpu_graph_exec.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let graph = guard.build_graph(guard.alloc::<u32>(1024)?, |b, mut d| {
        b.fill_u32(&mut d, 7, &[])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    let mut other = vec![0u32; 1024];
    exec.update_nodes(|u, d| {
        u.set_copy_to_host(u.copy_node(0)?, &mut other[..], &d) //~ ERROR E0597
    })?;
    drop(other);
    Ok(())
}
