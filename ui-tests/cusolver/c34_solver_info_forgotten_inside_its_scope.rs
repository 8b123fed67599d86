//! C34 cuSOLVER's info word: a call borrows its info for the whole scope, so the info (its
//! device word and the page-locked word the call's copy writes) cannot be leaked, dropped or
//! moved while the call may still write it; `mem::forget` inside the scope is a borrow error.
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
    guard.stream()?.scope(|s| -> custack::Result<()> {
        lu.getrf(s, s.bind_mut(&mut a), &mut s.bind_pivots(&mut ipiv), &mut info)?;
        std::mem::forget(info); //~ ERROR E0505
        Ok(())
    })??;
    Ok(())
}
