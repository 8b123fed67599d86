//! C34 cuSOLVER's info array: a batch borrows its `SolverInfos` for the whole scope, so reading
//! the array inside the scope (before its one copy back has run) is a borrow error. Positive
//! twin: `a_hundred_factorizations_read_back_with_one_copy` in `tests/gpu_cusolver.rs`.
use custack::solver::Matrix;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lu = guard.lu_plan::<f64>(Matrix::square(2))?;
    let mut a = guard.alloc_zeroed::<f64>(4)?;
    let mut ipiv = guard.lu_pivots(Matrix::square(2))?;
    let mut infos = guard.solver_infos(4)?;
    guard.stream()?.scope(|s| -> custack::Result<()> {
        let batch = infos.open(s);
        lu.getrf(s, s.bind_mut(&mut a), &mut s.bind_pivots(&mut ipiv), &batch)?;
        drop(batch);
        infos.ensure_success() //~ ERROR E0502
    })??;
    Ok(())
}
