//! C25 library handles: a cuBLASLt handle lent by a guard cannot be used after the guard is
//! dropped (its context popped).
//! Positive twin: `one_handle_serves_two_streams_and_submissions_and_drops_with_work_pending`
//! in `tests/gpu_cublaslt.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lt = guard.blas_lt()?;
    drop(guard); //~ ERROR E0505
    lt.destroy()?;
    Ok(())
}
