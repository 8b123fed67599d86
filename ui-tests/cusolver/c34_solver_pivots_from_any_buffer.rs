//! C34 cuSOLVER's pivots: `getrs` interchanges the rows of `B` its pivots name, unchecked on the
//! GPU, so it takes only `Pivots` (which start as the identity and which only `getrf` writes),
//! never an `i32` buffer of the caller's: a pivot outside `1..=n` would read and write device
//! memory outside `B` (found by review on the GPU). An `i32` binding is a type error.
//! Positive twin: `lu_solves_match_the_cpu_in_both_precisions` in `tests/gpu_cusolver.rs`.
use custack::solver::{Matrix, Transpose};
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lu = guard.lu_plan::<f64>(Matrix::square(2))?;
    let a = guard.alloc_from(&[1.0f64, 0.0, 0.0, 1.0])?;
    let ipiv = guard.alloc_from(&[5i32, 2])?; // 5 > n
    let mut info = guard.solver_info()?;
    let mut b = guard.alloc_zeroed::<f64>(2)?;
    guard.stream()?.scope(|s| {
        lu.getrs(s, Transpose::No, s.bind(&a), s.bind(&ipiv), s.bind_mut(&mut b), Matrix::new(2, 1), &mut info) //~ ERROR E0308
    })??;
    Ok(())
}
