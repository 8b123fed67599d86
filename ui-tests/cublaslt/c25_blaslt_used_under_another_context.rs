//! C25 library handles: a cuBLASLt handle cannot be used while another context is pushed on
//! top of the guard that lent it (cuBLASLt would run in the wrong context).
//! Positive twin: `a_handle_is_used_again_after_an_inner_guard_pops` in
//! `tests/gpu_cublaslt.rs`.
use custack::blas::Gemm;
use custack::blaslt::Matmul;
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let lt = guard_a.blas_lt()?;
    guard_a.with_pushed(&b, |_guard_b| {
        //~^ ERROR E0502
        lt.matmul_plan::<f32, f32>(&Matmul::new(Gemm::new(2, 2, 2))).map(drop)
    })??;
    Ok(())
}
