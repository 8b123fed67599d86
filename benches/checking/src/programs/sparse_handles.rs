//! The program `sparse_handles` (the libraries' handles under the checking driver): cuSPARSE
//! through custack's safe API, on cuSPARSE's stand-in (`checkdriver/standins/cusparse`, a
//! `libcusparse.so.12` whose handles and descriptors the double tracks). In a scope: a CSR
//! matrix (its descriptor, `cusparseCreateConstCsr`), an `SpMV` plan (a handle, `cusparseCreate`,
//! the vectors' descriptors and its workspace, `cusparseSpMV_bufferSize`, answered by the
//! stand-in) and a run; then a run in a scope on another stream. Each run gives the handle its
//! stream (`cusparseSetStream`) and is refused as every computation of the stand-in is
//! (`CUSPARSE_STATUS_NOT_SUPPORTED`: a typed error, which the program expects); then the plan is
//! destroyed (`SpMvPlan::destroy`: the handle, `cusparseDestroy`, and its descriptors). The
//! double checks that each handle is made once in its context, given only live streams of that
//! context, never used after its destruction, destroyed once and not while its stream may still
//! run work, and that every descriptor is destroyed once.

use custack::sparse::{SpMv, SparseMatrix};
use custack::{Context, ContextFlags, Driver, ErrorKind, Result, Stack};

/// A run's answer: the stand-in's refusal is expected; any other error (a failed call of a
/// schedule) is the program's, returned.
fn refused(r: Result<()>) -> Result<()> {
    match r {
        Err(e) if e.kind() == ErrorKind::CusparseNotSupported => Ok(()),
        Err(e) => Err(e),
        Ok(()) => panic!("the stand-in computed SpMV"),
    }
}

/// An `SpMV` plan run on two streams (see the file's opening).
pub(crate) fn sparse_handles() -> Result<()> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    // The 3×3 matrix tridiag(-1, 2, -1).
    let offsets = [0i32, 2, 5, 7];
    let columns = [0i32, 1, 0, 1, 2, 1, 2];
    let pattern = guard.csr_pattern(3, 3, &offsets, &columns)?;
    let values = guard.alloc_from(&[2.0f32, -1.0, -1.0, 2.0, -1.0, -1.0, 2.0])?;
    let x = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
    let mut y = guard.alloc_zeroed::<f32>(3)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let mv = SpMv::new(1.0f32, 0.0);
    let plan = one.scope(|s| -> Result<_> {
        let a = SparseMatrix::csr(s, &pattern, s.bind(&values))?;
        let (dx, mut dy) = (s.bind(&x), s.bind_mut(&mut y));
        let plan = guard.spmv_plan(&mv, &a, dx, &dy)?;
        // The stand-in's workspace query answers 64 bytes.
        assert_eq!(plan.workspace_bytes(), 64);
        refused(plan.run(s, &mv, &a, dx, &mut dy))?;
        Ok(plan)
    })??;
    // The same plan on another stream: the handle is given it (after the first's work).
    two.scope(|t| -> Result<()> {
        let a = SparseMatrix::csr(t, &pattern, t.bind(&values))?;
        let (dx, mut dy) = (t.bind(&x), t.bind_mut(&mut y));
        refused(plan.run(t, &mv, &a, dx, &mut dy))
    })??;
    plan.destroy()?;
    Ok(())
}
