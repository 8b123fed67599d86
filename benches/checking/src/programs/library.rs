//! The program `library` (C20, C23): libraries loaded independently of contexts, a kernel's
//! function in two contexts, launches; a shared library's kernel declared with its own contract
//! and run, another kernel's contract refused.

use crate::common::{KERNELS, N, N32, refused};
use crate::kernels::{AddU32, CountThreads};
use custack::{Context, Driver, ErrorKind, LaunchConfig, Result, Stack, StackTop};

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
    library.unload()?;
    // A shared library's kernel keeps the name it was looked up with: its function takes the
    // contract of that kernel and runs under it, and another kernel's contract is refused
    // before the driver (a contract holds only for the kernel it names).
    let shared = custack::SharedLibrary::load_ptx(Driver::init()?, KERNELS)?;
    let add = shared.kernel("add_u32")?;
    stack.with_pushed(a, |guard| -> Result<()> {
        let f = guard.library_function(&add.kernel())?;
        refused(ErrorKind::KernelSignatureMismatch, || {
            f.declared::<CountThreads>().map(drop)
        });
        let add = f.declared::<AddU32>()?;
        let mut x = guard.alloc_zeroed::<u32>(N)?;
        guard.stream()?.scope(|s| {
            let mut dx = s.bind_mut(&mut x);
            s.run(&add, LaunchConfig::for_elements(N32), (&mut dx, 3, N32))
        })??;
        x.free()
    })?
}
