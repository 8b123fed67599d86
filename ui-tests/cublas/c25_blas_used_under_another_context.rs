//! C25 library handles: a cuBLAS handle cannot be used while another context is pushed on top
//! of the guard that lent it (cuBLAS would run in the wrong context).
//! Positive twin: `handle_used_again_after_the_inner_guard_pops` in `tests/gpu_cublas.rs`.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let blas = guard_a.blas()?;
    guard_a.with_pushed(&b, |_guard_b| {
        //~^ ERROR E0502
        blas.destroy()
    })??;
    Ok(())
}
