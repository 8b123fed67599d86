//! C20 context-independent code (library half): a library kernel's function launches only in a
//! borrowing scope; it is not a payload, so no submission can carry it past the library's
//! unload.
//! Positive twin: `one_library_many_contexts` in `tests/gpu_library.rs`.
use custack::{Context, ContextFlags, Driver, Library, Stack};

fn main() -> Result<(), custack::Error> {
    let driver = Driver::init()?;
    let library = Library::load_ptx(driver, "")?;
    let empty = library.kernel("empty")?;
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let f = guard.library_function(&empty)?;
    let stream = guard.stream()?;
    let pending = stream.submit(f, |_s, _f| Ok(()))?; //~ ERROR E0277
    pending.wait()?;
    Ok(())
}
