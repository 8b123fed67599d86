//! C34 cuSOLVER's info word: one info holds one call's answer, so giving it to two calls of a
//! scope (where `getrs`'s 0 would overwrite `getrf`'s singular pivot) is a borrow error.
//! Positive twin: `lu_solves_match_the_cpu_in_both_precisions` in `tests/gpu_cusolver.rs`
//! (two infos).
use custack::solver::Transpose;
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
    let mut b = guard.alloc_zeroed::<f64>(2)?;
    guard.stream()?.scope(|s| -> custack::Result<()> {
        let (mut a, mut p) = (s.bind_mut(&mut a), s.bind_pivots(&mut ipiv));
        lu.getrf(s, &mut a, &mut p, &mut info)?;
        lu.getrs(s, Transpose::No, &a, &p, s.bind_mut(&mut b), Matrix::new(2, 1), &mut info) //~ ERROR E0499
    })??;
    Ok(())
}
