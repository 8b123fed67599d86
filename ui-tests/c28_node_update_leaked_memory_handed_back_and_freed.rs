//! C28.5 memset and memcpy node updates: memory that outlives the update's closure only by being
//! leaked (`Box::leak`, a `&'static mut`) stays borrowed for the update's brand once a node names
//! it, so the `'static` closure cannot hand the reference back out (through an `Rc<RefCell<_>>`
//! it captured) for the program to free the memory while the executable graph's memcpy node
//! still copies into it at every launch.
//! Positive twin: `memcpy_and_memset_nodes_updated_in_place_copy_and_set_their_new_memory` in
//! `tests/gpu_graph_exec.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use std::cell::RefCell;
use std::rc::Rc;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let payload = (guard.alloc::<u32>(1024)?, vec![0u32; 1024]);
    let graph = guard.build_graph(payload, |b, (d, out)| {
        b.copy_to_host(out, &d, &[])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    let leaked: &'static mut Vec<u32> = Box::leak(Box::new(vec![0u32; 1024]));
    let back: Rc<RefCell<Option<&'static mut Vec<u32>>>> = Rc::new(RefCell::new(None));
    let stash = Rc::clone(&back);
    exec.update_nodes(move |u, (d, _out)| {
        u.set_copy_to_host(u.copy_node(0)?, &mut leaked[..], &d)?;
        *stash.borrow_mut() = Some(leaked); //~ ERROR E0499
        Ok(())
    })?;
    if let Some(v) = back.borrow_mut().take() {
        // The memory the memcpy node names, freed before the next launch.
        drop(core::mem::take(v));
    }
    Ok(())
}
