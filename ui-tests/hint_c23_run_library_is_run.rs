// `run_library` was removed before 0.1.0: a library's declared kernel launches with `s.run`, as
// a module's does. A port of older code that still calls it is told so, instead of the nearest
// name (`launch_library`, unsafe and unchecked).
use custack::{Context, ContextFlags, Driver, LaunchConfig, Library, Stack};

custack::kernel_contract! {
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

fn main() -> custack::Result<()> {
    let driver = Driver::init()?;
    let library = Library::load_ptx(driver, "")?;
    let add = library.kernel("add_u32")?;
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let add = guard.library_function(&add)?.declared::<AddU32>()?;
    let mut x = guard.alloc_zeroed::<u32>(256)?;
    guard.stream()?.scope(|s| {
        let mut x = s.bind_mut(&mut x);
        s.run_library(&add, LaunchConfig::for_elements(256), (&mut x, 1, 256))
    })??;
    Ok(())
}
