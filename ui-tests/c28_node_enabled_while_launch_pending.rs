//! C28.5 enabling and disabling nodes: `update_nodes`, the only way to reach `set_enabled`,
//! takes `&mut` on the executable graph, so no node is disabled while a scope that launched
//! the graph holds it (nor while a submission owns it): the launch runs the graph as it was.
//! Positive twin: `a_disabled_kernel_node_does_not_run_and_runs_its_kept_parameters_once_enabled_again`
//! in `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let graph = guard.build_graph(guard.alloc::<u32>(1024)?, |b, mut d| {
        b.fill_u32(&mut d, 7, &[])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    stream.scope(|s| {
        let g = s.bind_graph(&mut exec);
        s.launch_graph(&g)?;
        exec.update_nodes(|u, _| u.set_enabled(u.fill_node(0)?, false))?; //~ ERROR E0499
        s.launch_graph(&g)
    })??;
    Ok(())
}
