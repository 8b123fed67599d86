//! C20 context-independent code (library half): a function made from a long-lived struct's
//! kernel (a `SharedKernel`) is still one context's, lent by its guard: it cannot be used after
//! that guard pops.
//! Positive twin: `engine_owns_its_library_and_kernels` in `tests/gpu_library.rs`.
use custack::{Context, ContextFlags, Driver, SharedKernel, SharedLibrary, Stack};

struct Engine {
    empty: SharedKernel,
}

fn main() -> Result<(), custack::Error> {
    let driver = Driver::init()?;
    let engine = Engine { empty: SharedLibrary::load_ptx(driver, "")?.kernel("empty")? };
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let f = guard.library_function(&engine.empty.kernel())?;
    guard.pop()?; //~ ERROR E0505
    let _ = f.attributes()?;
    Ok(())
}
