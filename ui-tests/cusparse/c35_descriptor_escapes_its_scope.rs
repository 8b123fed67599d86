//! C35 cuSPARSE descriptors: a descriptor is branded with its scope, so it cannot be returned
//! out of the scope's closure, where its values would no longer be bound (and could be freed
//! or written while it still points at them).
//! Positive twin: `a_structure_on_the_device_is_checked_or_unsafe` in `tests/gpu_cusparse.rs`.
use custack::sparse::SparseMatrix;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let pattern = guard.csr_pattern(2, 3, &[0i32, 2, 3], &[0, 2, 2])?;
    let values = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
    let stream = guard.stream()?;
    let a = stream.scope(|s| SparseMatrix::csr(s, &pattern, s.bind(&values)))??; //~ ERROR lifetime may not live long enough
    assert_eq!(a.nnz(), 3);
    Ok(())
}
