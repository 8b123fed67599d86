//! Graphs built node by node, measured against the raw driver calls in the same process: what
//! the builder's checks and bookkeeping cost over `cuGraphAddKernelNode`, and what an in-place
//! kernel-node update costs over `cuGraphExecKernelNodeSetParams`.
//!
//! ```text
//! cargo bench -p custack-benches --bench graph_build  # on a GPU machine
//! bash scripts/gpu-bundle.sh --bench graph_build  # packs it; on the GPU machine: bash .gpu/run.sh
//! ```
//!
//! The graph is a chain of 100 kernel nodes, each `add_u32(x, 1, n)` on 4096 `u32`s (16 blocks
//! of 256 threads) depending on the one before, as `benches/graph.rs` captures them. Rows, each
//! custack beside the raw `custack::ffi` calls it makes, in alternating order after one warm-up
//! of each:
//! - build: `PushedGuard::build_graph` with 100 `GraphBuilder::kernel` (each checked against
//!   the kernel's contract) (raw: `cuGraphCreate`, 100 `cuGraphAddKernelNode`);
//! - build + instantiate: the same, then `Graph::instantiate` (raw: the same, then
//!   `cuGraphInstantiateWithFlags`; the graph is kept, as custack keeps it for updates);
//! - update 100 kernel nodes: one `GraphExec::update_kernels` whose closure finds each node
//!   (`NodeUpdater::kernel_node`) and sets its arguments (`set_kernel`, checked against the
//!   contract) (raw: 100 `cuGraphExecKernelNodeSetParams`);
//! - update 1 kernel node: the same for the first node only;
//! - update the last node of 10, and of 1,000: one update of the last kernel node of a chain of
//!   10 nodes, and of a chain of 1,000 (raw: one `cuGraphExecKernelNodeSetParams` on a chain of
//!   the same length). Finding a node (`kernel_node(&k, i)`) costs the same whatever the graph's
//!   size: the two rows' custack/raw should be alike;
//! - update 1 host node, 1 child-graph node, 1 event record node, 1 event wait node: one
//!   `update_nodes` whose closure finds the node (`host_node(0)`, `child_node(0)`,
//!   `record_node(0)`, `wait_node(0)`) and sets it (`set_host`: a new closure, boxed and owned
//!   by the executable graph, the one it replaces dropped; `set_child`: a graph of one memset
//!   node, its node count checked; `set_record_event`, `set_wait_event`), alternating between
//!   two closures, child graphs or events (raw: one `cuGraphExecHostNodeSetParams` of a
//!   function, `cuGraphExecChildGraphNodeSetParams`, `cuGraphExecEventRecordNodeSetEvent`,
//!   `cuGraphExecEventWaitNodeSetEvent` on a graph of the same four nodes).
//! - update 1 memset node, 1 memcpy node, and disable or enable 1 kernel node: a graph of a
//!   memset node, a kernel node and a device-to-device memcpy node in a chain; one
//!   `update_nodes` whose closure finds the node and sets it (`set_fill_u32` with the value
//!   alternating between 1 and 2; `set_copy_device` with the source alternating between two
//!   buffers; `set_enabled` on `kernel_node(&add, 0)`, alternating off and on) (raw: one
//!   `cuGraphExecMemsetNodeSetParams`, `cuGraphExecMemcpyNodeSetParams`,
//!   `cuGraphNodeSetEnabled` on a graph of the same three nodes).
//!
//! Each update alternates the added constant between 1 and 2, so that every update changes
//! every node it names. The payload's buffer is allocated, and what a row made destroyed, outside the timed part. Reported:
//! the median over `CUSTACK_GRAPH_REPS` (default 50) repetitions, the spread (p10–p90 ÷ 2 of
//! the median) and custack's median over raw's. Both executable graphs' results are checked
//! once after their updates (not with `CUSTACK_GRAPH_UNCHECKED=1`, for a run against the
//! do-nothing driver of `checkdriver`). Nothing here asserts a time. With `CUSTACK_GRAPH_DOT`
//! set to a path, it also writes there a small built graph's DOT (`Graph::write_dot`: a
//! memset, a kernel and a copy to the host; `docs/graph_built.dot`). Without `--bench` (as
//! `cargo test --all-targets` runs it) it prints how to run it and exits.

