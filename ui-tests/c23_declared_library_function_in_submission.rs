//! C23 kernel contracts (with C20): a library kernel's declared function launches only in a
//! borrowing scope, like the `LibraryFunction` it comes from; it is not a payload, so no
//! submission can carry it past the library's unload.
//! Positive twin: `declared_library_function` in `tests/gpu_contract.rs`.
use custack::{Context, ContextFlags, Driver, Library, Stack};

custack::kernel_contract! {
    /// `empty()`: touches nothing.
    unsafe kernel Empty = "empty"();
}

fn main() -> Result<(), custack::Error> {
    let driver = Driver::init()?;
    let library = Library::load_ptx(driver, "")?;
    let empty = library.kernel("empty")?;
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let f = guard.library_function(&empty)?.declared::<Empty>()?;
    let stream = guard.stream()?;
    let pending = stream.submit(f, |_s, _f| Ok(()))?; //~ ERROR E0277
    pending.wait()?;
    Ok(())
}
