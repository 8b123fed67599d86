//! C25 library handles: a module NVRTC compiled and a guard loaded cannot be used after the
//! guard is dropped. Positive twin: `a_cubin_for_the_device_runs_the_clock_kernel` in
//! `tests/gpu_nvrtc.rs`.
use custack::nvrtc::{Options, Program};
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let compiled = Program::new("noop.cu", "extern \"C\" __global__ void noop() {}")?
        .compile(&Options::new())?;
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_compiled(&compiled)?;
    drop(guard); //~ ERROR E0505
    let _ = module.function("noop")?;
    Ok(())
}
