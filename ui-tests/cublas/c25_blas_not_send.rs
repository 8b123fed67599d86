//! C25 library handles: a cuBLAS handle stays on its thread: it cannot be sent to another
//! thread (its context is current on this one only).
//! Positive twin: `gemm_f32_matches_the_cpu` in `tests/gpu_cublas.rs` (used on its own thread).
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let blas = guard.blas()?;
    std::thread::scope(|s| {
        s.spawn(move || blas.destroy()); //~ ERROR E0277
    });
    Ok(())
}