#![allow(
    clippy::cast_precision_loss,
    clippy::multiple_unsafe_ops_per_block, // the raw variants are C programs in Rust syntax
    clippy::too_many_lines
)]

use core::ffi::c_void;
use custack::graph::DotFlags;
use custack::prelude::*;
use custack::{Context, ContextFlags, DeviceBuffer, Driver, EventFlags, LaunchConfig, Stack, ffi};
use std::rc::Rc;
use std::time::Instant;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const N: usize = 4096;
const N32: u32 = N as u32;
const NODES: usize = 100;
/// The chains of the lookup rows: a node's lookup costs the same in both.
const SHORT: usize = 10;
const LONG: usize = 1000;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

fn ok(r: ffi::CUresult, what: &str) {
    assert!(r == ffi::CUresult::CUDA_SUCCESS, "{what}: {r:?}");
}

/// Median and spread (p10–p90 ÷ 2, relative to the median) of a set of times in seconds.
fn stats(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let median = at(0.5);
    (median, (at(0.9) - at(0.1)) / 2.0 / median)
}

/// Takes `reps + 1` samples of each, alternating which goes first (the first of each is a
/// warm-up, dropped), and prints the row. Each closure returns the seconds of its timed part.
fn row(name: &str, reps: usize, mut raw: impl FnMut() -> f64, mut custack: impl FnMut() -> f64) {
    let (mut raws, mut cus) = (Vec::new(), Vec::new());
    for rep in 0..=reps {
        let (r, c) = if rep % 2 == 0 {
            let c = custack();
            (raw(), c)
        } else {
            let r = raw();
            (r, custack())
        };
        if rep > 0 {
            raws.push(r);
            cus.push(c);
        }
    }
    let (raw, raw_spread) = stats(&mut raws);
    let (cu, cu_spread) = stats(&mut cus);
    println!(
        "| {name} | {:.2} µs | {:.2} µs | {:.3} | ±{:.1}% · ±{:.1}% |",
        raw * 1e6,
        cu * 1e6,
        cu / raw,
        raw_spread * 100.0,
        cu_spread * 100.0
    );
}

