//! The program `p8` (P8): two contexts alternated round after round, each round's buffer and module
//! parked and attached again (`step_parked`).

use crate::common::{KERNELS, N, add_on_device};
use custack::{
    Context, DeviceMemory, ParkedBuffer, ParkedModule, PushedGuard, Result, Stack, StackTop,
};

fn step_parked<'c>(
    guard: &PushedGuard<'c, '_>,
    buffer: ParkedBuffer<'c, u32>,
    module: ParkedModule<'c>,
    k: u32,
) -> Result<(ParkedBuffer<'c, u32>, ParkedModule<'c>)> {
    let mut buffer = guard.attach(buffer)?;
    let module = guard.attach_module(module)?;
    add_on_device(guard, &module, &mut buffer, k)?;
    Ok((guard.park(buffer), guard.park_module(module)))
}

pub(crate) fn p8_alternating_contexts(
    a: &Context,
    b: &Context,
    rounds: u32,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let (mut buffer_a, mut module_a) = stack.with_pushed(a, |g| -> Result<_> {
        Ok((
            g.park(g.alloc_zeroed::<u32>(N)?),
            g.park_module(g.load_ptx(KERNELS)?),
        ))
    })??;
    let (mut buffer_b, mut module_b) = stack.with_pushed(b, |g| -> Result<_> {
        Ok((
            g.park(g.alloc_zeroed::<u32>(N)?),
            g.park_module(g.load_ptx(KERNELS)?),
        ))
    })??;
    for round in 1..=rounds {
        (buffer_a, module_a) =
            stack.with_pushed(a, |g| step_parked(g, buffer_a, module_a, 1))??;
        (buffer_b, module_b) =
            stack.with_pushed(b, |g| step_parked(g, buffer_b, module_b, round))??;
    }
    let read_a = stack.with_pushed(a, |g| g.attach(buffer_a)?.to_vec())??;
    let read_b = stack.with_pushed(b, |g| g.attach(buffer_b)?.to_vec())??;
    drop((module_a, module_b)); // each pushes its own context to unload
    Ok((read_a, read_b))
}
