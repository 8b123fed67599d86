//! C20 context-independent code (library half): a library kernel's function is one context's:
//! it cannot be used while another context is pushed on top of the guard that made it.
//! Positive twin: `one_library_many_contexts` in `tests/gpu_library.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Library, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let library = Library::load_ptx(driver, "")?;
    let empty = library.kernel("empty")?;
    let (a, b) = (Context::new(device, ContextFlags::empty())?, Context::new(device, ContextFlags::empty())?);
    let mut stack = Stack::new()?;
    let mut guard = stack.push(&a)?;
    let f = guard.library_function(&empty)?;
    guard.with_pushed(&b, |inner| { //~ ERROR E0502
        inner.stream()?.scope(|s| unsafe { s.launch_library(&f, LaunchConfig::for_elements(1), ()) })?
    })??;
    Ok(())
}
