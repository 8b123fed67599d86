//! The program `graph_built` (C28): a graph built node by node (a memset, a declared kernel checked
//! against its contract, copies, an event record and wait, a child graph), launched in a submission
//! and in a scope; its kernel node updated, disabled and enabled again; then a build whose kernel
//! node its contract refuses.

use crate::common::{KERNELS, N, N32};
use crate::kernels::AddU32;
use custack::{Context, Driver, EventFlags, LaunchConfig, Result, Stack, StandIn};

/// A graph built node by node (C28): a memset, a declared kernel checked against its contract,
/// copies to, within and from the device, an event record and wait, a child graph; instantiated
/// and launched in a submission and in a scope. Then a build whose kernel node its contract
/// refuses: the graph is destroyed and its payload dropped, nothing launched.
#[allow(clippy::too_many_lines)] // one graph's life: build, launches, updates, enabling, a refusal
pub(crate) fn graph_built(ctx: &Context) -> Result<Vec<u32>> {
    use std::rc::Rc;
    // SAFETY: as the kernel, the stand-in reads and writes x[0..n): the results below are the
    // CPU's whenever every call succeeded.
    let _add_u32_on_cpu = unsafe {
        StandIn::register(&Driver::init()?, "add_u32", |call| {
            let (x, k, n) = (
                call.arg::<u64>(0)?,
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<u32>(x, n as usize)?;
            for e in &mut v {
                *e += k;
            }
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let stream = guard.stream()?;
    let child = guard.build_graph(guard.alloc::<u32>(N)?, |b, mut d| {
        b.fill_u32(&mut d, 3, &[])?;
        Ok(())
    })?;
    let event = Rc::new(guard.event(EventFlags::DISABLE_TIMING)?);
    let payload = (
        guard.alloc::<u32>(N)?,
        guard.alloc::<u32>(N)?,
        module.declared::<AddU32>()?,
        vec![0u32; N],
        Rc::clone(&event),
        child,
        vec![7u32; N],
    );
    let graph = guard.build_graph(payload, |b, (mut x, mut y, add, out, ev, child, input)| {
        let up = b.copy_to_device(&mut x, input, &[])?;
        let set = b.fill_u32(&mut y, 1, &[])?;
        let cfg = LaunchConfig::for_elements(N32);
        let added = b.kernel(&add, cfg, (&mut x, 5u32, N32), &[up])?;
        let copied = b.copy_device(&mut y, &x, &[added, set])?;
        let recorded = b.record(&ev, &[copied])?;
        let waited = b.wait(&ev, &[recorded])?;
        let sub = b.child(&child, &[])?;
        b.copy_to_host(out, &y, &[waited, sub])?;
        Ok(())
    })?;
    let _ = graph.node_count()?;
    // The DOT file, where the process may write files (Miri isolates it from the file system).
    if !cfg!(miri) {
        let dot =
            std::env::temp_dir().join(format!("custack-graph-built-{}.dot", std::process::id()));
        graph.write_dot(&dot, custack::graph::DotFlags::VERBOSE)?;
        let text = std::fs::read_to_string(&dot).unwrap_or_default();
        let _ = std::fs::remove_file(&dot);
        assert!(text.starts_with("digraph"), "a DOT file: {text:?}");
    }
    let mut exec = graph.instantiate()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    stream.scope(|s| {
        let g = s.bind_graph(&mut exec);
        s.launch_graph(&g)
    })??;
    let out = exec.payload().3.to_vec();
    assert!(out.iter().all(|&v| v == 12), "7 + 5 copied out");
    // The kernel node's parameters updated in place: a new scalar over the same buffer, then
    // an update past the buffer's extent, refused before the driver sees it.
    exec.update_kernels(|u, (mut x, _, add, ..)| {
        let node = u.kernel_node(&add, 0)?;
        u.set_kernel(node, LaunchConfig::for_elements(N32), (&mut x, 9u32, N32))?;
        match u.set_kernel(
            node,
            LaunchConfig::for_elements(2 * N32),
            (&mut x, 1u32, 2 * N32),
        ) {
            Err(e) if e.kind() == custack::ErrorKind::BufferTooShort => {}
            other => panic!("an update past the buffer's extent: {other:?}"),
        }
        match u.kernel_node(&add, 1) {
            Err(e) if e.kind() == custack::ErrorKind::InvalidValue => Ok(()),
            other => panic!("a second node of one kernel node: {other:?}"),
        }
    })?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let updated = exec.payload().3.to_vec();
    assert!(updated.iter().all(|&v| v == 16), "7 + 9 copied out");
    // The kernel node disabled (`cuGraphNodeSetEnabled`): the launch copies 7 out unchanged;
    // a new scalar set while it is disabled is kept, and runs once it is enabled again.
    exec.update_nodes(|u, (mut x, _, add, ..)| {
        let node = u.kernel_node(&add, 0)?;
        u.set_enabled(node, false)?;
        assert!(!u.enabled(node)?, "disabled");
        u.set_kernel(node, LaunchConfig::for_elements(N32), (&mut x, 2u32, N32))
    })?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let skipped = exec.payload().3.to_vec();
    assert!(
        skipped.iter().all(|&v| v == 7),
        "7 copied out, nothing added"
    );
    exec.update_nodes(|u, (_, _, add, ..)| {
        let node = u.kernel_node(&add, 0)?;
        u.set_enabled(node, true)?;
        assert!(u.enabled(node)?, "enabled");
        Ok(())
    })?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let enabled = exec.payload().3.to_vec();
    assert!(enabled.iter().all(|&v| v == 9), "7 + 2 copied out");
    drop(exec);
    let short = (guard.alloc::<u32>(8)?, module.declared::<AddU32>()?);
    let refused = guard.build_graph(short, |b, (mut x, add)| {
        b.kernel(
            &add,
            LaunchConfig::for_elements(N32),
            (&mut x, 1u32, N32),
            &[],
        )?;
        Ok(())
    });
    match refused {
        Err(e) if e.kind() == custack::ErrorKind::BufferTooShort => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("a kernel node past its buffer's extent was made"),
    }
    Ok(out)
}
