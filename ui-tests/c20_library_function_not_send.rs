//! C20 context-independent code (library half): a library kernel's function belongs to the
//! context current on this thread; it cannot go to another thread.
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
    std::thread::scope(|t| {
        t.spawn(move || drop(f)); //~ ERROR E0277
    });
    Ok(())
}
