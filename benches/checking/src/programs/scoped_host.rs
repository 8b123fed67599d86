//! The program `scoped_host` (C11): pageable host memory bound to a scope for reading and for
//! writing, page-locked memory as slices around the scope.

use crate::common::N;
use custack::{Context, Result, Stack};

/// Scoped host pointers: pageable host memory bound to a scope for reading and for writing
/// (the same buffer both read and written), page-locked memory as slices around the scope.
pub(crate) fn scoped_host(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let mut dev = guard.alloc::<u32>(N)?;
    let mut pinned = guard.alloc_pinned::<u32>(N)?;
    pinned.fill(3);
    let input = vec![2u32; N];
    let mut output = vec![0u32; N];
    stream.scope(|s| -> Result<()> {
        let h = s.bind_host(&input);
        let o = s.bind_host_mut(&mut output);
        let mut d = s.bind_mut(&mut dev);
        s.copy_to_device(&mut d, h)?;
        s.fill_u32(&mut d, 7)?;
        s.copy_to_host(o, &d)?;
        s.copy_to_device(&mut d, o)?; // read back what the scope wrote
        s.copy_to_device(&mut d, &pinned)?;
        s.copy_to_host(o, &d)
    })??;
    output.extend_from_slice(&pinned);
    Ok(output)
}
