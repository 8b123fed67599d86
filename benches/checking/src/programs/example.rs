//! The program `example`: the shape of `examples/01_vector_add.rs` (a floating context, a guard, a
//! module, page-locked and device memory, one stream scope with copies and a launch). No row of its
//! own: R10, as every program (each driver call failed in turn).

use crate::common::{KERNELS, N, N32};
use custack::{Context, ContextFlags, Driver, LaunchConfig, Result, Stack};

/// The example's shape (`examples/01_vector_add.rs`): a floating context, a guard, a module,
/// page-locked and device memory, one stream scope with copies and a launch.
pub(crate) fn example() -> Result<()> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let _ = (
        device.name()?,
        device.compute_capability()?,
        device.total_memory()?,
        driver.version()?,
    );
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let vector_add = module.function("vector_add")?;
    let stream = guard.stream()?;
    let a = guard.alloc_pinned::<f32>(N)?;
    let b = guard.alloc_pinned::<f32>(N)?;
    let mut c = guard.alloc_pinned::<f32>(N)?;
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
        // SAFETY: under the checking driver no kernel runs; on a GPU `vector_add` reads `n`
        // floats of its first two arguments and writes `n` of the third, each holding `n`.
        unsafe {
            s.launch(
                &vector_add,
                LaunchConfig::for_elements(N32),
                (&da, &db, &mut dc, N32),
            )?;
        }
        s.copy_to_host(&mut c, &dc)
    })??;
    Ok(())
}
