//! C35 cuSPARSE descriptors: the values a descriptor reads are bound shared for the whole
//! scope, so the same buffer cannot also be bound for writing and passed as the output of a
//! product that reads them (a write racing cuSPARSE's reads).
//! Positive twin: `spmv_csr_f32_matches_the_cpu` in `tests/gpu_cusparse.rs`.
use custack::sparse::{SparseMatrix, SpMv};
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let pattern = guard.csr_pattern(3, 3, &[0i32, 1, 2, 3], &[0, 1, 2])?;
    let mut values = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
    let x = guard.alloc_from(&[1.0f32; 3])?;
    let d = SpMv::new(1.0f32, 0.0);
    guard.stream()?.scope(|s| -> custack::Result<()> {
        let a = SparseMatrix::csr(s, &pattern, s.bind(&values))?;
        let mut y = s.bind_mut(&mut values); //~ ERROR E0502
        let plan = guard.spmv_plan(&d, &a, s.bind(&x), &y)?;
        plan.run(s, &d, &a, s.bind(&x), &mut y)
    })??;
    Ok(())
}
