//! C34 (C25 for cuSOLVER's plans): a plan is bound to its guard's context, current on this
//! thread only, so it cannot be sent to another thread. Positive twin:
//! `lu_solves_match_the_cpu_in_both_precisions` in `tests/gpu_cusolver.rs`.
use custack::solver::Matrix;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lu = guard.lu_plan::<f32>(Matrix::square(4))?;
    std::thread::scope(|t| {
        t.spawn(|| lu.workspace_bytes()); //~ ERROR E0277
    });
    Ok(())
}