fn time(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

fn cfg() -> LaunchConfig {
    LaunchConfig::for_elements(N32)
}

/// Raw kernel node parameters of `add_u32(x, k, N)`, passed to `f`.
fn with_raw_params<R>(
    f: ffi::CUfunction,
    x: ffi::CUdeviceptr,
    k: u32,
    use_params: impl FnOnce(*const ffi::CUDA_KERNEL_NODE_PARAMS_v2) -> R,
) -> R {
    let cfg = cfg();
    let (mut x, mut k, mut n) = (x, k, N32);
    let mut params = [
        (&raw mut x).cast::<c_void>(),
        (&raw mut k).cast::<c_void>(),
        (&raw mut n).cast::<c_void>(),
    ];
    let node = ffi::CUDA_KERNEL_NODE_PARAMS_v2 {
        func: f,
        gridDimX: cfg.grid.0,
        gridDimY: cfg.grid.1,
        gridDimZ: cfg.grid.2,
        blockDimX: cfg.block.0,
        blockDimY: cfg.block.1,
        blockDimZ: cfg.block.2,
        sharedMemBytes: 0,
        kernelParams: params.as_mut_ptr(),
        extra: core::ptr::null_mut(),
        kern: core::ptr::null_mut(),
        ctx: core::ptr::null_mut(),
    };
    use_params(&raw const node)
}

/// Raw: a chain of `len` kernel nodes of `add_u32(x, 1, N)`, and the nodes.
fn raw_build(
    f: ffi::CUfunction,
    x: ffi::CUdeviceptr,
    len: usize,
) -> (ffi::CUgraph, Vec<ffi::CUgraphNode>) {
    let mut graph = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; flags 0.
    unsafe { ok(ffi::cuGraphCreate(&raw mut graph, 0), "cuGraphCreate") };
    let mut nodes: Vec<ffi::CUgraphNode> = Vec::with_capacity(len);
    with_raw_params(f, x, 1, |params| {
        for i in 0..len {
            let mut node = core::ptr::null_mut();
            let (deps, n) = if i == 0 {
                (core::ptr::null(), 0)
            } else {
                (&raw const nodes[i - 1], 1)
            };
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes;
            // `params` names a live function of the context whose parameters are (pointer,
            // u32, u32), each pointed to, and `x` holds N live u32s; the driver copies them.
            unsafe {
                ok(
                    ffi::cuGraphAddKernelNode_v2(&raw mut node, graph, deps, n, params),
                    "cuGraphAddKernelNode",
                );
            }
            nodes.push(node);
        }
    });
    (graph, nodes)
}

fn raw_instantiate(graph: ffi::CUgraph) -> ffi::CUgraphExec {
    let mut exec = core::ptr::null_mut();
    // SAFETY: a live graph of the current context; a valid out-pointer.
    unsafe {
        ok(
            ffi::cuGraphInstantiateWithFlags(&raw mut exec, graph, 0),
            "cuGraphInstantiate",
        );
    }
    exec
}

/// Raw: sets `add_u32(x, k, N)` on each of `nodes` of `exec`.
fn raw_update(
    exec: ffi::CUgraphExec,
    nodes: &[ffi::CUgraphNode],
    f: ffi::CUfunction,
    x: ffi::CUdeviceptr,
    k: u32,
) {
    with_raw_params(f, x, k, |params| {
        for &node in nodes {
            // SAFETY: a live executable graph with no launch pending, made from the graph
            // `node` is a kernel node of (kept alive); `params` as in `raw_build`.
            unsafe {
                ok(
                    ffi::cuGraphExecKernelNodeSetParams_v2(exec, node, params),
                    "cuGraphExecKernelNodeSetParams",
                );
            }
        }
    });
}

/// `assert!` unless `CUSTACK_GRAPH_UNCHECKED` is set.
fn check(ok: bool, what: &str) {
    if std::env::var_os("CUSTACK_GRAPH_UNCHECKED").is_none() {
        assert!(ok, "{what}");
    }
}

type Payload<'g, 'm> = (DeviceBuffer<'g, u32>, custack::Declared<'m, AddU32>);

/// custack: a chain of `len` kernel nodes over the payload's buffer.
fn build<'g, 'm>(
    guard: &'g custack::PushedGuard<'_, '_>,
    payload: Payload<'g, 'm>,
    len: usize,
) -> custack::Result<custack::graph::Graph<'g, Payload<'g, 'm>>> {
    guard.build_graph(payload, move |b, (mut x, add)| {
        let mut last = None;
        for _ in 0..len {
            let deps: &[_] = match &last {
                Some(node) => core::slice::from_ref(node),
                None => &[],
            };
            last = Some(b.kernel(&add, cfg(), (&mut x, 1u32, N32), deps)?);
        }
        Ok(())
    })
}

/// custack: one update setting `add_u32(x, k, N)` on the kernel nodes `nodes` (their indices).
fn update(
    exec: &mut custack::graph::GraphExec<'_, Payload<'_, '_>>,
    nodes: core::ops::Range<usize>,
    k: u32,
) {
    exec.update_kernels(move |u, (mut x, add)| {
        for i in nodes {
            let node = u.kernel_node(&add, i)?;
            u.set_kernel(node, cfg(), (&mut x, k, N32))?;
        }
        Ok(())
    })
    .expect("update_kernels");
}

/// The host function of the raw rows: does nothing.
unsafe extern "C" fn raw_host(_: *mut c_void) {}

/// Raw: a graph of one memset node over `x`.
fn raw_memset_graph(x: ffi::CUdeviceptr, ctx: ffi::CUcontext, value: u32) -> ffi::CUgraph {
    let mut graph = core::ptr::null_mut();
    let mut node = core::ptr::null_mut();
    let params = ffi::CUDA_MEMSET_NODE_PARAMS {
        dst: x,
        pitch: 0,
        value,
        elementSize: 4,
        width: N,
        height: 1,
    };
    // SAFETY: valid out-pointers; a new graph of the current context `ctx`, whose memset sets
    // the N live u32s at `x`.
    unsafe {
        ok(ffi::cuGraphCreate(&raw mut graph, 0), "cuGraphCreate");
        ok(
            ffi::cuGraphAddMemsetNode(
                &raw mut node,
                graph,
                core::ptr::null(),
                0,
                &raw const params,
                ctx,
            ),
            "cuGraphAddMemsetNode",
        );
    }
    graph
}

