//! C35 cuSPARSE structures: a checked pattern owns device arrays of the context current on this
//! thread (it borrows the guard), so it cannot be sent to another thread, where its arrays would
//! be freed, or described, in whatever context is current there.
//! Positive twin: `spmv_csr_f32_matches_the_cpu` in `tests/gpu_cusparse.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let pattern = guard.csr_pattern(2, 3, &[0i32, 2, 3], &[0, 2, 2])?;
    std::thread::scope(|t| {
        t.spawn(move || drop(pattern)); //~ ERROR E0277
    });
    Ok(())
}
