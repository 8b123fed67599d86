//! C34 cuSOLVER's buffers: a factorization overwrites its matrix, so a read-only binding
//! (`ScopedSlice`, from `bind`) cannot be its `A`: it must be bound with `bind_mut`.
//! Positive twin: `lu_solves_match_the_cpu_in_both_precisions` in `tests/gpu_cusolver.rs`.
use custack::solver::Matrix;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lu = guard.lu_plan::<f64>(Matrix::square(2))?;
    let mut a = guard.alloc_zeroed::<f64>(4)?;
    let mut ipiv = guard.lu_pivots(Matrix::square(2))?;
    let mut info = guard.solver_info()?;
    guard.stream()?.scope(|s| {
        lu.getrf(s, s.bind(&a), &mut s.bind_pivots(&mut ipiv), &mut info) //~ ERROR E0277
    })??;
    Ok(())
}
