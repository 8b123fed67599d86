//! C25 library handles: a read-only binding (`ScopedSlice`, from `bind`) cannot be the `D` of a
//! cuBLASLt matmul, which writes it: it must be bound with `bind_mut`.
//! Positive twin: `f32_matmuls_match_the_cpu_with_transposes_leading_dimensions_and_in_place`
//! in `tests/gpu_cublaslt.rs`.
use custack::blas::Gemm;
use custack::blaslt::Matmul;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lt = guard.blas_lt()?;
    let plan = lt.matmul_plan::<f32, f32>(&Matmul::new(Gemm::new(2, 2, 2)))?;
    let (a, d) = (guard.alloc_zeroed::<f32>(4)?, guard.alloc_zeroed::<f32>(4)?);
    guard.stream()?.scope(|s| {
        plan.run_in_place(s, s.bind(&a), s.bind(&a), s.bind(&d), ()) //~ ERROR E0277
    })??;
    Ok(())
}
