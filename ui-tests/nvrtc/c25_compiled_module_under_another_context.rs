//! C25 library handles: a module NVRTC compiled and one guard loaded cannot be used while
//! another context is pushed on top of that guard. Positive twin:
//! `template_kernels_by_name_expression_from_ptx` in `tests/gpu_nvrtc.rs`.
use custack::nvrtc::{Options, Program};
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let compiled = Program::new("noop.cu", "extern \"C\" __global__ void noop() {}")?
        .compile(&Options::new())?;
    let device = Driver::init()?.device(0)?;
    let (outer, inner) = (
        Context::new(device, ContextFlags::empty())?,
        Context::new(device, ContextFlags::empty())?,
    );
    let mut stack = Stack::new()?;
    let mut guard = stack.push(&outer)?;
    let module = guard.load_compiled(&compiled)?;
    guard.with_pushed(&inner, |_on_top| module.function("noop").map(drop))??; //~ ERROR E0502
    Ok(())
}
