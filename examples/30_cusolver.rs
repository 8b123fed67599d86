//! cuSOLVER under the guard: an LU solve and a Cholesky factorization of a 256×256 system in
//! `f64` with `custack::solver`, on custack device buffers in one stream scope, checked against
//! the CPU (the residual of the solve); then a singular matrix, whose zero pivot comes back as
//! a typed error once the scope has ended. No `unsafe`.
//!
//! ```text
//! cargo run --release --features cusolver --example 30_cusolver
//! ```
//!
//! Requires the feature `cusolver`, under which the build script finds cuSOLVER and links it
//! into custack: `CUSTACK_CUSOLVER_LIB_DIR` (the directory holding `libcusolver.so.12` or
//! `.11`), else the CUDA toolkit, else the `nvidia-cusolver` Python wheel of `python3`. No rpath
//! is set, so the loader must find cuSOLVER, and the cuBLAS, cuSPARSE and nvJitLink it loads,
//! at run time:
//!
//! ```text
//! NV=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])')   # the wheels' nvidia/
//! LD_LIBRARY_PATH=$NV/cu13/lib:$LD_LIBRARY_PATH cargo run --release --features cusolver --example 30_cusolver
//! ```
//!
//! Without a driver, a device or the library it says so in one line and exits with status 1.

use custack::solver::{Fill, Info, Matrix, Transpose};
use custack::{Context, ContextFlags, DeviceMemory, Driver, ErrorKind, Stack};
use std::process::ExitCode;

const N: usize = 256;

/// A small index as a float, exactly.
fn float(i: usize) -> f64 {
    f64::from(i as u32)
}

/// A diagonally dominant symmetric matrix: positive definite, well conditioned.
fn spd(n: usize) -> Vec<f64> {
    let mut a = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..n {
            a[i + j * n] = if i == j {
                float(n)
            } else {
                1.0 / (1.0 + (float(i) - float(j)).abs())
            };
        }
    }
    a
}

/// Returns the largest residual `|A·x − b|` of the LU solve, the Cholesky solve's, and what
/// the singular matrix's info said.
fn run() -> custack::Result<(f64, f64, Info)> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let host_a = spd(N);
    let host_b: Vec<f64> = (0..N).map(|i| float(i % 7) - 3.0).collect();

    let lu = guard.lu_plan::<f64>(Matrix::square(N))?;
    let chol = guard.cholesky_plan::<f64>(Matrix::square(N), Fill::Lower)?;
    println!(
        "device 0: {}, cuSOLVER {} linked from {}; workspaces: LU {} bytes, Cholesky {} bytes",
        device.name()?,
        custack::solver::version()?,
        env!("CUSTACK_CUSOLVER_FOUND"),
        lu.workspace_bytes(),
        chol.workspace_bytes()
    );
    let (mut a_lu, mut a_ch) = (guard.alloc_from(&host_a)?, guard.alloc_from(&host_a)?);
    let (mut x_lu, mut x_ch) = (guard.alloc_from(&host_b)?, guard.alloc_from(&host_b)?);
    let mut ipiv = guard.lu_pivots(Matrix::square(N))?;
    let mut infos = [
        guard.solver_info()?,
        guard.solver_info()?,
        guard.solver_info()?,
        guard.solver_info()?,
    ];
    let [getrf, getrs, potrf, potrs] = &mut infos;
    let rhs = Matrix::new(N, 1);
    stream.scope(|s| -> custack::Result<()> {
        let (mut a, mut p) = (s.bind_mut(&mut a_lu), s.bind_pivots(&mut ipiv));
        lu.getrf(s, &mut a, &mut p, getrf)?;
        lu.getrs(s, Transpose::No, &a, &p, s.bind_mut(&mut x_lu), rhs, getrs)?;
        let mut c = s.bind_mut(&mut a_ch);
        chol.potrf(s, &mut c, potrf)?;
        chol.potrs(s, &c, s.bind_mut(&mut x_ch), rhs, potrs)
    })??;
    // The scope has ended: every info is known.
    for info in &infos {
        info.ensure_success()?;
    }
    let residual = |x: &[f64]| {
        (0..N)
            .map(|i| {
                let ax: f64 = (0..N).map(|j| host_a[i + j * N] * x[j]).sum();
                (ax - host_b[i]).abs()
            })
            .fold(0.0, f64::max)
    };
    let (r_lu, r_ch) = (residual(&x_lu.to_vec()?), residual(&x_ch.to_vec()?));

    // A singular matrix: its second column is twice its first.
    let small = guard.lu_plan::<f64>(Matrix::square(2))?;
    let mut singular = guard.alloc_from(&[1.0, 2.0, 2.0, 4.0])?;
    let mut pivots = guard.lu_pivots(Matrix::square(2))?;
    let mut info = guard.solver_info()?;
    stream.scope(|s| {
        small.getrf(
            s,
            s.bind_mut(&mut singular),
            &mut s.bind_pivots(&mut pivots),
            &mut info,
        )
    })??;
    let e = info.ensure_success().expect_err("a singular matrix");
    assert_eq!(e.kind(), ErrorKind::SingularMatrix);
    println!("the singular matrix: {e}");
    Ok((r_lu, r_ch, info.outcome()?))
}

fn main() -> ExitCode {
    match run() {
        Ok((r_lu, r_ch, singular)) if r_lu < 1e-9 && r_ch < 1e-9 => {
            println!(
                "cusolver: {N}x{N} LU and Cholesky solves on a custack stream, residuals \
                 {r_lu:e} and {r_ch:e}; the singular matrix's info: {singular:?}"
            );
            ExitCode::SUCCESS
        }
        Ok((r_lu, r_ch, _)) => {
            eprintln!("30_cusolver: residuals {r_lu:e} (LU) and {r_ch:e} (Cholesky) are too large");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("30_cusolver: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
