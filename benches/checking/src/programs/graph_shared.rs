//! The program `graph_shared` (C28): two executable graphs sharing one built graph's payload (one
//! from a clone, with flags), uploaded and launched; memset and memcpy nodes updated in place, and
//! updates that would change a node's kind refused.

use crate::common::{KERNELS, N, N32};
use crate::kernels::AddU32;
use custack::{Context, Driver, LaunchConfig, Result, Stack, StandIn};

/// Graphs that survive instantiation: two executable graphs sharing one built graph's payload
/// (one of them made from a clone, with flags), uploaded and launched in scopes, the node
/// kinds listed, the payload read back once both are gone, and a flag set the driver would
/// refuse refused first; then the memset and memcpy nodes updated in place (to another buffer,
/// another value), and updates that would change a node's kind refused.
pub(crate) fn graph_shared(ctx: &Context) -> Result<Vec<u32>> {
    use custack::graph::InstantiateFlags;
    // SAFETY: as the kernel, the stand-in reads and writes x[0..n).
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
    let payload = (
        guard.alloc::<u32>(N)?,
        module.declared::<AddU32>()?,
        vec![0u32; N],
        guard.alloc::<u32>(N)?,
    );
    let mut graph = guard.build_graph(payload, |b, (mut x, add, out, _y)| {
        let set = b.fill_u32(&mut x, 1, &[])?;
        let added = b.kernel(
            &add,
            LaunchConfig::for_elements(N32),
            (&mut x, 2u32, N32),
            &[set],
        )?;
        b.copy_to_host(out, &x, &[added])?;
        Ok(())
    })?;
    assert_eq!(graph.nodes()?.len(), 3, "three nodes listed");
    {
        let first = graph.instantiate_shared(InstantiateFlags::empty())?;
        let clone = graph.clone_graph()?;
        assert_eq!(clone.nodes()?.len(), 3, "the clone's three nodes");
        let second = clone.instantiate_shared(InstantiateFlags::USE_NODE_PRIORITY)?;
        drop(clone);
        first.upload(&stream)?;
        second.upload(&stream)?;
        stream.scope(|s| {
            s.launch_graph(&s.bind_shared(&first))?;
            s.launch_graph(&s.bind_shared(&second))
        })??;
    }
    let out = graph.payload_mut().2.to_vec();
    assert!(out.iter().all(|&v| v == 3), "1 + 2 copied out");
    match graph
        .instantiate_shared(InstantiateFlags::AUTO_FREE_ON_LAUNCH | InstantiateFlags::DEVICE_LAUNCH)
    {
        Err(e) if e.kind() == custack::ErrorKind::InvalidValue => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("AUTO_FREE_ON_LAUNCH with DEVICE_LAUNCH was instantiated"),
    }
    let mut exec = graph.instantiate_with(InstantiateFlags::AUTO_FREE_ON_LAUNCH)?;
    exec.upload(&stream)?;
    let mut exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    assert!(exec.payload().2.iter().all(|&v| v == 3));
    // The memset now sets `y` to 10, the copy reads `y`: the kernel's `x` is no longer copied.
    exec.update_nodes(|u, (x, _add, out, mut y)| {
        let fill = u.fill_node(0)?;
        match u.set_fill_bytes(fill, &mut y, 1) {
            Err(e) if e.kind() == custack::ErrorKind::InvalidValue => {}
            other => panic!("a fill_u32 node updated as a byte fill: {other:?}"),
        }
        u.set_fill_u32(fill, &mut y, 10)?;
        let copy = u.copy_node(0)?;
        u.set_copy_to_host(copy, out, &y)?;
        match u.set_copy_device(copy, &mut y, &x) {
            Err(e) if e.kind() == custack::ErrorKind::InvalidValue => {}
            other => panic!("a device-to-host node updated as a device copy: {other:?}"),
        }
        match u.copy_node(1) {
            Err(e) if e.kind() == custack::ErrorKind::InvalidValue => Ok(()),
            other => panic!("a second memcpy node of one: {other:?}"),
        }
    })?;
    let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    assert!(
        exec.payload().2.iter().all(|&v| v == 10),
        "y set to 10 copied out"
    );
    Ok(out)
}
