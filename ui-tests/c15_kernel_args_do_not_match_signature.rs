//! C15 wrong-type arguments: a kernel looked up with a checked signature launches only with
//! arguments of that signature (here a `u64` where the kernel takes an `unsigned`).
//! Positive twin: `kernels_with_checked_signatures` in `tests/gpu_launch.rs`.
use custack::{Context, ContextFlags, DevicePtr, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let add = module.kernel::<(DevicePtr<u32>, u32, u32)>("add_u32")?;
    let stream = guard.stream()?;
    let mut x = guard.alloc::<u32>(16)?;
    stream.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        unsafe { s.launch_kernel(&add, LaunchConfig::for_elements(16), (&mut dx, 2u64, 16u32)) } //~ ERROR E0271
    })??;
    Ok(())
}
