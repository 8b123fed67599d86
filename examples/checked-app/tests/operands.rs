//! `c = a + b` end to end: on a GPU the kernel computes it; under custack's checking driver a CPU
//! stand-in does, so the same test checks the result without a GPU. Run under every fault
//! schedule by `scripts/checked-app.sh`:
//!
//! - `fixed_operands_add_vectors` and `halves_add_vectors` must pass every schedule;
//! - `leaky_operands_add_vectors` (planted bug 1, a forget on an upload error): `custack-check`
//!   must report the leak, with the failed call (the second `cuMemAlloc_v2`) and the call that
//!   made what leaked;
//! - `swallowing_add_vectors` (planted bug 2, a swallowed error): the result check fails, and
//!   `custack-check` shows where (`panicked at tests/operands.rs`);
//! - `forgetful_halves_add_vectors` (planted bug 3, a forget on a failed wait): `custack-check`
//!   must report the forgotten half's buffers as orphans, with the calls that made them, and not
//!   what custack itself left behind on purpose.
//!
//! They need a CUDA device or the checking driver, hence `#[ignore]`: run them with
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

/// How `c = a + b` is computed.
#[derive(Clone, Copy)]
enum Way {
    Fixed,
    Leaky,
    Swallowing,
    Halves,
    ForgetfulHalves,
}

fn add_vectors(way: Way) -> TestResult {
    let driver = Driver::init()?;
    // SAFETY: as the kernel, the stand-in reads n floats of `a` and `b` and writes n of `c`.
    let _on_cpu = unsafe { StandIn::register(&driver, "vector_add", vector_add_on_cpu) }?;
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(checked_app::PTX)?;
    let a: Vec<f32> = (0..1000u16).map(f32::from).collect();
    let b: Vec<f32> = (0..1000u16).map(|i| 2.0 * f32::from(i)).collect();
    let c = match way {
        Way::Fixed => checked_app::add(&guard, &module, &a, &b, false)?,
        Way::Leaky => checked_app::add(&guard, &module, &a, &b, true)?,
        Way::Swallowing => checked_app::add_swallowing(&guard, &module, &a, &b)?,
        Way::Halves => checked_app::add_in_halves(&guard, &module, &a, &b, false)?,
        Way::ForgetfulHalves => checked_app::add_in_halves(&guard, &module, &a, &b, true)?,
    };
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
    add_vectors(Way::Fixed)
}

#[test]
#[ignore = "needs a CUDA device or custack's checking driver"]
fn leaky_operands_add_vectors() -> TestResult {
    add_vectors(Way::Leaky)
}

#[test]
#[ignore = "needs a CUDA device or custack's checking driver"]
fn swallowing_add_vectors() -> TestResult {
    add_vectors(Way::Swallowing)
}

#[test]
#[ignore = "needs a CUDA device or custack's checking driver"]
fn halves_add_vectors() -> TestResult {
    add_vectors(Way::Halves)
}

#[test]
#[ignore = "needs a CUDA device or custack's checking driver"]
fn forgetful_halves_add_vectors() -> TestResult {
    add_vectors(Way::ForgetfulHalves)
}
