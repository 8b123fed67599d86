//! The program `graph_arena` (C28): a replay arena, device memory reserved once and lent to a built
//! and a captured graph replayed at the same addresses, a request past its capacity refused, the
//! arena reset and dropped; the device's graph-memory pool.

use crate::common::{KERNELS, N, N32};
use crate::kernels::AddU32;
use custack::{
    Context, DeviceMemory, DeviceMemoryMut, Driver, GraphMem, LaunchConfig, Result, Stack, StandIn,
};

/// A replay arena (C28): device memory reserved once, two buffers lent from it, a graph built
/// over them and one captured over them, each replayed three times in scopes at the same
/// addresses; the results read back, a request past the arena's capacity refused without a
/// driver call, and the arena reset once the graphs are gone (a context synchronize) and
/// dropped (a synchronize, then its one free). Then the device's graph-memory pool: its figures,
/// its high watermarks reset, a trim.
pub(crate) fn graph_arena(ctx: &Context) -> Result<()> {
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
    let mut arena = guard.replay_arena(4 * N * 4)?;
    {
        let (mut x, y) = (arena.buffer::<u32>(N)?, arena.buffer::<u32>(N)?);
        let at = (x.device_ptr(), y.device_ptr());
        x.copy_from_host(&[1u32; N])?;
        let payload = (x, y, module.declared::<AddU32>()?);
        let built = guard.build_graph(payload, |b, (mut x, mut y, add)| {
            let cfg = LaunchConfig::for_elements(N32);
            let added = b.kernel(&add, cfg, (&mut x, 2u32, N32), &[])?;
            b.copy_device(&mut y, &x, &[added])?;
            Ok(())
        })?;
        let mut exec = built.instantiate()?;
        for _ in 0..3 {
            stream.scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))??;
            let (x, y, _) = exec.payload();
            assert_eq!((x.device_ptr(), y.device_ptr()), at, "replayed in place");
        }
        let (x, y, _) = exec.payload();
        assert_eq!(x.to_vec()?, vec![7u32; N], "1 + 3 * 2");
        assert_eq!(y.to_vec()?, vec![7u32; N]);
        let z = arena.buffer::<u32>(N)?;
        let at_z = z.device_ptr();
        let captured = stream.capture((z, module.declared::<AddU32>()?), |s, (mut z, add)| {
            s.run(&add, LaunchConfig::for_elements(N32), (&mut z, 5u32, N32))
        })?;
        let mut replay = captured.instantiate()?;
        replay.payload_mut().0.copy_from_host(&[0u32; N])?;
        for _ in 0..3 {
            stream.scope(|s| s.launch_graph(&s.bind_graph(&mut replay)))??;
        }
        assert_eq!(replay.payload().0.device_ptr(), at_z);
        assert_eq!(replay.payload().0.to_vec()?, vec![15u32; N], "3 * 5");
        let refused = arena.buffer::<u32>(N + 1).map(drop);
        assert_eq!(
            refused.map_err(|e| e.kind()),
            Err(custack::ErrorKind::OutOfMemory)
        );
    }
    arena.reset()?;
    assert_eq!(arena.remaining(), arena.capacity());
    drop(arena);
    // The device's graph-memory pool, which an arena's graphs never touch: its figures read,
    // its high watermarks reset, a figure only the pool sets refused first, then a trim.
    let device = Driver::init()?.device(0)?;
    for figure in [
        GraphMem::Used,
        GraphMem::UsedHigh,
        GraphMem::Reserved,
        GraphMem::ReservedHigh,
    ] {
        let _ = device.graph_mem(figure)?;
    }
    device.reset_graph_mem_high(GraphMem::UsedHigh)?;
    device.reset_graph_mem_high(GraphMem::ReservedHigh)?;
    let refused = device.reset_graph_mem_high(GraphMem::Used);
    assert_eq!(
        refused.map_err(|e| e.kind()),
        Err(custack::ErrorKind::InvalidValue)
    );
    device.graph_mem_trim()?;
    Ok(())
}
