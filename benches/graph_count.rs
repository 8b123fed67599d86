//! custack's own instructions per graph operation, counted under callgrind against the
//! checking driver (`checkdriver`): what the builder and the updater do beside the driver call,
//! the numbers BENCHMARKS.md's "Graphs built node by node" cites.
//!
//! ```text
//! bash scripts/graph-count.sh  # builds the double and this, runs callgrind once per operation
//! ```
//!
//! Each operation runs inside an `#[inline(never)]` function of its own (its name starts with
//! `count_`), which callgrind collects alone (`--toggle-collect`): one kernel node built
//! (`GraphBuilder::kernel`, 100 per build), a whole build of 100 (`build_graph`, per node: the
//! nodes and the build's own work once), one kernel node updated (`kernel_node` and
//! `set_kernel`, 100 per `update_kernels`), `update_kernels` with no update (its fixed cost),
//! and one `update_nodes` of a host node (`host_node` and `set_host`, a new closure each time,
//! all of one type, as `graph_build`'s row), an event record node and an event wait node (`set_record_event`,
//! `set_wait_event`, alternating between two events). The script splits what is collected by
//! the object it runs in: this binary (custack's own code, the operation's function included),
//! the driver (`libcuda.so`, and the dynamic loader's TLS lookups it makes), and the C library's
//! allocator as this binary calls it. `CUSTACK_GRAPH_COUNT_REPS` (default 200) repetitions of
//! each. Without `--bench` (as `cargo test --all-targets` runs it) it prints how to run it and
//! exits.

use custack::graph::GraphNode;
use custack::{Context, ContextFlags, Driver, EventFlags, LaunchConfig, Stack};
use std::rc::Rc;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const N: usize = 4096;
const N32: u32 = 4096;
/// Kernel nodes per build and per update, as `graph_build`'s rows.
const NODES: usize = 100;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

fn cfg() -> LaunchConfig {
    LaunchConfig::for_elements(N32)
}

/// One kernel node built.
#[inline(never)]
fn count_kernel_node<'b, G>(
    f: impl FnOnce() -> custack::Result<GraphNode<'b, G>>,
) -> custack::Result<GraphNode<'b, G>> {
    f()
}

/// One whole `build_graph` of `NODES` kernel nodes (what `graph_build`'s build row times):
/// the nodes, and what the build does once (its tracker, the context asked, the graph made,
/// the node lists moved into the graph).
#[inline(never)]
fn count_build<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// One kernel node found and updated.
#[inline(never)]
fn count_set_kernel(f: impl FnOnce() -> custack::Result<()>) -> custack::Result<()> {
    f()
}

/// One `update_kernels` that updates nothing.
#[inline(never)]
fn count_update_fixed(f: impl FnOnce()) {
    f();
}

/// One `update_nodes` of a host node.
#[inline(never)]
fn count_update_host(f: impl FnOnce()) {
    f();
}

/// One `update_nodes` of an event record node.
#[inline(never)]
fn count_update_record(f: impl FnOnce()) {
    f();
}

/// One `update_nodes` of an event wait node.
#[inline(never)]
fn count_update_wait(f: impl FnOnce()) {
    f();
}

fn run(reps: usize) -> custack::Result<()> {
    let driver = Driver::init()?;
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let mut graph = None;
    for _ in 0..reps {
        let payload = (guard.alloc::<u32>(N)?, add);
        // The graph before is dropped at the assignment, outside `count_build`.
        graph = Some(count_build(|| {
            guard.build_graph(payload, move |b, (mut x, add)| {
                let mut last = None;
                for _ in 0..NODES {
                    let deps: &[_] = match &last {
                        Some(node) => core::slice::from_ref(node),
                        None => &[],
                    };
                    let node =
                        count_kernel_node(|| b.kernel(&add, cfg(), (&mut x, 1u32, N32), deps))?;
                    last = Some(node);
                }
                Ok(())
            })
        })?);
    }
    let Some(graph) = graph else {
        return Ok(());
    };
    let mut exec = graph.instantiate()?;
    for rep in 0..reps {
        let k = if rep % 2 == 0 { 2 } else { 1 };
        exec.update_kernels(move |u, (mut x, add)| {
            for i in 0..NODES {
                count_set_kernel(|| {
                    let node = u.kernel_node(&add, i)?;
                    u.set_kernel(node, cfg(), (&mut x, k, N32))
                })?;
            }
            Ok(())
        })?;
        let mut result = Ok(());
        count_update_fixed(|| result = exec.update_kernels(|_, _| Ok(())));
        result?;
    }
    let events = (
        Rc::new(guard.event(EventFlags::DISABLE_TIMING)?),
        Rc::new(guard.event(EventFlags::DISABLE_TIMING)?),
    );
    let mut exec = guard
        .build_graph(events, |g, (a, _b)| {
            g.host(|| {}, &[])?;
            g.record(&a, &[])?;
            g.wait(&a, &[])?;
            Ok(())
        })?
        .instantiate()?;
    for rep in 0..reps {
        let first = rep % 2 == 0;
        let mut result = Ok(());
        count_update_host(|| {
            result = exec.update_nodes(|u, _| u.set_host(u.host_node(0)?, || {}));
        });
        result?;
        let mut result = Ok(());
        count_update_record(|| {
            result = exec.update_nodes(move |u, (a, b)| {
                u.set_record_event(u.record_node(0)?, if first { &a } else { &b })
            });
        });
        result?;
        let mut result = Ok(());
        count_update_wait(|| {
            result = exec.update_nodes(move |u, (a, b)| {
                u.set_wait_event(u.wait_node(0)?, if first { &a } else { &b })
            });
        });
        result?;
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "graph_count: instruction counts under callgrind; run it with `bash scripts/graph-count.sh`"
        );
        return std::process::ExitCode::SUCCESS;
    }
    let reps = std::env::var("CUSTACK_GRAPH_COUNT_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    match run(reps) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("graph_count: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
