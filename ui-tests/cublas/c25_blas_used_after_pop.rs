//! C25 library handles: a cuBLAS handle lent by a guard cannot be used after the guard is
//! dropped (its context popped).
//! Positive twin: `gemm_f32_matches_the_cpu` in `tests/gpu_cublas.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let blas = guard.blas()?;
    drop(guard); //~ ERROR E0505
    blas.destroy()?;
    Ok(())
}