/// Raw: a device-to-device copy of `N` u32s from `src` to `dst`.
fn raw_copy_params(dst: ffi::CUdeviceptr, src: ffi::CUdeviceptr) -> ffi::CUDA_MEMCPY3D {
    let bytes = N * 4;
    ffi::CUDA_MEMCPY3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: ffi::CU_MEMORYTYPE_DEVICE,
        srcHost: core::ptr::null(),
        srcDevice: src,
        srcArray: core::ptr::null_mut(),
        reserved0: core::ptr::null_mut(),
        srcPitch: bytes,
        srcHeight: 1,
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: ffi::CU_MEMORYTYPE_DEVICE,
        dstHost: core::ptr::null_mut(),
        dstDevice: dst,
        dstArray: core::ptr::null_mut(),
        reserved1: core::ptr::null_mut(),
        dstPitch: bytes,
        dstHeight: 1,
        WidthInBytes: bytes,
        Height: 1,
        Depth: 1,
    }
}

/// Raw: a memset of the `N` u32s at `x` to `value`.
fn raw_memset_params(x: ffi::CUdeviceptr, value: u32) -> ffi::CUDA_MEMSET_NODE_PARAMS {
    ffi::CUDA_MEMSET_NODE_PARAMS {
        dst: x,
        pitch: 0,
        value,
        elementSize: 4,
        width: N,
        height: 1,
    }
}

