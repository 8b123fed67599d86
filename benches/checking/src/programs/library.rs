//! The program `library` (C20): libraries loaded independently of contexts, a kernel's function in
//! two contexts, launches.

use crate::common::{KERNELS, N, N32};
use custack::{Context, Driver, LaunchConfig, Result, Stack, StackTop};

/// Libraries: context-independent loading, a kernel's function in two contexts, launches.
pub(crate) fn library(a: &Context, b: &Context) -> Result<()> {
    let library = custack::Library::load_ptx(Driver::init()?, KERNELS)?;
    let add = library.kernel("add_u32")?;
    let mut stack = Stack::new()?;
    for ctx in [a, b] {
        stack.with_pushed(ctx, |guard| -> Result<()> {
            let f = guard.library_function(&add)?;
            let _ = f.attributes()?;
            let mut x = guard.alloc_zeroed::<u32>(N)?;
            guard.stream()?.scope(|s| {
                let dx = s.bind_mut(&mut x);
                // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
                unsafe { s.launch_library(&f, LaunchConfig::for_elements(N32), (dx, 1u32, N32)) }
            })??;
            x.free()
        })??;
    }
    library.unload()
}
