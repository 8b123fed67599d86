//! C34 cuSOLVER's info word: it is known only once the scope that enqueued the call has waited
//! for its stream, so reading it inside that scope (while the call may still run) is a borrow
//! error. Positive twin: `lu_solves_match_the_cpu_in_both_precisions` in
//! `tests/gpu_cusolver.rs`.
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
        info.ensure_success() //~ ERROR E0502
    })??;
    Ok(())
}