/// The rows of the memset and memcpy nodes' updates and of enabling a kernel node: a chain of
/// a memset node (`x`), a kernel node (`add_u32` on `x`) and a memcpy node (`x` to `y`), raw
/// and custack, each node updated alone, alternating between two values.
fn data_node_rows(
    guard: &custack::PushedGuard<'_, '_>,
    add: custack::Declared<'_, AddU32>,
    reps: usize,
) -> custack::Result<()> {
    let ctx = guard.as_raw();
    let raw_add = add.as_raw();
    let bufs = [
        guard.alloc_zeroed::<u32>(N)?,
        guard.alloc_zeroed::<u32>(N)?,
        guard.alloc_zeroed::<u32>(N)?,
    ];
    let [raw_x, raw_y, raw_z] = [0, 1, 2].map(|i| bufs[i].device_ptr());
    // Raw: memset, kernel and memcpy nodes, in that order, each after the one before.
    let mut graph = core::ptr::null_mut();
    let mut nodes = [core::ptr::null_mut(); 3];
    // SAFETY: valid out-pointers; a new graph of the current context; the memset and the copy
    // name N live u32s each (x, y), the kernel node's parameters as in `raw_build`; the driver
    // copies every parameter.
    unsafe {
        ok(ffi::cuGraphCreate(&raw mut graph, 0), "cuGraphCreate");
        let set = raw_memset_params(raw_x, 1);
        ok(
            ffi::cuGraphAddMemsetNode(
                &raw mut nodes[0],
                graph,
                core::ptr::null(),
                0,
                &raw const set,
                ctx,
            ),
            "cuGraphAddMemsetNode",
        );
        with_raw_params(raw_add, raw_x, 1, |params| {
            ok(
                ffi::cuGraphAddKernelNode_v2(
                    &raw mut nodes[1],
                    graph,
                    &raw const nodes[0],
                    1,
                    params,
                ),
                "cuGraphAddKernelNode",
            );
        });
        let copy = raw_copy_params(raw_y, raw_x);
        ok(
            ffi::cuGraphAddMemcpyNode(
                &raw mut nodes[2],
                graph,
                &raw const nodes[1],
                1,
                &raw const copy,
                ctx,
            ),
            "cuGraphAddMemcpyNode",
        );
    }
    let raw_exec = raw_instantiate(graph);
    // custack: the same three nodes over the payload's buffers.
    let payload = (
        guard.alloc_zeroed::<u32>(N)?,
        guard.alloc_zeroed::<u32>(N)?,
        guard.alloc_zeroed::<u32>(N)?,
        add,
    );
    let mut exec = guard
        .build_graph(payload, |g, (mut x, mut y, _z, add)| {
            let set = g.fill_u32(&mut x, 1, &[])?;
            let added = g.kernel(&add, cfg(), (&mut x, 1u32, N32), &[set])?;
            g.copy_device(&mut y, &x, &[added])?;
            Ok(())
        })?
        .instantiate()?;
    for (name, which) in [
        ("update 1 memset node", 0),
        ("update 1 memcpy node", 2),
        ("disable or enable 1 kernel node", 1),
    ] {
        let (mut raw_k, mut cu_k) = (1u32, 1u32);
        row(
            name,
            reps,
            || {
                raw_k = 3 - raw_k;
                let k = raw_k;
                let node = nodes[which];
                let (set, copy) = (
                    raw_memset_params(raw_x, k),
                    raw_copy_params(raw_y, if k == 1 { raw_x } else { raw_z }),
                );
                // SAFETY: a live executable graph with no launch pending, made from the graph
                // `node` is a node of (kept alive), of the call's kind; the memset and the copy
                // name N live u32s each, kept until the executable graph is destroyed.
                time(|| unsafe {
                    let r = match which {
                        0 => {
                            ffi::cuGraphExecMemsetNodeSetParams(raw_exec, node, &raw const set, ctx)
                        }
                        2 => ffi::cuGraphExecMemcpyNodeSetParams(
                            raw_exec,
                            node,
                            &raw const copy,
                            ctx,
                        ),
                        _ => ffi::cuGraphNodeSetEnabled(raw_exec, node, k - 1),
                    };
                    ok(r, name);
                })
            },
            || {
                cu_k = 3 - cu_k;
                let k = cu_k;
                time(|| {
                    exec.update_nodes(move |u, (mut x, mut y, z, add)| match which {
                        0 => u.set_fill_u32(u.fill_node(0)?, &mut x, k),
                        2 if k == 1 => u.set_copy_device(u.copy_node(0)?, &mut y, &x),
                        2 => u.set_copy_device(u.copy_node(0)?, &mut y, &z),
                        _ => u.set_enabled(u.kernel_node(&add, 0)?, k == 2),
                    })
                    .expect(name);
                })
            },
        );
    }
    // Both graphs left as built: the memset sets 1, the kernel enabled, the copy reads `x`.
    // SAFETY: a live executable graph with no launch pending; the nodes of its graph.
    unsafe {
        let set = raw_memset_params(raw_x, 1);
        let copy = raw_copy_params(raw_y, raw_x);
        ok(
            ffi::cuGraphExecMemsetNodeSetParams(raw_exec, nodes[0], &raw const set, ctx),
            "memset",
        );
        ok(ffi::cuGraphNodeSetEnabled(raw_exec, nodes[1], 1), "enable");
        ok(
            ffi::cuGraphExecMemcpyNodeSetParams(raw_exec, nodes[2], &raw const copy, ctx),
            "memcpy",
        );
    }
    exec.update_nodes(|u, (mut x, mut y, _z, add)| {
        u.set_fill_u32(u.fill_node(0)?, &mut x, 1)?;
        u.set_enabled(u.kernel_node(&add, 0)?, true)?;
        u.set_copy_device(u.copy_node(0)?, &mut y, &x)
    })?;
    // One launch of each: y = 1 + 1 everywhere.
    let stream = guard.stream()?;
    // SAFETY: a live executable graph and stream of the current context; no other launch.
    unsafe {
        ok(
            ffi::cuGraphLaunch(raw_exec, stream.as_raw()),
            "cuGraphLaunch",
        );
        ok(
            ffi::cuStreamSynchronize(stream.as_raw()),
            "cuStreamSynchronize",
        );
    }
    let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    check(
        bufs[1].to_vec()?.iter().all(|&v| v == 2),
        "raw memset, kernel and memcpy graph result",
    );
    check(
        exec.payload().1.to_vec()?.iter().all(|&v| v == 2),
        "custack memset, kernel and memcpy graph result",
    );
    // SAFETY: live, no launch pending (waited above), each destroyed once (the executable
    // graph first).
    unsafe {
        ok(ffi::cuGraphExecDestroy(raw_exec), "cuGraphExecDestroy");
        ok(ffi::cuGraphDestroy(graph), "cuGraphDestroy");
    }
    drop(exec);
    Ok(())
}

