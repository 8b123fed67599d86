//! The program `reuse_after_scope` (C10, C11): memory bound to a scope, a stream-ordered allocation
//! and page-locked memory, used again once the scope has ended.

use crate::common::{KERNELS, N, N32};
use custack::{Context, DeviceMemory, LaunchConfig, Result, Stack};

pub(crate) fn c10_c11_memory_reused_after_scope(
    ctx: &Context,
) -> Result<(Vec<u32>, Vec<u32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let mut host = guard.alloc_pinned::<u32>(N)?;
    host.fill(1);
    let mut dev = guard.alloc::<u32>(N)?;
    let mut out = guard.alloc_pinned::<u32>(N)?;
    let cfg = LaunchConfig::for_elements(N32);
    stream.scope(|s| -> Result<()> {
        let mut d = s.bind_mut(&mut dev);
        s.copy_to_device(&mut d, &host)?;
        // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)`; `d` holds `n` elements.
        unsafe { s.launch(&add, cfg, (&mut d, 1u32, N32)) }?;
        s.copy_to_host(&mut out, &d)
    })??;
    let first = dev.to_vec()?; // read on the host after the scope
    let first_async = out.to_vec(); // host memory read after the scope
    if let Some(first) = host.first_mut() {
        *first = 40; // host memory mutated after the scope
    }
    let moved = host; // and moved
    let mut back = vec![0u32; N];
    stream.scope(|s| -> Result<()> {
        let mut d = s.bind_mut(&mut dev);
        s.copy_to_device(&mut d, &moved)?;
        s.copy_to_host(&mut back, &d)
    })??;
    dev.free()?; // freed after the scope
    let mut second = back;
    second.truncate(2);
    Ok((first, first_async, second))
}
