//! The program `stand_ins` (C13): kernels computed on the CPU by stand-ins, `vector_add` in a scope
//! and `add_u32` in a captured graph launched twice; whenever every call succeeded the results are
//! the CPU's. The positive twin of `ui-tests/c13_*.rs`.

use crate::common::{KERNELS, N, N32};
use custack::{Context, ContextFlags, Driver, LaunchConfig, Result, Stack, StandIn};

/// Kernels computed on the CPU by stand-ins: `vector_add` in a scope, and `add_u32`
/// in a captured graph launched twice. Whenever every call succeeded the results are the CPU's
/// (a wrong value panics: the harness counts it).
#[allow(
    clippy::cast_precision_loss,
    clippy::float_cmp,
    reason = "f32 values below 2^24 and the stand-in's products are exact: the CPU's result \
              and the stand-in's are equal bit for bit"
)]
pub(crate) fn stand_ins() -> Result<()> {
    let driver = Driver::init()?;
    // SAFETY: as the kernel, the stand-in reads n floats of `a` and `b` and writes n of `c`.
    let vector_add_on_cpu = unsafe {
        StandIn::register(&driver, "vector_add", |call| {
            let n = call.arg::<u32>(3)? as usize;
            let a = call.read::<f32>(call.arg(0)?, n)?;
            let b = call.read::<f32>(call.arg(1)?, n)?;
            let c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            call.write(call.arg(2)?, &c)?;
            Ok(())
        })
    }?;
    // SAFETY: as the kernel, the stand-in reads and writes x[0..n).
    let _add_u32_on_cpu = unsafe {
        StandIn::register(&driver, "add_u32", |call| {
            let (x, k, n) = (
                call.arg::<u64>(0)?,
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<u32>(x, n as usize)?;
            for e in &mut v {
                *e += k;
            }
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    assert!(
        vector_add_on_cpu.is_active(),
        "the checking driver runs stand-ins"
    );
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let vector_add = module.function("vector_add")?;
    let stream = guard.stream()?;
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..N).map(|i| 2.0 * i as f32).collect();
    let mut c = vec![0f32; N];
    let mut da = guard.alloc::<f32>(N)?;
    let mut db = guard.alloc::<f32>(N)?;
    let mut dc = guard.alloc::<f32>(N)?;
    stream.scope(|s| -> Result<()> {
        let (mut da, mut db, mut dc) = (
            s.bind_mut(&mut da),
            s.bind_mut(&mut db),
            s.bind_mut(&mut dc),
        );
        s.copy_to_device(&mut da, &a)?;
        s.copy_to_device(&mut db, &b)?;
        // SAFETY: `vector_add` reads `n` floats of its first two arguments and writes `n` of
        // the third, each holding `n` (here: its stand-in does).
        unsafe {
            s.launch(
                &vector_add,
                LaunchConfig::for_elements(N32),
                (&da, &db, &mut dc, N32),
            )?;
        }
        s.copy_to_host(&mut c, &dc)
    })??;
    assert!(
        c.iter().enumerate().all(|(i, x)| *x == 3.0 * i as f32),
        "vector_add's stand-in computed {:?}...",
        &c[..4]
    );
    // A captured launch runs at each launch of the graph, after the captured copy.
    let mut input = guard.alloc_pinned::<u32>(N)?;
    input.fill(1);
    let payload = (
        input,
        guard.alloc::<u32>(N)?,
        module.function("add_u32")?,
        vec![0u32; N],
    );
    let graph = stream.capture(payload, |s, (input, mut dev, add, out)| {
        s.copy_to_device(&mut dev, input)?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); `dev` holds n elements.
        unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, 5u32, N32)) }?;
        s.copy_to_host(out, &dev)
    })?;
    let mut exec = graph.instantiate()?;
    for round in [10u32, 20] {
        exec.payload_mut().0.fill(round);
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
        let out = &exec.payload().3;
        assert!(
            out.iter().all(|x| *x == round + 5),
            "add_u32's stand-in gave {}",
            out[0]
        );
    }
    Ok(())
}
