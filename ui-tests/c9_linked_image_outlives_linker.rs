//! C9 function outlives module (its linker half): the image a linker completed belongs to the
//! linker; it cannot be loaded after the linker is gone.
//! Positive twin: `two_ptx_files_linked_into_one_image` in `tests/gpu_jit.rs`.
use custack::{Context, ContextFlags, Driver, JitOptions, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut linker = guard.linker(&JitOptions::default())?;
    linker.add_ptx("a.ptx", "")?;
    let (image, _log) = linker.complete()?;
    drop(linker); //~ ERROR E0505
    let _module = guard.load_linked(&image)?;
    Ok(())
}
