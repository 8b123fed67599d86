//! C25 library handles: a read-only binding (`ScopedSlice`, from `bind`) cannot be passed as
//! the output of a cuBLAS call: `gemm` writes `c`, which must be bound with `bind_mut`.
//! Positive twin: `gemm_f32_matches_the_cpu` in `tests/gpu_cublas.rs`.
use custack::blas::Gemm;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let blas = guard.blas()?;
    let a = guard.alloc_zeroed::<f32>(4)?;
    let b = guard.alloc_zeroed::<f32>(4)?;
    let c = guard.alloc_zeroed::<f32>(4)?;
    guard.stream()?.scope(|s| {
        let (da, db, dc) = (s.bind(&a), s.bind(&b), s.bind(&c));
        blas.gemm(s, &Gemm::new(2, 2, 2), da, db, dc) //~ ERROR E0277
    })??;
    Ok(())
}
