//! C34 cuSOLVER's pivots: `Pivots` are not writable device memory, so no kernel, copy or memset
//! can put a row number outside `1..=n` into them for `getrs` to use: binding them mutably as
//! device memory is a trait error (they are bound only with `s.bind_pivots`).
//! Positive twin: `lu_solves_match_the_cpu_in_both_precisions` in `tests/gpu_cusolver.rs`.
use custack::solver::Matrix;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut pivots = guard.lu_pivots(Matrix::square(2))?;
    guard.stream()?.scope(|s| {
        s.fill_u32(s.bind_mut(&mut pivots), 7) //~ ERROR E0277
    })??;
    Ok(())
}
