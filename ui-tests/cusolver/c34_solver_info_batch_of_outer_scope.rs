//! C34 cuSOLVER's info array: a batch is branded with the scope it was opened on, so a call on
//! another stream's scope cannot write into it (its one copy back would not follow that call).
//! Positive twin: `a_hundred_factorizations_read_back_with_one_copy` in
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
    let mut infos = guard.solver_infos(4)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    one.scope(|s1| {
        let batch = infos.open(s1);
        two.scope(|s2| lu.getrf(s2, s2.bind_mut(&mut a), &mut s2.bind_pivots(&mut ipiv), &batch))? //~ ERROR E0521
    })??;
    Ok(())
}
