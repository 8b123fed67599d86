//! The program `blaslt_handles` (the libraries' handles under the checking driver): cuBLASLt
//! through custack's safe API, on cuBLASLt's stand-in (`checkdriver/standins/cublaslt`, a
//! `libcublasLt.so.12` whose handle and descriptors the double tracks). A handle with its default
//! workspace (`guard.blas_lt()`: `cublasLtCreate`, the workspace allocated by custack); a matmul
//! plan with a bias epilogue (`BlasLt::matmul_plan`: `cublasLtMatmulDescCreate` and its
//! attributes, three `cublasLtMatrixLayoutCreate`, a preference and its attributes, and
//! `cublasLtMatmulAlgoGetHeuristic`, whose one algorithm the stand-in answers with 64 bytes of
//! workspace, then the preference destroyed); a run in a scope, then one in place in a scope on
//! another stream. Each run sets the bias pointer and calls `cublasLtMatmul` with the scope's
//! stream, which the stand-in checks (the handle, the stream, the descriptors, the algorithm)
//! and refuses as every computation of the stand-in is (`CUBLAS_STATUS_NOT_SUPPORTED`: a typed
//! error, which the program expects); then the plan is dropped (its layouts and descriptor) and
//! the handle destroyed (`BlasLt::destroy`: `cublasLtDestroy`, after its streams' work, and the
//! workspace freed). The double checks that the handle is made once in its context, used only
//! with live streams of that context, never used after its destruction, destroyed once and not
//! while its stream may still run work, and that every descriptor is set and used only while
//! live and destroyed once (none leaked).

use custack::blas::Gemm;
use custack::blaslt::{Bias, Epilogue, Matmul};
use custack::{Context, ContextFlags, Driver, ErrorKind, Result, Stack};

/// A run's answer: the stand-in's refusal is expected; any other error (a failed call of a
/// schedule) is the program's, returned.
fn refused(r: Result<()>) -> Result<()> {
    match r {
        Err(e) if e.kind() == ErrorKind::CublasNotSupported => Ok(()),
        Err(e) => Err(e),
        Ok(()) => panic!("the stand-in computed a matmul"),
    }
}

/// A cuBLASLt matmul plan run on two streams, then dropped (see the file's opening).
#[allow(
    clippy::many_single_char_names,
    reason = "the matmul's own names: m, n, k, a, b, c, d"
)]
pub(crate) fn blaslt_handles() -> Result<()> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lt = guard.blas_lt()?;
    // D (4 × 3) = relu(A (4 × 2) · B (2 × 3) + bias (4)).
    let (m, n, k) = (4, 3, 2);
    let plan =
        lt.matmul_plan::<f32, f32>(&Matmul::new(Gemm::new(m, n, k)).epilogue(Epilogue::ReluBias))?;
    // The stand-in's heuristic answers 64 bytes, within the handle's workspace.
    assert_eq!(plan.algorithm_workspace(), 64);
    let a = guard.alloc_zeroed::<f32>(m * k)?;
    let b = guard.alloc_zeroed::<f32>(k * n)?;
    let c = guard.alloc_zeroed::<f32>(m * n)?;
    let bias = guard.alloc_zeroed::<f32>(m)?;
    let mut d = guard.alloc_zeroed::<f32>(m * n)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    one.scope(|s| {
        let (a, b, c) = (s.bind(&a), s.bind(&b), s.bind(&c));
        refused(plan.run(s, a, b, c, s.bind_mut(&mut d), Bias(s.bind(&bias))))
    })??;
    // The same plan on another stream, in place (after the first's work).
    two.scope(|t| {
        let (a, b) = (t.bind(&a), t.bind(&b));
        refused(plan.run_in_place(t, a, b, t.bind_mut(&mut d), Bias(t.bind(&bias))))
    })??;
    // The plan dropped (its layouts and descriptor, its errors recorded), then the handle
    // destroyed.
    drop(plan);
    lt.destroy()?;
    Ok(())
}
