//! C35 cuSPARSE descriptors: a descriptor is made of memory bound to its own scope only;
//! values bound to an outer scope (another stream, whose work may still be writing them)
//! cannot make a descriptor used in an inner scope.
//! Positive twin: `one_plan_on_two_streams` in `tests/gpu_cusparse.rs`.
use custack::sparse::SparseMatrix;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let pattern = guard.csr_pattern(2, 3, &[0i32, 2, 3], &[0, 2, 2])?;
    let values = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    one.scope(|s1| {
        let v1 = s1.bind(&values);
        two.scope(|s2| -> custack::Result<()> {
            let a = SparseMatrix::csr(s2, &pattern, v1)?; //~ ERROR E0521
            assert_eq!(a.nnz(), 3);
            Ok(())
        })?
    })??;
    Ok(())
}
