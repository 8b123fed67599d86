//! C35 cuSPARSE descriptors: a sparse matrix descriptor borrows its values for its scope, so
//! the values' buffer cannot be dropped (freed) while the descriptor that points at it lives.
//! Positive twin: `spmv_csr_f32_matches_the_cpu` in `tests/gpu_cusparse.rs`.
use custack::sparse::SparseMatrix;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let pattern = guard.csr_pattern(2, 3, &[0i32, 2, 3], &[0, 2, 2])?;
    guard.stream()?.scope(|s| -> custack::Result<()> {
        let a;
        {
            let values = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
            a = SparseMatrix::csr(s, &pattern, s.bind(&values))?; //~ ERROR E0597
        }
        assert_eq!(a.nnz(), 3);
        Ok(())
    })??;
    Ok(())
}
