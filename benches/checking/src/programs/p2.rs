//! The program `p2` (P2): push, pop, push again: two contexts in turn on one stack, each allocating
//! and reading back under its own guard.

use custack::{Context, DeviceMemory, Result, Stack};

pub(crate) fn p2_push_pop_push(
    a: &Context,
    b: &Context,
) -> Result<Vec<(custack::ffi::CUcontext, Vec<u32>)>> {
    let mut stack = Stack::new()?;
    let mut seen = Vec::new();
    for (ctx, value) in [(a, 1u32), (b, 2), (a, 3)] {
        let guard = stack.push(ctx)?;
        let read = guard.alloc_from(&[value; 4])?.to_vec()?;
        seen.push((guard.as_raw(), read));
        guard.pop()?;
    }
    Ok(seen)
}