/// The rows of the host, child-graph and event nodes' updates: a graph of one node of each
/// kind, raw and custack, each node updated alone, alternating between two values.
fn other_node_rows(
    guard: &custack::PushedGuard<'_, '_>,
    raw_ptr: ffi::CUdeviceptr,
    reps: usize,
) -> custack::Result<()> {
    let ctx = guard.as_raw();
    let events = [
        guard.event(EventFlags::DISABLE_TIMING)?,
        guard.event(EventFlags::DISABLE_TIMING)?,
    ];
    let raw_events = [events[0].as_raw(), events[1].as_raw()];
    let raw_children = [
        raw_memset_graph(raw_ptr, ctx, 1),
        raw_memset_graph(raw_ptr, ctx, 2),
    ];
    // Raw: host, child, record and wait nodes, in that order.
    let mut graph = core::ptr::null_mut();
    let mut nodes = [core::ptr::null_mut(); 4];
    let host = ffi::CUDA_HOST_NODE_PARAMS {
        fn_: Some(raw_host),
        userData: core::ptr::null_mut(),
    };
    // SAFETY: valid out-pointers; a new graph of the current context; its host node calls a
    // function that does nothing; its child is a live graph, its events live events of the
    // context, all kept until the graph and its executable graph are destroyed below.
    unsafe {
        let none = core::ptr::null();
        ok(ffi::cuGraphCreate(&raw mut graph, 0), "cuGraphCreate");
        ok(
            ffi::cuGraphAddHostNode(&raw mut nodes[0], graph, none, 0, &raw const host),
            "cuGraphAddHostNode",
        );
        ok(
            ffi::cuGraphAddChildGraphNode(&raw mut nodes[1], graph, none, 0, raw_children[0]),
            "cuGraphAddChildGraphNode",
        );
        ok(
            ffi::cuGraphAddEventRecordNode(&raw mut nodes[2], graph, none, 0, raw_events[0]),
            "cuGraphAddEventRecordNode",
        );
        ok(
            ffi::cuGraphAddEventWaitNode(&raw mut nodes[3], graph, none, 0, raw_events[0]),
            "cuGraphAddEventWaitNode",
        );
    }
    let raw_exec = raw_instantiate(graph);
    // custack: the same four nodes; the payload owns both children and both events.
    let child = |v: u32| {
        guard.build_graph(guard.alloc::<u32>(N)?, move |b, mut x| {
            b.fill_u32(&mut x, v, &[])?;
            Ok(())
        })
    };
    let (a, b) = (
        Rc::new(guard.event(EventFlags::DISABLE_TIMING)?),
        Rc::new(guard.event(EventFlags::DISABLE_TIMING)?),
    );
    let payload = (child(1)?, child(2)?, a, b);
    let mut exec = guard
        .build_graph(payload, |g, (one, _two, a, _b)| {
            g.host(|| {}, &[])?;
            g.child(&one, &[])?;
            g.record(&a, &[])?;
            g.wait(&a, &[])?;
            Ok(())
        })?
        .instantiate()?;
    for (name, which) in [
        ("update 1 host node", 0),
        ("update 1 child-graph node", 1),
        ("update 1 event record node", 2),
        ("update 1 event wait node", 3),
    ] {
        let (mut raw_k, mut cu_k) = (1usize, 1usize);
        row(
            name,
            reps,
            || {
                raw_k = 1 - raw_k;
                let k = raw_k;
                let node = nodes[which];
                // SAFETY: a live executable graph with no launch pending, made from the graph
                // `node` is a node of (kept alive), of the call's kind; the function, child
                // graph and events are live and kept until the executable graph is destroyed.
                time(|| unsafe {
                    let r = match which {
                        0 => ffi::cuGraphExecHostNodeSetParams(raw_exec, node, &raw const host),
                        1 => {
                            ffi::cuGraphExecChildGraphNodeSetParams(raw_exec, node, raw_children[k])
                        }
                        2 => ffi::cuGraphExecEventRecordNodeSetEvent(raw_exec, node, raw_events[k]),
                        _ => ffi::cuGraphExecEventWaitNodeSetEvent(raw_exec, node, raw_events[k]),
                    };
                    ok(r, name);
                })
            },
            || {
                cu_k = 1 - cu_k;
                let k = cu_k;
                time(|| {
                    exec.update_nodes(move |u, (one, two, a, b)| {
                        let (child, event) = if k == 0 { (&one, &a) } else { (&two, &b) };
                        match which {
                            0 => u.set_host(u.host_node(0)?, || {}),
                            1 => u.set_child(u.child_node(0)?, child),
                            2 => u.set_record_event(u.record_node(0)?, event),
                            _ => u.set_wait_event(u.wait_node(0)?, event),
                        }
                    })
                    .expect(name);
                })
            },
        );
    }
    // SAFETY: live, never launched, each destroyed once (the executable graph first).
    unsafe {
        ok(ffi::cuGraphExecDestroy(raw_exec), "cuGraphExecDestroy");
        ok(ffi::cuGraphDestroy(graph), "cuGraphDestroy");
        for child in raw_children {
            ok(ffi::cuGraphDestroy(child), "cuGraphDestroy");
        }
    }
    drop(exec);
    Ok(())
}

