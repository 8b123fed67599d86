//! C28.5 node updates: a kernel node an executable graph lends for an update is branded by
//! the update's lifetime, invariant and chosen anew for each update, so it cannot leave the
//! update's closure, and a node of one executable graph cannot be updated through another's.
//! Positive twin: `a_kernel_node_updated_in_place_runs_its_new_scalar_and_buffer` in
//! `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
use custack::graph::KernelNode;
use std::cell::Cell;
use std::rc::Rc;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let cfg = LaunchConfig::for_elements(4);
    let mut execs = Vec::new();
    for _ in 0..2 {
        let payload = (guard.alloc::<u32>(4)?, module.declared::<AddU32>()?);
        let graph = guard.build_graph(payload, move |b, (mut x, add)| {
            b.kernel(&add, cfg, (&mut x, 1u32, 4u32), &[])?;
            Ok(())
        })?;
        execs.push(graph.instantiate()?);
    }
    let smuggled: Rc<Cell<Option<KernelNode<'static, AddU32>>>> = Rc::default();
    let out = Rc::clone(&smuggled);
    execs[0].update_kernels(move |u, (_x, add)| {
        out.set(Some(u.kernel_node(&add, 0)?)); //~ ERROR
        Ok(())
    })?;
    execs[1].update_kernels(move |u, (mut y, _add)| {
        let Some(of_a) = smuggled.get() else { return Ok(()) }; //~ ERROR
        u.set_kernel(of_a, cfg, (&mut y, 2u32, 4u32))
    })?;
    Ok(())
}
