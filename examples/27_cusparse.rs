//! cuSPARSE under the guard: the 1-D Laplacian (a tridiagonal CSR matrix of 100,000 rows,
//! `2` on the diagonal, `-1` beside it) times a vector with `custack::sparse`, on custack
//! device buffers in a custack stream scope, timed with custack events and checked against the
//! CPU. No `unsafe`.
//!
//! ```text
//! cargo run --release --features cusparse --example 27_cusparse
//! ```
//!
//! Requires the feature `cusparse`, under which the build script finds cuSPARSE and links it
//! into custack: `CUSTACK_CUSPARSE_LIB_DIR` (the directory holding `libcusparse.so.12`), else the
//! CUDA toolkit, else the `nvidia-cusparse` Python wheel (`<site-packages>/nvidia/cu13/lib`).
//! Without it the build warns and every call returns an error saying what to set. No rpath is
//! set, so the loader must find cuSPARSE, and the libnvJitLink it loads, at run time:
//!
//! ```text
//! NV=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])')   # the wheels' nvidia/
//! LD_LIBRARY_PATH=$NV/cu13/lib:$LD_LIBRARY_PATH cargo run --release --features cusparse --example 27_cusparse
//! ```
//!
//! What it shows: the structure is checked on the host by the guard ([`csr_pattern`]) before
//! it is copied to the device, so cuSPARSE only ever reads a valid one; the descriptor borrows
//! the structure and the values bound to the scope; the plan holds the workspace cuSPARSE
//! asked for; the vectors' lengths are checked before anything is enqueued.
//!
//! [`csr_pattern`]: custack::PushedGuard::csr_pattern

use custack::sparse::{SpMv, SparseMatrix};
use custack::{Context, ContextFlags, Driver, EventFlags, Stack};
use std::process::ExitCode;

const N: usize = 100_000;

/// Runs the `SpMV`; returns the time of one `SpMV` in ms and the largest difference from the
/// CPU's result.
fn run() -> custack::Result<(f32, f64)> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    println!(
        "device 0: {}, cuSPARSE {} linked from {}",
        device.name()?,
        custack::sparse::version()?,
        env!("CUSTACK_CUSPARSE_FOUND")
    );

    // The tridiagonal matrix, row by row.
    let (mut offsets, mut columns, mut values) = (vec![0i32], vec![], vec![]);
    for i in 0..N {
        for (j, v) in [(i.wrapping_sub(1), -1.0f32), (i, 2.0), (i + 1, -1.0)] {
            if j < N {
                columns.push(i32::try_from(j).unwrap_or(i32::MAX));
                values.push(v);
            }
        }
        offsets.push(i32::try_from(columns.len()).unwrap_or(i32::MAX));
    }
    // Multiples of 1/8: every product and sum is exact in f32.
    let x: Vec<f32> = (0..N).map(|i| f32::from((i % 13) as u8) / 8.0).collect();
    let pattern = guard.csr_pattern(N, N, &offsets, &columns)?; // checked here, on the host
    let dvalues = guard.alloc_from(&values)?;
    let dx = guard.alloc_from(&x)?;
    let mut dy = guard.alloc_zeroed::<f32>(N)?;
    let mut y = vec![0.0f32; N];
    let (start, stop) = (
        guard.event(EventFlags::empty())?,
        guard.event(EventFlags::empty())?,
    );
    let mv = SpMv::new(1.0f32, 0.0);
    stream.scope(|s| -> custack::Result<()> {
        let a = SparseMatrix::csr(s, &pattern, s.bind(&dvalues))?;
        let (dx, mut dy) = (s.bind(&dx), s.bind_mut(&mut dy));
        let plan = guard.spmv_plan(&mv, &a, dx, &dy)?;
        plan.run(s, &mv, &a, dx, &mut dy)?; // warm-up
        s.record(&start)?;
        plan.run(s, &mv, &a, dx, &mut dy)?;
        s.record(&stop)?;
        s.copy_to_host(&mut y, &dy)
    })??;
    let ms = start.elapsed_ms(&stop)?;

    let mut max_error = 0f64;
    for i in 0..N {
        let left = if i > 0 { f64::from(x[i - 1]) } else { 0.0 };
        let right = if i + 1 < N { f64::from(x[i + 1]) } else { 0.0 };
        let expected = 2.0 * f64::from(x[i]) - left - right;
        max_error = max_error.max((f64::from(y[i]) - expected).abs());
    }
    Ok((ms, max_error))
}

fn main() -> ExitCode {
    match run() {
        Ok((ms, max_error)) if max_error < f64::MIN_POSITIVE => {
            println!(
                "cusparse: SpMV of the {N}-row 1-D Laplacian on a custack stream in {ms:.3} ms, \
                 exact vs the CPU"
            );
            ExitCode::SUCCESS
        }
        Ok((_, max_error)) => {
            eprintln!("27_cusparse: the GPU result differs from the CPU's by up to {max_error:e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("27_cusparse: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
