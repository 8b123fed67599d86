//! The program `blas_handles` (the libraries' handles under the checking driver): cuBLAS through
//! custack's safe API, on cuBLAS's stand-in (`checkdriver/standins/cublas`, a `libcublas.so.12`
//! whose handles the double tracks). A handle with its default workspace (`guard.blas()`:
//! `cublasCreate_v2`, the workspace allocated by custack); an `axpy` in a scope, then one in a
//! scope on another stream. Each call gives the handle its stream and workspace
//! (`cublasSetStream_v2`, `cublasSetWorkspace_v2`) and pointer mode (`cublasSetPointerMode_v2`),
//! which the stand-in accepts, and is refused as every computation of the stand-in is
//! (`CUBLAS_STATUS_NOT_SUPPORTED`: a typed error, which the program expects); then the handle is
//! destroyed (`Blas::destroy`: `cublasDestroy_v2`, after its stream's work, and the workspace
//! freed). The double checks that the handle is made once in its context, given only live
//! streams of that context, never used after its destruction, destroyed once and not while its
//! stream may still run work.

use custack::{Context, ContextFlags, Driver, ErrorKind, Result, Stack};

/// A call's answer: the stand-in's refusal is expected; any other error (a failed call of a
/// schedule) is the program's, returned.
fn refused(r: Result<()>) -> Result<()> {
    match r {
        Err(e) if e.kind() == ErrorKind::CublasNotSupported => Ok(()),
        Err(e) => Err(e),
        Ok(()) => panic!("the stand-in computed axpy"),
    }
}

/// A cuBLAS handle used on two streams (see the file's opening).
pub(crate) fn blas_handles() -> Result<()> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let blas = guard.blas()?;
    let x = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
    let mut y = guard.alloc_from(&[1.0f32; 3])?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    one.scope(|s| refused(blas.axpy(s, 3, 2.0, s.bind(&x), 1, s.bind_mut(&mut y), 1)))??;
    // The same handle on another stream: it is given it (after the first's work).
    two.scope(|t| refused(blas.axpy(t, 3, 2.0, t.bind(&x), 1, t.bind_mut(&mut y), 1)))??;
    blas.destroy()?;
    Ok(())
}
