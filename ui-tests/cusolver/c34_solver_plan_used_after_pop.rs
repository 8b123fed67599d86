//! C34 (C25 for cuSOLVER's plans): a plan borrows the guard that made it, so it cannot be used
//! after the guard popped. Positive twin: `lu_solves_match_the_cpu_in_both_precisions` in
//! `tests/gpu_cusolver.rs`.
use custack::solver::Matrix;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lu = guard.lu_plan::<f32>(Matrix::square(4))?;
    drop(guard); //~ ERROR E0505
    lu.destroy()?;
    Ok(())
}
