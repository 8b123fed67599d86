//! C20 context-independent code (library half): a kernel held by a long-lived struct (a
//! `SharedKernel`, which keeps its library loaded) cannot be dropped, nor the struct holding
//! it, while a function made from it is in use.
//! Positive twin: `engine_owns_its_library_and_kernels` in `tests/gpu_library.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, SharedKernel, SharedLibrary, Stack};

struct Engine {
    _library: SharedLibrary,
    empty: SharedKernel,
}

fn main() -> Result<(), custack::Error> {
    let driver = Driver::init()?;
    let library = SharedLibrary::load_ptx(driver, "")?;
    let engine = Engine { empty: library.kernel("empty")?, _library: library };
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let f = guard.library_function(&engine.empty.kernel())?;
    drop(engine); //~ ERROR E0505
    guard.stream()?.scope(|s| unsafe { s.launch_library(&f, LaunchConfig::for_elements(1), ()) })??;
    Ok(())
}
