//! The program `scoped_alloc` (C10): a stream-ordered allocation made and freed inside a stream
//! scope.

use crate::common::KERNELS;
use custack::{Context, LaunchConfig, Result, Stack};

pub(crate) fn c10_stream_ordered_alloc_in_scope(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let host = vec![3u32; 256];
    let mut out = vec![0u32; 256];
    stream.scope(|s| -> Result<()> {
        let mut tmp = s.alloc::<u32>(256)?;
        s.copy_to_device(&mut tmp, &host)?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
        unsafe {
            s.launch(
                &add,
                LaunchConfig::for_elements(256),
                (&mut tmp, 4u32, 256u32),
            )
        }?;
        s.copy_to_host(&mut out, &tmp)?;
        let scratch = s.alloc::<u8>(1 << 20)?;
        drop(scratch); // freed in stream order; nothing used it
        let mut halves = s.alloc::<u16>(256)?;
        s.fill_u16(&mut halves, 7)?;
        halves.free() // the explicit free, which returns the driver's error
    })??;
    Ok(out)
}
