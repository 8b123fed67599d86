//! C34 cuSOLVER's buffers: a matrix bound to one stream's scope cannot be factored in a scope
//! of another stream, where both streams' work could write it at once. Positive twin:
//! `calls_on_two_streams_are_ordered` in `tests/gpu_cusolver.rs`.
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
    let (one, two) = (guard.stream()?, guard.stream()?);
    one.scope(|s1| {
        let a1 = s1.bind_mut(&mut a);
        two.scope(|s2| lu.getrf(s2, a1, &mut s2.bind_pivots(&mut ipiv), &mut info))? //~ ERROR E0521
    })??;
    Ok(())
}