fn run(reps: usize) -> custack::Result<()> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!(
        "graph_build: {}, driver API {}, a chain of {NODES} kernel nodes of add_u32 on {N} u32s, {reps} repetitions per variant",
        device.name()?,
        driver.version()?
    );
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let raw_add = add.as_raw();
    let stream = guard.stream()?;
    let raw_stream = stream.as_raw();
    let raw_x = guard.alloc_zeroed::<u32>(N)?;
    let raw_ptr = raw_x.device_ptr();

    if let Some(path) = std::env::var_os("CUSTACK_GRAPH_DOT") {
        let payload = (guard.alloc::<u32>(N)?, add, vec![0u32; N]);
        let small = guard.build_graph(payload, |b, (mut x, add, out)| {
            let set = b.fill_u32(&mut x, 40, &[])?;
            let added = b.kernel(&add, cfg(), (&mut x, 2u32, N32), &[set])?;
            b.copy_to_host(out, &x, &[added])?;
            Ok(())
        })?;
        small.write_dot(&path, DotFlags::empty())?;
        println!(
            "graph_build: wrote a built graph's DOT to {}",
            path.to_string_lossy()
        );
    }

    println!(
        "| operation | raw | custack | custack/raw | spread (raw · custack) |\n| --- | ---: | ---: | ---: | --- |"
    );
    row(
        "build 100 kernel nodes",
        reps,
        || {
            let mut graph = core::ptr::null_mut();
            let t = time(|| graph = raw_build(raw_add, raw_ptr, NODES).0);
            // SAFETY: a live graph, destroyed once.
            unsafe { ok(ffi::cuGraphDestroy(graph), "cuGraphDestroy") };
            t
        },
        || {
            let payload = (guard.alloc::<u32>(N).expect("alloc"), add);
            let mut graph = None;
            let t = time(|| graph = Some(build(&guard, payload, NODES).expect("build_graph")));
            drop(graph);
            t
        },
    );
    row(
        "build + instantiate (100 kernel nodes)",
        reps,
        || {
            let (mut graph, mut exec) = (core::ptr::null_mut(), core::ptr::null_mut());
            let t = time(|| {
                graph = raw_build(raw_add, raw_ptr, NODES).0;
                exec = raw_instantiate(graph);
            });
            // SAFETY: live, never launched, each destroyed once (the executable graph first,
            // as custack does: it keeps the graph its updates name).
            unsafe {
                ok(ffi::cuGraphExecDestroy(exec), "cuGraphExecDestroy");
                ok(ffi::cuGraphDestroy(graph), "cuGraphDestroy");
            }
            t
        },
        || {
            let payload = (guard.alloc::<u32>(N).expect("alloc"), add);
            let mut exec = None;
            let t = time(|| {
                exec = Some(
                    build(&guard, payload, NODES)
                        .and_then(custack::graph::Graph::instantiate)
                        .expect("build and instantiate"),
                );
            });
            drop(exec);
            t
        },
    );

    let (raw_graph, raw_nodes) = raw_build(raw_add, raw_ptr, NODES);
    let raw_exec = raw_instantiate(raw_graph);
    let mut exec = build(&guard, (guard.alloc_zeroed::<u32>(N)?, add), NODES)?.instantiate()?;
    for (name, nodes) in [
        ("update 100 kernel nodes", 0..NODES),
        ("update 1 kernel node", 0..1),
    ] {
        let (mut raw_k, mut cu_k) = (1u32, 1u32);
        row(
            name,
            reps,
            || {
                raw_k = 3 - raw_k;
                let k = raw_k;
                time(|| raw_update(raw_exec, &raw_nodes[nodes.clone()], raw_add, raw_ptr, k))
            },
            || {
                cu_k = 3 - cu_k;
                let k = cu_k;
                time(|| update(&mut exec, nodes.clone(), k))
            },
        );
    }
    // The last node of a short chain and of a long one: a node's lookup is an index.
    for len in [SHORT, LONG] {
        let (graph, nodes) = raw_build(raw_add, raw_ptr, len);
        let raw = raw_instantiate(graph);
        let mut chain = build(&guard, (guard.alloc_zeroed::<u32>(N)?, add), len)?.instantiate()?;
        let (mut raw_k, mut cu_k) = (1u32, 1u32);
        row(
            &format!("update the last node of {len}"),
            reps,
            || {
                raw_k = 3 - raw_k;
                let k = raw_k;
                time(|| raw_update(raw, &nodes[len - 1..], raw_add, raw_ptr, k))
            },
            || {
                cu_k = 3 - cu_k;
                let k = cu_k;
                time(|| update(&mut chain, len - 1..len, k))
            },
        );
        // SAFETY: live, never launched, each destroyed once (the executable graph first).
        unsafe {
            ok(ffi::cuGraphExecDestroy(raw), "cuGraphExecDestroy");
            ok(ffi::cuGraphDestroy(graph), "cuGraphDestroy");
        }
    }
    other_node_rows(&guard, raw_ptr, reps)?;
    data_node_rows(&guard, add, reps)?;
    // Both chains set to add 2 at every node, then launched once on their zeroed buffers.
    let expect = 2 * NODES as u32;
    raw_update(raw_exec, &raw_nodes, raw_add, raw_ptr, 2);
    update(&mut exec, 0..NODES, 2);
    // SAFETY: a live executable graph and stream of the current context.
    unsafe {
        ok(ffi::cuGraphLaunch(raw_exec, raw_stream), "cuGraphLaunch");
        ok(ffi::cuStreamSynchronize(raw_stream), "cuStreamSynchronize");
    }
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    check(
        raw_x.to_vec()?.iter().all(|&v| v == expect),
        "raw updated graph result",
    );
    check(
        exec.payload().0.to_vec()?.iter().all(|&v| v == expect),
        "custack updated graph result",
    );
    // SAFETY: live, no launch pending (waited above), each destroyed once.
    unsafe {
        ok(ffi::cuGraphExecDestroy(raw_exec), "cuGraphExecDestroy");
        ok(ffi::cuGraphDestroy(raw_graph), "cuGraphDestroy");
    }
    drop(exec);
    Ok(())
}

fn main() -> std::process::ExitCode {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "graph_build: a benchmark; run it with `cargo bench -p custack-benches --bench graph_build` on a GPU machine"
        );
        return std::process::ExitCode::SUCCESS;
    }
    let reps = std::env::var("CUSTACK_GRAPH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    match run(reps) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("graph_build: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
