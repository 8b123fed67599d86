//! `c = a + b` end to end: on a GPU the kernel computes it; under custack's checking driver a CPU
//! stand-in does, so the same test checks the result without a GPU. Run under every fault
//! schedule by `scripts/checked-app.sh`:
//!
//! - `fixed_operands_add_vectors` must pass every schedule;
//! - `leaky_operands_add_vectors` is the buggy twin: `custack-check` must report the leak, with
//!   the number of the failed call (the second `cuMemAlloc_v2`).
//!
//! Both need a CUDA device or the checking driver, hence `#[ignore]`: run them with
//! `--include-ignored`.

use custack::{Context, ContextFlags, Driver, KernelCall, Stack, StandIn, StandInError};

type TestResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// `vector_add(a, b, c, n)` on the CPU.
fn vector_add_on_cpu(k: &KernelCall<'_>) -> Result<(), StandInError> {
    let n = k.arg::<u32>(3)? as usize;
    let (a, b) = (k.read::<f32>(k.arg(0)?, n)?, k.read::<f32>(k.arg(1)?, n)?);
    let c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    k.write(k.arg(2)?, &c)?;
    Ok(())
}

fn add_vectors(leaky: bool) -> TestResult {
    let driver = Driver::init()?;
    // SAFETY: as the kernel, the stand-in reads n floats of `a` and `b` and writes n of `c`.
    let _on_cpu = unsafe { StandIn::register(&driver, "vector_add", vector_add_on_cpu) }?;
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(checked_app::PTX)?;
    let a: Vec<f32> = (0..1000u16).map(f32::from).collect();
    let b: Vec<f32> = (0..1000u16).map(|i| 2.0 * f32::from(i)).collect();
    let c = checked_app::add(&guard, &module, &a, &b, leaky)?;
    assert!(
        c.iter().zip(&a).all(|(c, a)| *c == 3.0 * a),
        "wrong sums: {:?}",
        &c[..4]
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device or custack's checking driver"]
fn fixed_operands_add_vectors() -> TestResult {
    add_vectors(false)
}

#[test]
#[ignore = "needs a CUDA device or custack's checking driver"]
fn leaky_operands_add_vectors() -> TestResult {
    add_vectors(true)
}
