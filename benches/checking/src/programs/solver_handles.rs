//! The program `solver_handles` (issue: the libraries' handles under the checking driver): cuSOLVER
//! plans through custack's safe API, on cuSOLVER's stand-in (`checkdriver/standins/cusolver`, a
//! `libcusolver.so.12` whose handles the double tracks). Two LU plans: each makes a handle
//! (`cusolverDnCreate`) and its workspace (`*_bufferSize`, answered by the stand-in); `getrf` on
//! two streams gives the handle each stream in turn (`cusolverDnSetStream`), and is refused as
//! every computation of the stand-in is (`CUSOLVER_STATUS_NOT_SUPPORTED`: a typed error, which
//! the program expects); one plan is destroyed (`LuPlan::destroy`), the other dropped. The double
//! checks that each handle is made once in its context, given only live streams of that context,
//! never used after its destruction, destroyed once and not while its stream may still run work.

use custack::solver::Matrix;
use custack::{Context, ContextFlags, Driver, ErrorKind, Result, Stack};

/// `getrf`'s answer: the stand-in's refusal is expected; any other error (a failed call of a
/// schedule) is the program's, returned.
fn refused(r: Result<()>) -> Result<()> {
    match r {
        Err(e) if e.kind() == ErrorKind::CusolverNotSupported => Ok(()),
        Err(e) => Err(e),
        Ok(()) => panic!("the stand-in computed getrf"),
    }
}

/// Two LU plans on two streams (see the file's opening).
pub(crate) fn solver_handles() -> Result<()> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let first = guard.lu_plan::<f32>(Matrix::square(4))?;
    // The stand-in's workspace query answers 8 elements.
    assert_eq!(first.workspace_bytes(), 8 * size_of::<f32>());
    let second = guard.lu_plan::<f64>(Matrix::square(2))?;
    let mut a = guard.alloc_zeroed::<f32>(16)?;
    let mut b = guard.alloc_zeroed::<f64>(4)?;
    let mut ipiv = guard.lu_pivots(Matrix::square(4))?;
    let mut ipiv2 = guard.lu_pivots(Matrix::square(2))?;
    let mut info = guard.solver_info()?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let (a, ipiv, ipiv2) = (&mut a, &mut ipiv, &mut ipiv2);
    one.scope(|s| refused(first.getrf(s, s.bind_mut(a), &mut s.bind_pivots(ipiv), &mut info)))??;
    // Another stream: the handle is given it (after the first's work).
    two.scope(|s| refused(first.getrf(s, s.bind_mut(a), &mut s.bind_pivots(ipiv), &mut info)))??;
    two.scope(|s| refused(second.getrf(s, s.bind_mut(&mut b), &mut s.bind_pivots(ipiv2), &mut info)))??;
    // Pivots of another shape: refused before cuSOLVER (no call).
    let wrong = two.scope(|s| first.getrf(s, s.bind_mut(a), &mut s.bind_pivots(ipiv2), &mut info))?;
    match wrong {
        Err(e) if e.kind() == ErrorKind::InvalidValue => {}
        r => panic!("getrf took pivots of another shape: {r:?}"),
    }
    first.destroy()?;
    drop(second);
    Ok(())
}
