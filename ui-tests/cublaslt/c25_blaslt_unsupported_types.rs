//! C25 library handles: a matmul's element types are those cuBLASLt computes in `f32`: `F16`
//! inputs cannot produce `Bf16` (nor `f32` inputs `F16`): the combination fails to compile.
//! Positive twin: `half_and_bfloat16_inputs_match_the_cpu` in `tests/gpu_cublaslt.rs`.
use custack::blas::{Bf16, F16, Gemm};
use custack::blaslt::Matmul;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lt = guard.blas_lt()?;
    let _plan = lt.matmul_plan::<F16, Bf16>(&Matmul::new(Gemm::new(2, 2, 2)))?; //~ ERROR E0277
    Ok(())
}
