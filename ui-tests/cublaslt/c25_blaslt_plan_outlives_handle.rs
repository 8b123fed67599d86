//! C25 library handles: a cuBLASLt matmul plan borrows its handle, whose workspace its runs
//! use: the handle cannot be destroyed (or dropped) while the plan lives.
//! Positive twin: `one_handle_serves_two_streams_and_submissions_and_drops_with_work_pending`
//! in `tests/gpu_cublaslt.rs` (the plan dropped first).
use custack::blas::Gemm;
use custack::blaslt::Matmul;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lt = guard.blas_lt()?;
    let plan = lt.matmul_plan::<f32, f32>(&Matmul::new(Gemm::new(2, 2, 2)))?;
    lt.destroy()?; //~ ERROR E0505
    drop(plan);
    Ok(())
}
